/* A test program for gdbserver: a loop with a counter, recursion several frames deep,
 * globals, locals, a struct, an array and pointers. Comments of the form LINE:name mark
 * lines the tests look up. main's exit status is counter % 200. */
#include <stdio.h>

struct point {
	int x;
	int y;
	char tag;
};

int counter = 0;
int limit = 10000;
long big = 1234567890123L;
unsigned short small = 65535;
double ratio = 2.5;
int numbers[5] = {10, 20, 30, 40, 50};
struct point origin = {3, 4, 'o'};
struct point *origin_ptr = &origin;
const char *greeting = "hello";

int add(int a, int b)
{
	int sum = a + b; /* LINE:add_body */
	return sum;
}

int factorial(int n)
{
	if (n <= 1) { /* LINE:fact_test */
		return 1; /* LINE:fact_base */
	}
	return n * factorial(n - 1); /* LINE:fact_rec */
}

void work(int i)
{
	struct point p = {i, i * 2, 'p'};
	int arr[3] = {i, i + 1, i + 2};
	int *ptr = &arr[1];

	counter = add(counter, 1); /* LINE:work_add */
	(void)p;
	(void)ptr;
}

int main(int argc, char **argv)
{
	int i;
	int total = 0;

	(void)argv;
	for (i = 0; i < limit; i++) {
		work(i); /* LINE:loop_call */

		total += i; /* LINE:loop_total */
	}
	total += factorial(5); /* LINE:after_loop */
	printf("counter=%d total=%d argc=%d\n", counter, total, argc); /* LINE:print */
	fflush(stdout);
	return counter % 200;
}

/* Recursion for the engine's conformance suite. Lines marked LINE:name are looked up. */
#include <stdio.h>

unsigned fact(unsigned n)
{
	if (n <= 1)
		return 1; /* LINE:fact_base */
	return n * fact(n - 1); /* LINE:fact_rec */
}

int main(void)
{
	unsigned r = fact(5); /* LINE:main_fact */
	printf("fact %u\n", r);
	return 0;
}

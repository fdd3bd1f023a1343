/* Variables of every C kind, for `set var` tests: the program prints them after the stop at
   the marked line, so a test sees what the program itself reads. */
#include <stdbool.h>
#include <stdio.h>

enum color { RED, GREEN = 5, BLUE };
struct flags {
	unsigned a : 3;
	int b : 5;
	unsigned c : 1;
};
struct point {
	int x;
	short y;
	char tag;
	double w;
	struct flags f;
};

signed char sc = 1;
unsigned char uc = 2;
short s16 = 3;
unsigned short u16 = 4;
int i32 = 5;
unsigned u32 = 6;
long long i64 = 7;
unsigned long long u64 = 8;
float fl = 1.5f;
double db = 2.5;
bool ok = false;
char ch = 'a';
enum color col = RED;
struct point pt = {1, 2, 'p', 0.5, {1, -1, 0}};
int arr[4] = {10, 20, 30, 40};
int *ptr = &arr[1];
struct point *pp = &pt;

static int show(int n, struct point *q) {
	int local = n * 2;
	printf("%d %u %d %u %d %u %lld %llu %.3f %.3f %d %c %d\n", sc, uc, s16, u16, i32, u32, i64, u64, fl, db, ok, ch, col); /* LINE:show */
	printf("%d %d %c %.3f %u %d %u\n", q->x, q->y, q->tag, q->w, q->f.a, q->f.b, q->f.c);
	printf("%d %d %d %d %d %d %d\n", arr[0], arr[1], arr[2], arr[3], *ptr, n, local);
	return local;
}

int main(void) {
	show(3, pp);
	return 0;
}

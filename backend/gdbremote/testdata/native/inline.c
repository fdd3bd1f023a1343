/* Built at -O2 by the inlined-function tests: scale is inlined at three places (one inside
 * the inlined twice) and kept out of line because its address is taken, so `break scale`
 * has four locations, as gdb says. Steps into, over and out of the inlined calls are
 * compared with gdb's. Built for a Cortex-M3 (__arm__) it is firmware (no printf). */
#ifndef __arm__
#include <stdio.h>
#endif

volatile int sink;

static inline int scale(int v)
{
	int w = v * 3; /* LINE:scale_first */
	sink = w;      /* LINE:scale_second */
	return w + 1;  /* LINE:scale_return */
}

static inline int twice(int v)
{
	int a = scale(v); /* LINE:twice_call */
	return a + scale(v + 1); /* LINE:twice_return */
}

int (*volatile fp)(int) = scale;

__attribute__((noinline)) int work(int n)
{
	int s = n * 7;   /* LINE:work_first */
	s += scale(n);   /* LINE:call_scale */
	sink = s;        /* LINE:after_scale */
	s += twice(n);   /* LINE:call_twice */
	sink = s;        /* LINE:after_twice */
	return s;
}

int main(void)
{
	int t = 0;
	for (int i = 0; i < 2; i++)
		t += work(i) + fp(i); /* LINE:main_loop */
#ifndef __arm__
	printf("%d\n", t);
#endif
	return t & 0;
}

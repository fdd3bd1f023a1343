/* Built at -O2 by the entry-value test: after the first call to touch, callee's a lives
 * nowhere but as "the value rdi had on entry" (DW_OP_entry_value). gdb recovers it from
 * main's call site when the caller passed a constant (a=5), and says <optimized out> when
 * the caller's value is gone (a=k+1); polydbg must say the same. */
volatile int sink;

__attribute__((noinline)) void touch(int x)
{
	sink = x;
}

__attribute__((noinline)) int callee(int a, int b, long c)
{
	touch(a + b);
	touch(b); /* LINE:second_touch */
	touch((int)c);
	return b;
}

int main(void)
{
	int k = sink;
	int r = callee(5, k, 40L);
	r += callee(k + 1, 7, (long)r);
	sink = r;
	return 0;
}

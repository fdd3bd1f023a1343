/* The program corpus that gdb judges polydbg against (backend/gdbremote's oracle test and
 * backend/elfsym's addr2line test). It needs no C library, so the same file builds for
 * x86-64 Linux (main in native.c) and for Cortex-M3 firmware (startup.c), at every -O
 * level. Functions are noinline where a test breaks in them, and kept from being folded
 * away by volatile globals. Comments of the form LINE:name mark lines the tests look up. */
#include <stdint.h>

struct point {
	int x;
	int y;
	char tag;
};

union word {
	uint32_t u;
	float f;
	unsigned char b[4];
};

struct flags {
	unsigned ready : 1;
	unsigned mode : 3;
	signed level : 4;
	unsigned count : 8;
};

struct shape {
	struct point origin;
	double scale;
	int sides[4];
	struct flags fl;
};

volatile int sink;
volatile uint32_t leaf_calls;
int global_counter = 5;
double global_ratio = 2.5;
static int static_total;
struct shape global_shape = {{1, 2, 's'}, 1.5, {3, 4, 5, 6}, {1, 5, -3, 200}};
union word global_word = {0x3f800000u};

#define NOINLINE __attribute__((noinline))

static inline int square(int x)
{
	return x * x; /* LINE:square */
}

static inline int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

NOINLINE uint32_t leaf(uint32_t v)
{
	leaf_calls++; /* LINE:leaf */
	return v * 2u + 1u;
}

NOINLINE int factorial(int n)
{
	if (n <= 1) /* LINE:fact_test */
		return 1;
	return n * factorial(n - 1);
}

NOINLINE long many(int a, int b, int c, int d, int e, int f, int g, int h, long i, char j)
{
	long s = (long)a + b + c + d + e + f + g + h + i + j; /* LINE:many */
	sink = (int)s;
	return s;
}

NOINLINE double mix(float f, double d, int n)
{
	double r = f * d + n; /* LINE:mix */
	sink = (int)r;
	return r;
}

NOINLINE int walk(struct point *p, int n)
{
	int total = 0;
	for (int i = 0; i < n; i++) {
		total += p[i].x * p[i].y; /* LINE:walk */
	}
	return total;
}

NOINLINE int use_shape(struct shape *s, union word w)
{
	int k = square(s->sides[1]) + clamp(s->fl.level, -2, 2); /* LINE:use_shape */
	sink = k + (int)w.b[0];
	return k;
}

NOINLINE int bits(struct flags fl)
{
	int v = fl.ready + fl.mode * 2 + fl.level + fl.count; /* LINE:bits */
	sink = v;
	return v;
}

static NOINLINE int counted(int x)
{
	static int calls;
	calls++;
	static_total += x; /* LINE:counted */
	return calls;
}

NOINLINE int deep(int y)
{
	sink = y; /* LINE:deep */
	return y * 3;
}

/* Inlined into corpus_run from -O1 on: a backtrace from deep has a frame for it. */
static inline int via_inline(int x)
{
	int y = x + 1;
	return deep(y) * 2; /* LINE:via_inline */
}

/* Nothing calls these: with -ffunction-sections -Wl,--gc-sections the linker discards them,
 * but their DWARF and line-table sequences stay, at address 0. */
int unused_sum(int *v, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += v[i] * 3; /* LINE:unused_body */
	return s;
}

int unused_twice(int x)
{
	return unused_sum(&x, 1) * 2;
}

/* After the call to counted, a lives nowhere at -O1 and above: its location is "the value
 * of the first argument register on entry" (DW_OP_entry_value), which a debugger recovers
 * from the caller's call site when the caller passed a constant (the first call) and not
 * otherwise (the second). noclone: no copy specialised for the constant. */
__attribute__((noinline, noclone)) int entry_param(int a, int b)
{
	int c = counted(a * 3);
	return b + c; /* LINE:entry_param */
}

NOINLINE int corpus_run(int rounds)
{
	struct point pts[3] = {{1, 2, 'a'}, {3, 4, 'b'}, {5, 6, 'c'}};
	int acc = 0;
	for (int r = 0; r < rounds; r++) {
		acc += (int)leaf((uint32_t)r + 97u); /* LINE:run_leaf */
		acc += factorial(5);
		acc += (int)many(1, 2, 3, 4, 5, 6, 7, 8, 9L, 'z');
		acc += (int)mix(1.5f, 0.25, r);
		acc += walk(pts, 3);
		acc += use_shape(&global_shape, global_word);
		acc += bits(global_shape.fl);
		acc += counted(r) + square(r);
		acc += via_inline(r); /* LINE:run_via */
		acc += entry_param(4, r) + entry_param(acc, 2);
		global_counter += acc & 1;
	}
	return acc; /* LINE:run_end */
}

/* Both mains call this when corpus_run returns: the oracle test's last stop. */
NOINLINE void corpus_done(int acc)
{
	sink = acc; /* LINE:done */
}

/* Cortex-M3 test firmware for QEMU's lm3s6965evb and mps2-an385 (both have their code
 * memory at 0 and RAM at 0x20000000). A SysTick interrupt calls tick_work, so a
 * backtrace from there goes through an exception frame into the main loop. Output goes
 * through semihosting. Comments of the form LINE:name mark lines the tests look up. */
#include <stdint.h>

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)

struct sample {
	int a;
	short b;
	unsigned char c[4];
};

volatile uint32_t ticks;
volatile uint32_t loops;
volatile uint32_t step = 1;
volatile uint32_t result;
volatile int32_t signed_val = -42;
struct sample sample = {7, -3, {1, 2, 3, 4}};
volatile uint32_t report_at = 100;

static void semihost_write0(const char *s)
{
	register uint32_t r0 __asm__("r0") = 0x04; /* SYS_WRITE0 */
	register const char *r1 __asm__("r1") = s;
	__asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

static void put_uint(uint32_t v)
{
	char buf[12];
	int i = sizeof buf - 1;
	buf[i] = 0;
	do {
		buf[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && i > 0);
	semihost_write0(&buf[i]);
}

void tick_work(void)
{
	ticks++; /* LINE:tick_work */
}

void SysTick_Handler(void)
{
	tick_work(); /* LINE:systick_call */
}

int compute(int x)
{
	int scaled = x * 3; /* LINE:compute_body */
	return scaled + (int)step;
}

void busy(void)
{
	loops += step; /* LINE:busy_add */
	result = (uint32_t)compute((int)loops);
}

uint32_t fact_result;

/* Recursion for the engine's conformance suite (launch tests). */
uint32_t fact(uint32_t n)
{
	if (n <= 1)
		return 1; /* LINE:fact_base */
	return n * fact(n - 1); /* LINE:fact_rec */
}

int main(void)
{
	semihost_write0("fw start\n");
	fact_result = fact(5); /* LINE:main_fact */
	SYST_RVR = 20000;
	SYST_CVR = 0;
	SYST_CSR = 7; /* enable, interrupt, processor clock */
	for (;;) {
		busy(); /* LINE:main_busy */
		if (loops >= report_at) {
			semihost_write0("loops=");
			put_uint(loops);
			semihost_write0("\n");
			report_at += 100000;
		}
	}
}

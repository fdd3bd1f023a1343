/* Cortex-M3 startup for every test firmware (Build, BuildRTT, BuildC): the vector table
 * (section .isr_vector, symbol vectors), a reset handler that copies .data, clears .bss and
 * calls main, and a default handler. A firmware that defines SysTick_Handler gets it in the
 * table. No C library. */
#include <stdint.h>

int main(void);
extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;

void Reset_Handler(void)
{
	uint32_t *src = &_sidata, *dst = &_sdata;
	while (dst < &_edata)
		*dst++ = *src++;
	for (dst = &_sbss; dst < &_ebss;)
		*dst++ = 0;
	main();
	for (;;) {
	}
}

void Default_Handler(void)
{
	for (;;) {
	}
}

void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));

__attribute__((section(".isr_vector"), used)) void (*const vectors[16])(void) = {
	(void (*)(void))&_estack, Reset_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0,
	Default_Handler, SysTick_Handler,
};

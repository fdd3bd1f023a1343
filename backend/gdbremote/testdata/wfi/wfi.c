/* Firmware that sleeps: WFI with no interrupt ever enabled, so a single step of it cannot
 * complete by itself (the step test of target/gdbremote). Built with
 * internal/firmware/testdata/link.ld. */
extern unsigned _estack;

void Reset_Handler(void)
{
	for (;;)
		__asm__ volatile("wfi"); /* LINE:wfi */
}

void Default_Handler(void)
{
	for (;;) {
	}
}

__attribute__((section(".isr_vector"), used)) void (*const vectors[16])(void) = {
	(void (*)(void))&_estack, Reset_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	0, 0, 0, 0,
	Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};

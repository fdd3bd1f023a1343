/* Cortex-M3 startup for the corpus: vector table, reset handler, main. No C library. */
#include <stdint.h>

int corpus_run(int rounds);
void corpus_done(int acc);
extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;

volatile int fw_result;

int main(void)
{
	fw_result = corpus_run(3); /* LINE:fw_main */
	corpus_done(fw_result);
	for (;;) {
	}
}

void Reset_Handler(void)
{
	uint32_t *src = &_sidata, *dst = &_sdata;
	while (dst < &_edata)
		*dst++ = *src++;
	for (dst = &_sbss; dst < &_ebss;)
		*dst++ = 0;
	main();
}

/* FreeRTOS's ARM ports plant this function's address as the return address of a task
 * function (portTASK_RETURN_ADDRESS): a backtrace ends at the task function. */
__attribute__((used)) void prvTaskExitError(void)
{
	for (;;) {
	}
}

void Default_Handler(void)
{
	for (;;) {
	}
}

__attribute__((section(".isr_vector"), used)) void (*const corpus_vectors[16])(void) = {
	(void (*)(void))&_estack,
	Reset_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	0, 0, 0, 0,
	Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};

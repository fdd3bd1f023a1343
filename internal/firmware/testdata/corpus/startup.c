/* The corpus's main on Cortex-M3 (the vector table and Reset_Handler are startup_m3.c's,
 * linked with it). No C library. */

int corpus_run(int rounds);
void corpus_done(int acc);

volatile int fw_result;

int main(void)
{
	fw_result = corpus_run(3); /* LINE:fw_main */
	corpus_done(fw_result);
	for (;;) {
	}
}

/* FreeRTOS's ARM ports plant this function's address as the return address of a task
 * function (portTASK_RETURN_ADDRESS): a backtrace ends at the task function. */
__attribute__((used)) void prvTaskExitError(void)
{
	for (;;) {
	}
}

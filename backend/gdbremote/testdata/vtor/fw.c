/* Firmware whose vector table is not at its lowest address (see link.ld): the core finds
 * it through VTOR. It copies the table to RAM and moves VTOR there, as firmware that
 * installs interrupt handlers at run time does. Built with internal/firmware's startup. */
#include <stdint.h>

extern void (*const vectors[16])(void); /* internal/firmware/testdata/startup_m3.c */

#define VTOR (*(volatile uint32_t *)0xE000ED08)

/* MCUboot's image header: magic, load address, header size... */
__attribute__((section(".image_header"), used)) const uint32_t image_header[64] = {0x96f3b83d, 0, 0x100};

void (*ram_vectors[16])(void) __attribute__((aligned(128)));
volatile int ticks;

/* First in .text, so ld's default entry point: never run. */
__attribute__((section(".text.first"), used)) void never_called(void)
{
	for (;;) {
	}
}

int main(void)
{
	for (int i = 0; i < 16; i++)
		ram_vectors[i] = vectors[i];
	VTOR = (uint32_t)ram_vectors; /* LINE:relocated */
	for (;;)
		ticks++; /* LINE:loop */
}

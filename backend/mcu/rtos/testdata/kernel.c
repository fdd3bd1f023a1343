/* A host program whose task structures are laid out as FreeRTOS 10/11's (list.h and
 * tasks.c, with configRECORD_STACK_HIGH_ADDRESS) — or, with -DOLD_NAMES, as FreeRTOS 9's
 * (pvContainer, no pxEndOfStack). It builds a task list like the kernel's and writes its
 * data and bss, as they are in memory, to the file named by its argument; the rtos tests
 * read the tasks from that image. -DBROKEN makes one list never come back to its end.
 * Built for a Cortex-M3 (__arm__, with internal/firmware's startup) it is firmware: it
 * builds the same tasks and waits at LINE:ready, where the rtos tests read them from QEMU. */
#include <stddef.h>
#include <stdint.h>
#ifdef __arm__
static void *kmemset(void *d, int c, size_t n)
{
	unsigned char *p = d;
	while (n--)
		*p++ = (unsigned char)c;
	return d;
}
static char *kstrncpy(char *d, const char *s, size_t n)
{
	size_t i = 0;
	for (; i < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = 0;
	return d;
}
#define memset kmemset
#define strncpy kstrncpy
#else
#include <stdio.h>
#include <string.h>
#endif

#include "freertos_list.h" /* internal/firmware/testdata */

#define configMAX_PRIORITIES 5
#define configMAX_TASK_NAME_LEN 12
typedef struct tskTaskControlBlock {
	volatile StackType_t *pxTopOfStack;
	ListItem_t xStateListItem;
	ListItem_t xEventListItem;
	UBaseType_t uxPriority;
	StackType_t *pxStack;
	char pcTaskName[configMAX_TASK_NAME_LEN];
#ifndef OLD_NAMES
	StackType_t *pxEndOfStack;
#endif
	UBaseType_t uxBasePriority;
} tskTCB;
typedef tskTCB TCB_t;

TCB_t *volatile pxCurrentTCB;
List_t pxReadyTasksLists[configMAX_PRIORITIES];
List_t xDelayedTaskList1, xDelayedTaskList2;
List_t *volatile pxDelayedTaskList;
List_t *volatile pxOverflowDelayedTaskList;
List_t xPendingReadyList;
List_t xSuspendedTaskList;
List_t xTasksWaitingTermination;

#define NTASKS 10
TCB_t tcbs[NTASKS];

/* Stacks come, as from pvPortMalloc (heap_4), from an 8-aligned pool: each block has an
 * 8-byte header and is rounded up to 8 bytes, so an odd depth leaves 4 bytes of padding
 * (never filled) above the stack. */
static uint64_t heap_pool[512];
static size_t heap_next;

static StackType_t *stack_alloc(unsigned depth)
{
	char *p = (char *)heap_pool + heap_next + 8;
	heap_next += 8 + ((depth * sizeof(StackType_t) + 7) & ~(size_t)7);
	return (StackType_t *)p;
}

/* xTaskCreateStatic's buffer: an odd depth, its own data object. */
StackType_t shell_stack[45] __attribute__((aligned(8)));
/* Static buffers side by side: the slot above the first's pxEndOfStack is the second's
 * first slot, filled too. */
StackType_t pair_stacks[2][25] __attribute__((aligned(8)));

/* As prvInitialiseNewTask and an ARM port: the stack is filled, pxEndOfStack is the last
 * slot aligned down to 8, and the initial frame and the task's use start below it. */
static TCB_t *task_create(int i, const char *name, UBaseType_t prio, unsigned used_words, List_t *list,
			  StackType_t *stack, unsigned depth)
{
	TCB_t *t = &tcbs[i];
	memset(stack, 0xA5, depth * sizeof(StackType_t));
	StackType_t *end = (StackType_t *)((uintptr_t)&stack[depth - 1] & ~(uintptr_t)7);
	for (unsigned w = 0; w < used_words; w++)
		end[-1 - (int)w] = 0x1000 + w; /* used, from the top down */
	t->pxStack = stack;
#ifndef OLD_NAMES
	t->pxEndOfStack = end;
#endif
	t->pxTopOfStack = end - used_words;
	t->uxPriority = t->uxBasePriority = prio;
	strncpy(t->pcTaskName, name, configMAX_TASK_NAME_LEN);
	t->xStateListItem.pvOwner = t;
	t->xEventListItem.pvOwner = t;
	list_insert_end(list, &t->xStateListItem);
	return t;
}

#ifdef __arm__
volatile int kernel_ready;
int main(void)
#else
extern char __data_start[], _end[];

int main(int argc, char **argv)
#endif
{
	for (int p = 0; p < configMAX_PRIORITIES; p++)
		list_init(&pxReadyTasksLists[p]);
	list_init(&xDelayedTaskList1);
	list_init(&xDelayedTaskList2);
	list_init(&xPendingReadyList);
	list_init(&xSuspendedTaskList);
	list_init(&xTasksWaitingTermination);
	pxDelayedTaskList = &xDelayedTaskList2; /* the lists have swapped once */
	pxOverflowDelayedTaskList = &xDelayedTaskList1;
	task_create(0, "IDLE", 0, 4, &pxReadyTasksLists[0], stack_alloc(32), 32);
	TCB_t *run = task_create(1, "control", 4, 10, &pxReadyTasksLists[4], stack_alloc(31), 31);
	task_create(2, "logger", 4, 6, &pxReadyTasksLists[4], stack_alloc(33), 33);
	task_create(3, "net", 2, 20, &xDelayedTaskList2, stack_alloc(40), 40);
	task_create(4, "watchdog", 3, 8, &xDelayedTaskList1, stack_alloc(17), 17);
	task_create(5, "shell", 1, 31, &xSuspendedTaskList, shell_stack, 45);
	/* blocked on a queue without timeout: in the suspended list, its event item in a list */
	TCB_t *q = task_create(6, "rx_waiter", 2, 12, &xSuspendedTaskList, stack_alloc(32), 32);
#ifdef OLD_NAMES
	q->xEventListItem.pvContainer = &xPendingReadyList;
#else
	q->xEventListItem.pxContainer = &xPendingReadyList;
#endif
	task_create(8, "pair0", 1, 5, &pxReadyTasksLists[1], pair_stacks[0], 25);
	task_create(9, "pair1", 1, 7, &pxReadyTasksLists[1], pair_stacks[1], 25);
	task_create(7, "a_very_long_task_name", 1, 20, &xTasksWaitingTermination, stack_alloc(21), 21); /* all of it */
	pxCurrentTCB = run;
#ifdef BROKEN
	tcbs[2].xStateListItem.pxNext = &tcbs[1].xStateListItem; /* a cycle that skips the end */
#endif
#ifdef __arm__
	for (;;)
		kernel_ready++; /* LINE:ready */
#else
	if (argc < 2)
		return 2;
	FILE *f = fopen(argv[1], "wb");
	if (!f)
		return 1;
	fprintf(f, "%016llx\n", (unsigned long long)(uintptr_t)__data_start);
	fwrite(__data_start, 1, (size_t)(_end - __data_start), f);
	return fclose(f) != 0;
#endif
}

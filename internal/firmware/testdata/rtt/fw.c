/* Test firmware for the Aether front end (QEMU lm3s6965evb, Cortex-M3).
 *
 * - SEGGER RTT: a control block named _SEGGER_RTT, initialised at run time like SEGGER's
 *   code does, with two up buffers ("Terminal", "Plot") and one down buffer. The firmware
 *   prints "hello from rtt" at start, echoes what arrives on the down buffer as
 *   "echo: ...", writes Teleplot lines (">wave:N") on up buffer 1, and floods up buffer 0
 *   while `spam` is non-zero.
 * - A tiny round-robin "scheduler" whose task control blocks and lists are laid out as
 *   FreeRTOS's (TCB_t, List_t, ListItem_t, pxCurrentTCB, pxReadyTasksLists...), so a
 *   FreeRTOS-aware debugger can read its task list. Stacks are filled with 0xA5.
 * - Variables to sample: counter (int32) and speed (float).
 * Comments of the form LINE:name mark lines the tests look up. */
#include <stdint.h>
#include <string.h>

/* ---- SEGGER RTT ---- */
typedef struct {
	const char *sName;
	char *pBuffer;
	unsigned SizeOfBuffer;
	unsigned WrOff;
	volatile unsigned RdOff;
	unsigned Flags;
} SEGGER_RTT_BUFFER_UP;

typedef struct {
	const char *sName;
	char *pBuffer;
	unsigned SizeOfBuffer;
	volatile unsigned WrOff;
	unsigned RdOff;
	unsigned Flags;
} SEGGER_RTT_BUFFER_DOWN;

typedef struct {
	char acID[16];
	int MaxNumUpBuffers;
	int MaxNumDownBuffers;
	SEGGER_RTT_BUFFER_UP aUp[2];
	SEGGER_RTT_BUFFER_DOWN aDown[1];
} SEGGER_RTT_CB;

SEGGER_RTT_CB _SEGGER_RTT;
static char up0[1024], up1[256], down0[64];

static void rtt_init(void)
{
	_SEGGER_RTT.MaxNumUpBuffers = 2;
	_SEGGER_RTT.MaxNumDownBuffers = 1;
	_SEGGER_RTT.aUp[0] = (SEGGER_RTT_BUFFER_UP){"Terminal", up0, sizeof up0, 0, 0, 0};
	_SEGGER_RTT.aUp[1] = (SEGGER_RTT_BUFFER_UP){"Plot", up1, sizeof up1, 0, 0, 0};
	_SEGGER_RTT.aDown[0] = (SEGGER_RTT_BUFFER_DOWN){"Terminal", down0, sizeof down0, 0, 0, 0};
	/* the ID goes last, assembled at run time so flash holds no copy of it */
	char id[11];
	id[0] = 'S'; id[1] = 'E'; id[2] = 'G'; id[3] = 'G'; id[4] = 'E'; id[5] = 'R';
	id[6] = ' '; id[7] = 'R'; id[8] = 'T'; id[9] = 'T'; id[10] = 0;
	memcpy(_SEGGER_RTT.acID, id, 11);
}

/* Writes what fits; returns the bytes written (no blocking, like SEGGER's default). */
static unsigned rtt_write(unsigned ch, const char *s, unsigned n)
{
	SEGGER_RTT_BUFFER_UP *b = &_SEGGER_RTT.aUp[ch];
	unsigned wr = b->WrOff, done = 0;
	while (done < n) {
		unsigned next = (wr + 1) % b->SizeOfBuffer;
		if (next == b->RdOff)
			break;
		b->pBuffer[wr] = s[done++];
		wr = next;
	}
	b->WrOff = wr;
	return done;
}

static void rtt_puts(unsigned ch, const char *s) { rtt_write(ch, s, strlen(s)); }

static unsigned rtt_read(char *dst, unsigned max)
{
	SEGGER_RTT_BUFFER_DOWN *b = &_SEGGER_RTT.aDown[0];
	unsigned rd = b->RdOff, n = 0;
	while (rd != b->WrOff && n < max) {
		dst[n++] = b->pBuffer[rd];
		rd = (rd + 1) % b->SizeOfBuffer;
	}
	b->RdOff = rd;
	return n;
}

static char *utoa10(uint32_t v, char *end)
{
	*--end = 0;
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* ---- FreeRTOS-shaped task structures (list.h, tasks.c of FreeRTOS 10/11) ---- */
#include "../freertos_list.h"

#define configMAX_PRIORITIES 4
#define configMAX_TASK_NAME_LEN 16
typedef struct tskTaskControlBlock {
	volatile StackType_t *pxTopOfStack;
	ListItem_t xStateListItem;
	ListItem_t xEventListItem;
	UBaseType_t uxPriority;
	StackType_t *pxStack;
	char pcTaskName[configMAX_TASK_NAME_LEN];
	StackType_t *pxEndOfStack; /* configRECORD_STACK_HIGH_ADDRESS == 1 */
	UBaseType_t uxCriticalNesting;
	UBaseType_t uxTCBNumber;
	UBaseType_t uxBasePriority;
} tskTCB;
typedef tskTCB TCB_t;

TCB_t *volatile pxCurrentTCB;
static List_t pxReadyTasksLists[configMAX_PRIORITIES];
static List_t xDelayedTaskList1, xDelayedTaskList2;
static List_t *volatile pxDelayedTaskList;
static List_t *volatile pxOverflowDelayedTaskList;
static List_t xPendingReadyList;
static List_t xSuspendedTaskList;
static List_t xTasksWaitingTermination;
static volatile UBaseType_t uxCurrentNumberOfTasks;

#define NTASKS 4
#define STACK_WORDS 64
static TCB_t tcbs[NTASKS];
static StackType_t stacks[NTASKS][STACK_WORDS];

static void task_create(int i, const char *name, UBaseType_t prio, unsigned used_words, List_t *list)
{
	TCB_t *t = &tcbs[i];
	memset(stacks[i], 0xA5, sizeof stacks[i]);
	for (unsigned w = 0; w < used_words; w++)
		stacks[i][STACK_WORDS - 1 - w] = 0x1000 + w; /* "used" stack, from the top */
	t->pxStack = stacks[i];
	t->pxEndOfStack = &stacks[i][STACK_WORDS - 1];
	t->pxTopOfStack = &stacks[i][STACK_WORDS - used_words];
	t->uxPriority = t->uxBasePriority = prio;
	t->uxTCBNumber = i;
	strncpy(t->pcTaskName, name, configMAX_TASK_NAME_LEN);
	t->xStateListItem.pvOwner = t;
	t->xEventListItem.pvOwner = t;
	list_insert_end(list, &t->xStateListItem);
	uxCurrentNumberOfTasks++;
}

static void scheduler_init(void)
{
	for (int p = 0; p < configMAX_PRIORITIES; p++)
		list_init(&pxReadyTasksLists[p]);
	list_init(&xDelayedTaskList1);
	list_init(&xDelayedTaskList2);
	list_init(&xPendingReadyList);
	list_init(&xSuspendedTaskList);
	list_init(&xTasksWaitingTermination);
	pxDelayedTaskList = &xDelayedTaskList1;
	pxOverflowDelayedTaskList = &xDelayedTaskList2;
	task_create(0, "IDLE", 0, 8, &pxReadyTasksLists[0]);
	task_create(1, "sensor", 2, 20, &pxReadyTasksLists[2]);
	task_create(2, "blinky", 1, 12, &xDelayedTaskList1);
	task_create(3, "console", 3, 40, &xSuspendedTaskList);
	pxCurrentTCB = &tcbs[0];
}

/* ---- the program ---- */
volatile int32_t counter;
volatile float speed = 1.5f;
volatile uint32_t spam;
volatile uint32_t rx_total;
volatile uint32_t slices;
volatile uint32_t hang;

void wait_forever(void)
{
	for (;;) {
	}
}

static void run_slice(void)
{
	/* round robin between the two ready tasks, like a tick would */
	slices++;
	pxCurrentTCB = (slices & 1) ? &tcbs[1] : &tcbs[0]; /* LINE:switch */
}

int add3(int x)
{
	int y = x + 3; /* LINE:add3 */
	return y;
}

int main(void)
{
	char buf[48];
	rtt_init();
	scheduler_init();
	rtt_puts(0, "hello from rtt\n");
	for (;;) {
		counter = add3(counter) - 2; /* LINE:main_loop */
		speed = speed + 0.25f;
		if (speed > 100.0f)
			speed = 1.5f;
		if ((counter & 0x3fff) == 0) {
			run_slice();
			char *s = utoa10((uint32_t)(counter >> 14) & 0xff, buf + sizeof buf - 1);
			buf[sizeof buf - 2] = '\n';
			*--s = ':';
			*--s = 'e';
			*--s = 'v';
			*--s = 'a';
			*--s = 'w';
			*--s = '>';
			rtt_write(1, s, (unsigned)(buf + sizeof buf - 1 - s));
		}
		unsigned n = rtt_read(buf + 6, 32);
		if (n) {
			rx_total += n;
			memcpy(buf, "echo: ", 6);
			rtt_write(0, buf, n + 6);
			rtt_puts(0, "\n");
		}
		if (hang)
			wait_forever(); /* LINE:hang */
		if (spam)
			rtt_puts(0, "spam spam spam spam spam spam spam spam\n");
	}
}

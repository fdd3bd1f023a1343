/* FreeRTOS's list structures (list.h of FreeRTOS 10/11; with -DOLD_NAMES FreeRTOS 9's
 * pvContainer) and the two list operations the test kernels need, for every test
 * firmware or program that lays out tasks as the kernel does (rtt/fw.c, and
 * backend/mcu/rtos/testdata/kernel.c). */
#include <stdint.h>

typedef uint32_t TickType_t;
typedef unsigned long UBaseType_t;
typedef uint32_t StackType_t;
struct xLIST;
struct xLIST_ITEM {
	TickType_t xItemValue;
	struct xLIST_ITEM *pxNext;
	struct xLIST_ITEM *pxPrevious;
	void *pvOwner;
#ifdef OLD_NAMES
	void *pvContainer;
#else
	struct xLIST *pxContainer;
#endif
};
typedef struct xLIST_ITEM ListItem_t;
struct xMINI_LIST_ITEM {
	TickType_t xItemValue;
	struct xLIST_ITEM *pxNext;
	struct xLIST_ITEM *pxPrevious;
};
typedef struct xMINI_LIST_ITEM MiniListItem_t;
typedef struct xLIST {
	volatile UBaseType_t uxNumberOfItems;
	ListItem_t *pxIndex;
	MiniListItem_t xListEnd;
} List_t;

static void list_init(List_t *l)
{
	l->uxNumberOfItems = 0;
	l->pxIndex = (ListItem_t *)&l->xListEnd;
	l->xListEnd.xItemValue = 0xffffffff;
	l->xListEnd.pxNext = (ListItem_t *)&l->xListEnd;
	l->xListEnd.pxPrevious = (ListItem_t *)&l->xListEnd;
}

static void list_insert_end(List_t *l, ListItem_t *it)
{
	ListItem_t *idx = l->pxIndex;
	it->pxNext = idx;
	it->pxPrevious = idx->pxPrevious;
	idx->pxPrevious->pxNext = it;
	idx->pxPrevious = it;
#ifdef OLD_NAMES
	it->pvContainer = l;
#else
	it->pxContainer = l;
#endif
	l->uxNumberOfItems++;
}

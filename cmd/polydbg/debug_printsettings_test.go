package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// pointersProg has pointers to data, to functions and to strings, a union in a struct,
// and a recursion to see frames by.
const pointersProg = `#include <stdlib.h>
struct msg { int len; union { long l; double d; } v; const char *tag; };
static int grid[3][4];
static const char *names[] = {"alpha", "beta", NULL};
static int add(int a, int b) { return a + b; }
static int mul(int a, int b) { return a * b; }
static int (*ops[2])(int, int) = {add, mul};
static int depth(int n, struct msg *m) {
	if (n == 0)
		return m->len;
	return depth(n - 1, m) + 1;
}
int main(int argc, char **argv) {
	struct msg m = {3, {.d = 2.5}, "hello"};
	struct msg *mp = &m;
	void *vp = &m;
	int *ip = &grid[1][1];
	return depth(2, mp) + (vp != 0) + *ip + ops[0](1, 2);
}
`

// print address off leaves addresses out as gdb's does (pointers: the string or symbol
// alone, nothing for a null one, the type still before; functions; frames' pcs in a
// backtrace), and x, info symbol and info line still find them; print symbol off leaves a
// data pointer's symbol out; print union off shows a union in a struct as {...}. *24 reads
// the int at 0x18, a void * is not followed (Attempt to dereference a generic pointer.)
// and moves by bytes. Against gdb.
func TestPrintAddressSettingsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "pointers", pointersProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break 10", "run", "set print address off",
		"p names", "p names[0]", "p ops", "p ops[0]", "p add", "p &grid[1]", "p *m", "p m->tag", "p *names@2", "p $",
		"p *$$2", "bt", "up", "info frame", "x/2dw &grid", "info symbol add", "info symbol &grid[1]", "info line add",
		"show print address", "set print address on", "set print symbol off", "p &grid[1]", "p ops", "p names",
		"show print symbol", "set print symbol on", "set print union off", "p *m", "show print union",
		"set print union on", "p *m", "up 2", "p *vp", "p vp[1]", "p vp + 1 == (char *)vp + 1", "p sizeof(*vp)",
		"whatis *vp", "p sizeof(void)", "p *24", "p *0", "whatis *24", "p 1 +* 2", "p *m.v.d", "p *(long)ip"))
	compareLines(t, "print address, symbol and union settings", dir, ours, theirs)
}

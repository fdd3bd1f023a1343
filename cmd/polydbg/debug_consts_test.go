package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// constProg, built with -O2, has values the compiler knew (DW_AT_const_value): main's
// const int k and const double half, and scale's f, inlined with the constant 3.
const constProg = `#include <stdio.h>
__attribute__((noinline)) static int use(int v) { asm volatile("" ::: "memory"); return v + 1; }
static inline int scale(int x, int f, const char *tag) {
	int r = use(x) * f;
	if (tag[0] == 'z')
		puts(tag);
	return r;
}
int main(int argc, char **argv) {
	const int k = 42;
	const double half = 0.5;
	int r = scale(argc, 3, "sc");
	r += use(k);
	printf("%d %g\n", r, half * r);
	return 0;
}
`

// A variable or parameter whose value the compiler knew has it (DW_AT_const_value, read
// as gdb reads it), where it showed <optimized out>: an optimised program's const locals
// (p k, p half, info address: "Symbol "k" is constant."), and an inlined copy's parameter
// given a constant: libc's __pthread_cond_wait_common (abstime=0x0, clockid=0, ...) in a
// thread waiting on a condition variable, with libc's debug information. Against gdb.
func TestConstantValuesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	dir, exe := buildNativeWith(t, "consts", constProg, "-O2")
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break use", "run", "bt", "up",
		"info args", "p f", "p tag", "info address f", "up", "p k", "p half", "p k * 2", "p half * 4",
		"info address k", "info address half", "whatis k", "whatis half", "info locals"))
	compareLines(t, "constants", dir, ours, theirs)

	realparts.NeedLibcDebugFile(t)
	dir, exe = buildNativeWith(t, "condwait", condWaitProg, "-pthread")
	ours, theirs = batchAndGDBWith(t, bin, exe, nil, exCommands("break 19", "run", "thread 2", "bt", "frame 3",
		"info address abstime", "p clockid", "kill"))
	compareLines(t, "a condition wait's frames", dir, ours, theirs)
}

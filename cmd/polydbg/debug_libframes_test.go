package main

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// raiseProg stops itself with a SIGINT raised inside the C library: the stop and the
// frames above it are libc's, which has no frame pointer to walk.
const raiseProg = `#include <signal.h>
#include <stdio.h>
void interrupt_me(int n) { raise(SIGINT); printf("after %d\n", n); }
int main(void) {
	interrupt_me(1);
	return 0;
}
`

// A stop inside the C library, against gdb: a SIGINT in gdb's words (as Ctrl-C's), the
// frames of libc by their symbols (an address's several names as gdb picks one: raise,
// not its alias gsignal) and its path, unwound through libc's own frame information to the
// program's frames (polydbg used to walk the frame pointer past raise and interrupt_me),
// info frame of a libc frame (its saved registers from libc's frame information, gdb's
// frame base for code without debug information), finish out of it, and up. gdb is told
// not to read libc's separate debug information, which polydbg does not read either.
func TestLibraryFramesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "raise", raiseProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe,
		[]string{"-iex", "set debug-file-directory /nonexistent", "-iex", "set debuginfod enabled off"},
		[]string{"-ex", "run", "-ex", "bt", "-ex", "info frame", "-ex", "finish", "-ex", "up", "-ex", "info frame", "-ex", "continue"})
	if !strings.Contains(string(ours), "\nProgram received signal SIGINT, Interrupt.\n0x") ||
		!strings.Contains(string(ours), " in raise () from /") {
		t.Errorf("the stop in libc is not told as gdb tells it:\n%s", ours)
	}
	compareLines(t, "libc frames", dir, ours, theirs)
}

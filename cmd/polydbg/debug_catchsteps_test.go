package main

import (
	"bytes"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// writeProg writes with write(2) from main (whose result it drops: the call ends line 5)
// and from say, called twice.
const writeProg = `#include <unistd.h>
static int say(const char *s, int n) { write(1, s, n); return n; }
int main(void) {
	int n = 4;
	write(1, "hi\n", 3);
	n++;
	n += say("ho\n", 3);
	n += say("hu\n", 3);
	return n;
}
`

// A catchpoint stops the steps that run the program over a call (next, step over a
// function without lines, finish, until), as it stops continue, as gdb's do: catch syscall
// write in a next over write() ("Catchpoint 1 (call to syscall write)") and in a finish (its
// return too), catch fork in a next over fork(), catch load in a next over dlopen; and a
// next from a function without line information ends as gdb's "step until exit" ends: at
// the caller's next line when the call ended its line, else in the code without lines it
// returned to (fork's, the dynamic linker's). Before, the steps ran past every catchpoint,
// and a next from write ran on to the line after the next one. Against gdb.
func TestCatchpointsInStepsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "writes", writeProg)
	_, forker := buildNative(t, "forker", realparts.ForkProg)
	_, host, _, _ := realparts.BuildPlugin(t)
	for _, c := range []struct {
		name, exe string
		cmds      []string
	}{
		{"syscall in next", exe, []string{"catch syscall write", "break main", "run", "next", "next", "bt 2", "next",
			"next", "info breakpoints"}},
		{"next from write", exe, []string{"break main", "run", "break write", "next", "next", "next"}},
		{"syscall in finish and until", exe, []string{"break say", "run", "catch syscall write", "finish", "bt 2",
			"finish", "finish", "until 9", "info breakpoints"}},
		{"fork in next", forker, []string{"catch fork", "break 12", "run", "next", "bt 1", "next", "info breakpoints"}},
		{"load in next", host, []string{"break main", "run", "catch load", "catch unload", "next", "bt 2", "next",
			"next", "info breakpoints"}},
	} {
		ours, theirs := batchAndGDBWith(t, bin, c.exe, noLibcDebugInfo, exCommands(c.cmds...))
		// (the forked child's line comes when it runs: not in order with the debugger's)
		ours, theirs = bytes.ReplaceAll(ours, []byte("child 10\n"), nil), bytes.ReplaceAll(theirs, []byte("child 10\n"), nil)
		compareLines(t, c.name, dir, ours, theirs)
	}
}

package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A function print calls that reaches a breakpoint leaves the program stopped there, as
// gdb does: the breakpoint's stop, gdb's "The program being debugged stopped while in a
// function called from GDB." and the function named; bt with "<function called from gdb>"
// between the called function's frames and the program's (at gdb's addresses); finish out
// of the called function says its value; finish from the dummy frame, continue and next
// out of it stop silently where the program was; calls within calls, each its own dummy
// frame; kill and run again. Once the program has ended, print reads the program's file
// again, as gdb's. Against gdb.
func TestCallStopsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "callstop", realparts.CallStopProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands(
		"break 13", "run", "break twice", "p outer(10)", "bt", "info frame", "finish", "bt", "finish", "bt",
		"p t", "p depth", "p outer(1)", "continue", "bt", "p twice(5)", "next", "next", "next", "next", "bt",
		"p outer(10)", "p twice(7)", "bt", "up 2", "frame 4", "finish", "bt", "continue", "bt", "p depth",
		"info breakpoints", "p outer(2)", "kill", "run", "bt", "delete", "continue", "p depth", "p 1", "p t",
		"info breakpoints"))
	compareLines(t, "calls that stop", dir, ours, theirs)
}

// A called function that receives a signal stays where the signal came, as gdb's default
// (unwindonsignal off): the signal's stop, gdb's words, the dummy frame in bt, the
// caller's frame beyond it; the signal is the program's on continue. With set unwindonsignal
// on, the call is abandoned after the signal's stop is told, the program back where it was.
func TestCallSignaledAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "callsig", `#include <stdio.h>
int *nothing;
int crash(int v) {
	int r = v + 1;
	r += *nothing;
	return r;
}
int main(void) {
	int t = 3;
	printf("%d\n", t);
	return 0;
}
`)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands(
		"break 10", "run", "p crash(2)", "bt", "up", "p t", "up", "p t", "frame 0", "p r", "continue", "bt", "info breakpoints"))
	compareLines(t, "a call signaled", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands(
		"break 10", "run", "set unwindonsignal on", "show unwindonsignal", "p crash(2)", "bt", "next",
		"set unwindonsignal off", "show unwindonsignal", "p crash(3)", "bt"))
	compareLines(t, "set unwindonsignal", dir, ours, theirs)
}

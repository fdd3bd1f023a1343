package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// stepOutProg returns from functions into the middle of their callers' lines: a float's
// result stored after the call, a call's result passed to another call.
const stepOutProg = `static float scale(float v, int n) {
	float s = v * n;
	return s / 2;
}
static int half(int x) { return x / 2; }
static int twice(int x) {
	return x * 2;
}
static int both(int x) {
	return twice(half(x));
}
int main(void) {
	float avg = scale(3.0f, 4);
	int b = both(10);
	int c = twice(half(b)) + 1;
	return (int)avg + b + c;
}
`

// A next or step that returns into the middle of the caller's line goes on to that line's
// end, as gdb's: a function leaving its result in a register to be stored (scale, a leaf
// without leave) stops at the next line, not at the return address; a step out of half
// goes into twice, called on the same line. Against gdb.
func TestStepOutIntoMidLineAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "stepout", stepOutProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break scale", "run", "next", "next", "next",
		"step", "step", "step", "step", "step", "step", "step", "step", "step", "step", "bt", "p b", "until", "p c"))
	compareLines(t, "steps out into the middle of a line", dir, ours, theirs)
}

// jumpProg has two leaf functions alike, to jump from one into the other.
const jumpProg = `static int hits;
static void mark(void) { hits++; }
static void other(void) {
	hits += 10;
}
int main(void) {
	mark();
	mark();
	other();
	return hits;
}
`

// jump to a line of another function asks first, as gdb's does (Line 4 is not in `mark'.
// Jump anyway?), and jumps there when answered yes. Against gdb.
func TestJumpIntoAnotherFunctionAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "jump", jumpProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break mark", "run", "jump 4", "p hits",
		"info breakpoints"))
	compareLines(t, "jump into another function", dir, ours, theirs)
}

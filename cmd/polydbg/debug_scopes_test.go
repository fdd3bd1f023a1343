package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// scopesProg has a function with a static local, a recursion to pick frames from, and
// locals of main to reach from deeper frames.
const scopesProg = `#include <stdio.h>
static int grid[3][4];
static double ratios[5] = {0.5, 1.25, -3.0, 1e10, 1.0/3};
static int fact(int n) {
	static int calls;
	calls++;
	if (n <= 1)
		return 1;
	return n * fact(n - 1);
}
static int twice(int v) { int w = v * 2; return w; }
int main(void) {
	int f = 0;
	for (int i = 0; i < 3; i++)
		grid[i][1] = i;
	f = fact(5);
	printf("%d %d\n", f, twice(f));
	return 0;
}
`

// gdb's scope operators: FUNCTION::NAME reads a function's static local before the run,
// and its other locals in the innermost frame running it from the selected frame out
// (fact::n after up is the caller's n), No frame selected. / No frame is currently
// executing in block twice. otherwise; 'FILE'::NAME a file's variable; set var writes
// through either; info scope says where a static local lives in its own words. Against
// gdb.
func TestScopeOperatorsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "scopes", scopesProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("p fact::calls", "p fact::n", "p fact::nosuch",
		"p nofunc::x", "p 'scopes.c'::ratios", "p 'nosuch.c'::x", "p 'scopes.c'::nosuch", "whatis 'scopes.c'::ratios",
		"p sizeof('scopes.c'::ratios)", "p 'scopes.c'::fact", "p 'scopes.c'::ratios[1] * 2", "info scope fact",
		"break fact if n == 3", "run", "p fact::calls", "p &fact::calls", "p fact::n", "p main::f", "p main::i",
		"whatis fact::calls", "p twice::w", "p sizeof(fact::calls)", "p fact::calls + 1", "set var fact::calls = 9",
		"p fact::calls", "p 'scopes.c'::grid[2]", "set var 'scopes.c'::grid[2][0] = 7", "p grid[2]", "info scope fact",
		"up", "p fact::n", "up 2", "p fact::n", "p main::f + fact::n", "down", "p fact::n"))
	compareLines(t, "scope operators", dir, ours, theirs)
}

// A display of a function's locals is shown in that function's frames only, as gdb binds
// it to their block (a loop's variable not after the loop), and info display notes it
// cannot be evaluated elsewhere; a static local's is shown from any frame, as its symbol
// is bound, not its name; display alone in a frame selected with up shows the values
// there. Against gdb.
func TestDisplayScopesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "scopes", scopesProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("tbreak 15", "run", "display i", "display nosuch", "display f",
		"display/x grid[2][1]", "next", "break fact", "continue", "display n", "display calls", "display calls + n",
		"display fact::calls * 2", "continue", "up", "display", "down", "display", "info display", "delete",
		"finish", "finish", "info display", "next", "next", "undisplay 4", "next", "info display"))
	compareLines(t, "display scopes", dir, ours, theirs)
}

// twoFilesA and twoFilesB each have a static variable and a static function named alike.
const twoFilesA = `#include <stdio.h>
static int counter = 1;
static int helper(int x) { return x + counter; }
int shared_total;
int run_b(int);
int main(void) {
	int v = helper(2);
	shared_total = run_b(v);
	printf("%d\n", shared_total);
	return 0;
}
`

const twoFilesB = `static int counter = 100;
static int helper(int x) { return x * counter; }
extern int shared_total;
int run_b(int v) {
	int r = helper(v);
	return r + shared_total;
}
`

// Two files with statics of one name: break FILE:FUNCTION binds in that file alone, a
// name reads the frame's file's own first (counter is b.c's in b.c, a.c's after up, a call
// of helper calls the file's own), 'FILE'::NAME picks either. Against gdb.
func TestStaticsOfTwoFilesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc", "gdbserver")
	dir := t.TempDir()
	for name, src := range map[string]string{"a.c": twoFilesA, "b.c": twoFilesB} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "twofiles")
	cmd := exec.Command("gcc", "-g", "-O0", "-o", exe, "a.c", "b.c")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break b.c:helper", "break a.c:helper",
		"info breakpoints", "run", "bt", "p counter", "p 'a.c'::counter", "p 'b.c'::counter", "p helper",
		"p 'a.c'::helper", "p 'b.c'::helper", "list a.c:helper", "list b.c:helper", "list helper",
		"info line helper", "info line b.c:helper", "up", "p counter", "p helper",
		"p helper(1)", "info source", "continue", "p counter", "info breakpoints"))
	compareLines(t, "statics of two files", dir, ours, theirs)
}

// A condition naming what is nowhere in the breakpoint's scope is refused when it is set,
// as gdb refuses it (No symbol "nosuch" in current context.): the breakpoint is not made,
// or keeps its condition; names of the scope's blocks, static locals, enumerators and
// scoped names are accepted. Against gdb.
func TestConditionNamesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "scopes", scopesProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break fact if nosuch > 1", "break fact if n > 1",
		"condition 1 nosuch == 2", "condition 1 calls + n > 3", "condition 1 fact::calls > 3", "break twice if w > 1",
		"break twice if ww > 1", "break 15 if i == 1", "break 15 if j == 1", "break fact if twice::w", "info breakpoints",
		"run", "p n", "info breakpoints"))
	compareLines(t, "condition names", dir, ours, theirs)
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// noDebugDataProg is built without -g: its variables are known by their symbols alone.
const noDebugDataProg = `#include <stdio.h>
int counter = 5;
int table[4] = {10, 20, 30, 40};
const char *greeting = "hi";
__attribute__((noinline)) int work(int n) { counter += n; return counter; }
int main(void) {
	printf("%d %s\n", work(table[1]), greeting);
	return 0;
}
`

// A variable without debug information, as gdb has one: it has no type ('counter' has
// unknown type; cast it to its declared type) until a cast says it, which reads it
// ((int)counter, (char *)greeting); its address is (<data variable, no debug info> *), read
// with x and through a typed pointer, written with set var *(int *)&counter = 7 (and a
// cast or a number is not a place to assign to, in gdb's words); *&counter is an object
// of no type, printed as its type's name, which arithmetic refuses and a cast reads.
// Against gdb.
func TestDataSymbolsWithoutDebugInfoAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNativeWith(t, "nodebug", noDebugDataProg, "-g0") // (after buildNativeWith's -g)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("break work", "run",
		"p counter", "p &counter", "p (int)counter", "p/x (int)counter", "p (char)counter", "p (long)counter == 5",
		"x/4wx &table", "p *(int *)&table", "p ((int *)&table)[2]", "p (char *)greeting", "output (int)counter",
		"whatis counter", "ptype counter", "whatis (int)counter", "ptype &counter", "whatis &counter",
		"p sizeof(counter)", "p counter + 1", "p -counter", "p counter[0]", "p &counter + 1",
		"set var (int)counter = 2", "set var 3 = 4", "p counter = 1",
		"set var *(int *)&counter = 7", "p (int)counter", "p *(int *)&counter = 9", "p (int)counter",
		"info symbol &counter", "p *&counter", "whatis *&counter", "ptype *&counter", "p *&counter + 1",
		"p (int)*&counter", "output *&counter", "p sizeof(*&counter)", "p &*&counter", "set var *&counter = 3", "p $",
		"finish"))
	compareLines(t, "variables without debug information", dir, ours, theirs)

	// The rest of a session on such a program: displays, strings read through a cast (a
	// char array's bytes read as a pointer: gdb's <error: Cannot access memory ...>, its
	// string functions' Python error), info line of a function without lines, a struct the
	// program has no type for, and the same before the program runs.
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("info line work",
		"p (int)counter", "break work", "run", "display (int)counter", "display/x (int)counter", "info display",
		"p (char *)greeting", "p (char *)table", "x/s *(char **)&greeting", "output (int)counter",
		"printf \"%d\\n\", (int)counter", "p $_strlen(*(char **)&greeting)", "p $_strlen((char *)table)",
		"p $_memeq((char *)table, (char *)16, 2)", "p (int)counter + (int)counter", "ptype (int)counter",
		"info line work", "p *(struct item *)&table", "whatis (struct item *)0", "p (char *)16", "undisplay 1",
		"finish", "continue"))
	compareLines(t, "a program without debug information", dir, ours, theirs)
}

// externLib, built without -g, defines what externMain, built with -g, declares extern.
const (
	externLib = `int lib_counter = 41;
struct cfg { int a; char name[8]; } lib_cfg = {3, "conf"};
int bump(void) { return ++lib_counter; }
`
	externMain = `#include <stdio.h>
extern int lib_counter;
struct cfg { int a; char name[8]; };
extern struct cfg lib_cfg;
int bump(void);
int main(void) {
	int r = bump();
	printf("%d %d %s\n", r, lib_counter, lib_cfg.name);
	return 0;
}
`
)

// A variable a library without debug information defines, which the program declares
// extern, has the declared type, as gdb reads it: printed, its members, its address typed,
// set, described by info address as static storage. Against gdb.
func TestExternVariablesOfALibraryAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, lib := writeSource(t, "ext.c", externLib)
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(externMain), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "main")
	for _, args := range [][]string{
		{"-shared", "-fPIC", "-O0", "-o", filepath.Join(dir, "libext.so"), lib},
		{"-g", "-O0", "-o", exe, filepath.Join(dir, "main.c"), "-L" + dir, "-lext", "-Wl,-rpath," + dir},
	} {
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
	}
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("break 8", "run",
		"p lib_counter", "p lib_cfg", "p &lib_counter", "whatis lib_cfg", "p lib_cfg.name", "p sizeof(lib_cfg)",
		"p lib_counter * 2", "set var lib_counter = 5", "p lib_counter", "set var lib_cfg.a = 9", "p lib_cfg",
		"info address lib_counter", "info address bump", "ptype lib_cfg", "continue"))
	compareLines(t, "extern variables of a library", dir, ours, theirs)
}

package main

// Functions known only by their symbols (a C library's), as gdb names and calls them.

import "testing"

// libcProg calls into libc, whose functions polydbg knows by their symbols alone.
const libcProg = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void) {
  const char *s = "hello";
  printf("%zu %d\n", strlen(s), abs(-2));
  return 0;
}
`

// A library function without debug information is gdb's {<text variable, no debug info>}
// 0x... <puts>; a call of it needs a cast to say its return type (gdb's words without
// one), (void) throws the result away; a string literal argument is put in the program's
// memory; glibc's strlen, a GNU indirect function, runs the implementation its resolver
// picks; whatis, ptype and & of one as gdb's.
func TestCallLibraryFunctionsAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "libc", libcProg)
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break 6", "run", "p puts", "p abs(-3)",
		"p (int)abs(-3)", "p (int)abs(-7) * 2", "p (unsigned long)strlen(s)", "p (unsigned long)strlen(\"abcd\")",
		"p (int)puts(\"hi\")", "call (void)abs(1)", "whatis puts", "ptype puts", "p &puts", "p strlen", "p (int)atoi(\"42\") + 1"))
	compareLines(t, "calls of library functions", dir, ours, theirs)
}

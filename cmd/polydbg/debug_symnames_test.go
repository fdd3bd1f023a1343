package main

import (
	"debug/elf"
	"fmt"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// dottedSymsProg has a function's static variable (the symbol count.0) and functions whose
// symbols have dots, as GCC names its clones and cold parts.
const dottedSymsProg = `int *get(void) { static int count; count++; return &count; }
__asm__(".text\n.type x.part.0,@function\nx.part.0: ret\n.type y.cold,@function\ny.cold: ret\n"
	".type z.isra.3,@function\nz.isra.3: ret\n.type w.lto_priv.0,@function\nw.lto_priv.0: ret\n");
int main(void) { return *get(); }
`

// cloneProg, built with -O2, has GCC's clone weigh.constprop.0 of weigh.
const cloneProg = `#include <stdio.h>
struct item { int id; double w; };
static struct item items[4];
__attribute__((noinline)) static double weigh(const struct item *it, int n) {
	double s = 0;
	for (int i = 0; i < n; i++)
		s += it[i].w * (i + 1);
	return s;
}
int main(int argc, char **argv) {
	for (int i = 0; i < 4; i++)
		items[i].w = i + argc;
	printf("%.1f\n", weigh(items, 4));
	return 0;
}
`

// globalPtrProg has a global pointer to a global, relocated when the program loads.
const globalPtrProg = `int glob = 3;
int *gp = &glob;
int main(void) { return *gp; }
`

// An address is named as gdb names it where the symbol's name has dots the compiler
// added: a function's static variable count.0 is <count>, a clone x.part.0 is x.part, a
// cold part y.cold is y[cold] (info symbol, a pointer's <...>), while x/i keeps count.0 as
// gdb's disassembly does; an address at the start of a function GCC cloned is named by the
// function (<weigh>, <weigh+11> in info line and x/i). Before a position-independent
// program runs, an address is the file's (gdb's then): a pointer the file holds (gp is
// 0x4010 <glob>), a code address and info symbol of one are named. Against gdb.
func TestSymbolNamesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "dotted", dottedSymsProg)
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	f.Close()
	cmds := []string{"break get", "run", "x/3i $pc+16", "finish", "p &count", "info symbol &count"}
	for _, s := range syms {
		switch s.Name {
		case "x.part.0", "y.cold", "z.isra.3", "w.lto_priv.0":
			addr := 0x555555554000 + s.Value // (the program's place, as both run it)
			cmds = append(cmds, fmt.Sprintf("info symbol %#x", addr), fmt.Sprintf("p (void *) %#x", addr))
		}
	}
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands(cmds...))
	compareLines(t, "dotted symbols", dir, ours, theirs)

	dir, exe = buildNativeWith(t, "clones", cloneProg, "-O2")
	ours, theirs = batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break weigh", "run", "info line weigh",
		"x/3i $pc", "p $pc", "p weigh", "info symbol $pc", "info symbol weigh", "info symbol (char *)weigh + 3"))
	compareLines(t, "a clone", dir, ours, theirs)

	dir, exe = buildNative(t, "globalptr", globalPtrProg)
	ours, theirs = batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("p &glob", "p gp", "p *gp",
		"p (void *)((char *)&main + 4)", "info symbol (char *)&main + 4", "info symbol gp", "x/2i main"))
	compareLines(t, "before run", dir, ours, theirs)
}

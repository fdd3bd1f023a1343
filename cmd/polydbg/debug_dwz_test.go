package main

import (
	"os"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// dwzCommands ask what dwz moved into the common file: the shared types (of arguments,
// locals, globals, a library's static), type names, and the functions' lines.
var dwzCommands = exCommands("break area", "break perimeter", "run", "bt", "p *s", "ptype s", "info locals",
	"up", "p local", "p sq", "p tint", "whatis sq", "ptype struct point", "ptype shape_t", "p sizeof(struct shape)",
	"continue", "bt", "info locals", "p last", "p s->corners[1]", "ptype enum colour", "whatis s->corners",
	"info line perimeter", "info address sum", "finish", "info functions ^(area|perimeter)$", "info types colour",
	"info variables ^(sq|tint|last)$")

// A program and its library whose separate debug files dwz compressed (the types they share
// in a common file, named by .gnu_debugaltlink) read as gdb reads them, for the ways
// distributions install them: Debian's (the common file's installed name, found by its
// build id under the debug folder) and Fedora's (a name relative to the debug file). DWARF
// 5's .debug_sup, which gdb 13 cannot read, against gdb reading the files before dwz. Each
// fails when the common file is not read (types unnamed, arguments missing).
func TestDWZDebugFilesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	for _, c := range []struct {
		name    string
		dwzArgs []string
		oracle  func(realparts.DWZ) string // the debug folder gdb reads
	}{
		{"debian", []string{"-M", "/usr/lib/debug/.dwz/x86_64-linux-gnu/polydbg-shapes.debug"}, func(d realparts.DWZ) string { return d.DebugDir }},
		{"relative", []string{"-r"}, func(d realparts.DWZ) string { return d.DebugDir }},
		{"dwarf5", []string{"-5", "-r"}, func(d realparts.DWZ) string { return d.PlainDir }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := realparts.BuildDWZ(t, c.dwzArgs...)
			ours := runBatch(t, bin, d.Exe, []string{"-iex", "set debug-file-directory " + d.DebugDir}, dwzCommands)
			theirs := runGDB(t, d.Exe, []string{"-iex", "set debug-file-directory " + c.oracle(d)}, dwzCommands)
			compareLines(t, c.name, d.Dir, ours, theirs)
		})
	}
}

// Without its common file a dwz-compressed program's DWARF is not read, as gdb does, saying
// so: its functions are named by its symbol table, its data has no type.
func TestDWZCommonFileMissingAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	d := realparts.BuildDWZ(t, "-r")
	if err := os.Remove(d.Common); err != nil {
		t.Fatal(err)
	}
	settings := []string{"-iex", "set debug-file-directory " + d.DebugDir}
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), d.Exe, settings, exCommands("break area", "run", "bt", "p (int)tint", "kill"))
	compareLines(t, "missing common file", d.Dir, ours, theirs)
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// Source files that are not where the program says, as gdb's: the missing file said once
// and then "in FILE"; directory and set substitute-path finding it (list, the stop's line,
// info source's "Located in"); show directories and show substitute-path; the rules and
// directories unset; bad arguments in gdb's words.
func TestSourcePathAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "moved", downProg)
	moved := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "moved.c"), filepath.Join(moved, "moved.c")); err != nil {
		t.Fatal(err)
	}
	cmds := exCommands("list down", "break down", "run", "list 1,3", "frame", "next", "directory "+moved, "list 1,3",
		"show directories", "frame", "info source", "directory", "show directories", "set substitute-path "+dir+" "+moved,
		"show substitute-path", "set substitute-path /a /b", "show substitute-path", "unset substitute-path /a",
		"unset substitute-path /zz", "frame", "info source", "unset substitute-path", "show substitute-path",
		"set substitute-path /a", "directory /nonexistent/x", "show directories")
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "source path", dir, ours, theirs)
}

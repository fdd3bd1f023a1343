package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A program's own shared library built with -g is debugged as the program is, as gdb does
// it: a breakpoint on its function or on a line of its source (once it is loaded; before,
// gdb's "No source file named foo.c."), its frames with arguments and lines, its locals,
// static and global variables and types, step into it through the PLT and within it,
// finish with the returned value, a call of its static function, watch its global,
// conditions, info line/scope/symbol/frame, x/i of its code, info functions, variables
// and types listing its declarations. Against gdb.
func TestSharedLibraryAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gdbserver")
	dir, exe, _ := realparts.BuildWithLibrary(t)
	watchCounter := exCommands("watch counter", "continue", "continue")
	if !realparts.HardwareWatchpointsWork() { // (gdb's would not stop either)
		watchCounter = nil
	}
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, slices.Concat(exCommands(
		"break foo.c:12", "break main", "run",
		"info functions foo_", "info variables counter", "info types acc", "info scope foo_add",
		"list foo.c:5", "info line foo.c:12", "info line foo_add", "p twice(21)", "break foo.c:twice",
		"ptype foo_add", "whatis twice", "p foo_add", "p &counter", "ptype struct acc",
		"info address twice", "info symbol foo_add",
		"break main.c:8", "continue", "step", "bt", "info frame", "info locals", "p *a", "p scale", "p counter",
		"step", "bt", "step", "up", "info locals", "down", "finish",
		"next", "next", "x/2i $pc", "p $pc", "delete", "break foo_add", "info breakpoints",
		"continue", "p v"), watchCounter, exCommands("delete",
		"break foo.c:11 if v == 2", "continue", "p v", "set var a->total = 5", "p *a", "p scale * 2",
		"tbreak foo.c:7", "continue", "info args", "info source", "list main.c:3", "break 9", "up", "break 11",
		"info breakpoints")))
	compareLines(t, "shared library", dir, ours, theirs)
}

// A plugin loaded with dlopen, as gdb debugs it once loaded: its function's breakpoint
// (before, gdb's "Function \"plug_run\" not defined."), its frame called through a
// pointer, a step into it, finish, info symbol; the run to the end through its dlclose.
// catch load REGEX and catch unload stop at the dynamic linker's event ("Catchpoint 1",
// "  Inferior loaded /tmp/.../libplug.so"), listed, counted and deleted as gdb's; set
// stop-on-solib-events 1 stops at every event, caught or not.
func TestDlopenAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gdbserver")
	dir, host, _, _ := realparts.BuildPlugin(t)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), host, noLibcDebugInfo, exCommands(
		"break plug_run", "break main", "run", "next", "break plug_run", "info breakpoints", "continue", "bt", "p calls",
		"info symbol plug_run", "finish", "next", "step", "bt", "next", "next", "next", "info locals", "delete",
		"next", "next", "next", "continue"))
	compareLines(t, "dlopen", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), host, noLibcDebugInfo, exCommands(
		"catch load plug", "catch unload", "break main", "run", "info breakpoints", "set stop-on-solib-events 1",
		"show stop-on-solib-events", "continue", "continue", "set stop-on-solib-events 0", "continue", "bt 1",
		"info breakpoints", "delete 2", "continue"))
	compareLines(t, "catch load", dir, ours, theirs)
	// set before the run: the C library's load at the start is caught too, as gdb's
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), host, noLibcDebugInfo, exCommands(
		"catch load", "catch unload plug", "info breakpoints", "run", "bt 1", "continue", "info breakpoints",
		"continue", "continue"))
	compareLines(t, "catch load from the start", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), host, noLibcDebugInfo, exCommands(
		"set stop-on-solib-events 1", "run", "continue", "continue", "continue", "continue", "info breakpoints"))
	compareLines(t, "stop-on-solib-events from the start", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), host, noLibcDebugInfo, exCommands(
		"catch load plug", "break main", "run", "continue", "bt 1", "continue"))
	compareLines(t, "catch load REGEX from the start", dir, ours, theirs)
}

// Bad arguments to the library catchpoints and settings are answered with gdb's words, and
// nothing is set: a regular expression that does not parse, a count that is no number,
// an on/off setting given neither.
func TestLibraryCatchBadInput(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, host, _, _ := realparts.BuildPlugin(t)
	out, _ := exec.Command(polydbgBinary(t), "debug", "-batch", "-ex", `catch load \(`, "-ex", "catch unload [",
		"-ex", "set stop-on-solib-events x", "-ex", "set unwindonsignal maybe", "-ex", "show unwindonsignal",
		"-ex", "show stop-on-solib-events", "-ex", "info breakpoints", host).CombinedOutput()
	for _, want := range []string{"Invalid regexp: ", "Invalid regexp: Unmatched [ or [^\n", `Invalid number "x".`,
		`"on" or "off" expected.`, "call dummy is off.\n", "Stopping for shared library events is 0.\n",
		"No breakpoints or watchpoints.\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

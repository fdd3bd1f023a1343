package gdbcmd

import (
	"cmp"
	"fmt"
	"github.com/polydbg/polydbg/engine"
	"strings"
)

// infoFrame is gdb's info frame: where the selected frame lives (its address, the one it
// returns to, its caller's and callee's), its language, where its arguments and locals
// are, and where it saved its caller's registers. On a target without machine frames (the
// Kite VM) it is the frame's line.
func (d *Debugger) infoFrame(args string) {
	n, ok := d.frameArg(args)
	if !ok {
		return
	}
	d.describeFrame(n, args == "")
}

// describeFrame is info frame of frame n; selected says it is the selected one (gdb's
// "Stack level N" header, "Stack frame at" for another).
func (d *Debugger) describeFrame(n int, selected bool) {
	if d.notStarted("No stack.") {
		return
	}
	info, err := d.s.FrameInfo(n)
	if err != nil {
		d.selectFrame(n)
		return
	}
	frames, err := d.s.Stack()
	if err != nil || n >= len(frames) {
		d.fail("%s\n", explain(err))
		return
	}
	f := frames[n]
	if selected {
		d.printf("Stack level %d, frame at %#x:\n", n, info.CFA)
	} else {
		d.printf("Stack frame at %#x:\n", info.CFA)
	}
	where := " in " + cmp.Or(f.Func, "??")
	if f.Module != "" { // a library's function by its symbol: "in raise", "" without one, as gdb
		where = ""
		if name := namedFunc(f); name != "" {
			where = " in " + name
		}
	}
	if f.Location.File != "" {
		where += fmt.Sprintf(" (%s:%d)", d.fileName(f.Location.File), f.Location.Line)
	}
	d.printf(" %s = %#x%s", info.PCName, info.PC, where)
	if info.SavedPC != 0 {
		d.printf("; saved %s = %#x", info.PCName, info.SavedPC)
	}
	d.printf("\n")
	var near []string
	if info.TailCall {
		near = append(near, " tail call frame") // (its caller is not said, as gdb)
	} else if info.Inlined {
		near = append(near, fmt.Sprintf(" inlined into frame %d", info.InlinedInto))
	} else if caller, err := d.s.FrameInfo(n + 1); err == nil {
		near = append(near, fmt.Sprintf(" called by frame at %#x", caller.CFA))
	}
	if n > 0 {
		if callee, err := d.s.FrameInfo(n - 1); err == nil {
			near = append(near, fmt.Sprintf(" caller of frame at %#x", callee.CFA))
		}
	}
	if len(near) > 0 {
		d.printf("%s\n", strings.Join(near, ","))
	}
	if info.Language != "" {
		d.printf(" source language %s.\n", info.Language)
	}
	switch {
	case info.TailCall || info.Inlined:
		d.printf(" Arglist at unknown address.\n")
		d.printf(" Locals at unknown address, Previous frame's sp in %s\n", info.SPName)
	case info.Base != 0:
		args := ""
		if vars, err := d.s.FrameArgs(n); err == nil {
			args = d.frameArgsText(vars)
		}
		d.printf(" Arglist at %#x, args: %s\n", info.Base, args)
		d.printf(" Locals at %#x, Previous frame's sp is %#x\n", info.Base, info.CFA)
	default:
		d.printf(" Previous frame's sp is %#x\n", info.CFA)
	}
	if len(info.Saved) > 0 {
		parts := make([]string, len(info.Saved))
		for i, r := range info.Saved {
			parts[i] = fmt.Sprintf("%s at %#x", r.Name, r.Addr)
		}
		d.printf(" Saved registers:\n  %s\n", strings.Join(parts, ", "))
	}
}

// infoSource is gdb's info source: the selected frame's file and how it was compiled (the
// compiler and its flags tell an optimised build), as far as the target knows.
func (d *Debugger) infoSource() {
	loc, ok := d.here()
	var info engine.FrameInfo
	switch {
	case ok && loc.File != "":
		info, _ = d.s.FrameInfo(d.frame) // none on the Kite VM: its file alone
	case d.listFile != "": // not stopped: the file list showed last, as gdb's current source file
		loc.File = d.listFile
		info, _ = d.s.FileInfo(loc.File)
	default:
		d.fail("No current source file.\n")
		return
	}
	u := info.Unit
	d.printf("Current source file is %s\n", cmp.Or(u.Name, loc.File))
	if u.CompDir != "" {
		d.printf("Compilation directory is %s\n", u.CompDir)
	}
	lines, err := d.s.Source(loc.File)
	if found := d.s.SourceFile(loc.File); found != "" || err == nil { // where it was found (gdb says nothing of a missing file)
		d.printf("Located in %s\n", cmp.Or(found, loc.File))
	}
	if err == nil {
		d.printf("Contains %d lines.\n", len(lines))
	}
	if info.Language != "" {
		d.printf("Source language is %s.\n", info.Language)
	}
	if u.Producer != "" {
		d.printf("Producer is %s.\n", u.Producer)
	}
	if u.DWARFVersion > 0 {
		d.printf("Compiled with DWARF %d debugging format.\n", u.DWARFVersion)
		if u.Macros {
			d.printf("Includes preprocessor macro info.\n")
		} else {
			d.printf("Does not include preprocessor macro info.\n")
		}
	}
}

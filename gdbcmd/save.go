package gdbcmd

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdSave is gdb's save breakpoints FILE: the breakpoints, dprintfs, catchpoints and
// watchpoints written as the commands that set them again (source FILE), with their
// conditions, ignore counts, command lists and disabled state.
func cmdSave(d *Debugger, args string) bool {
	what, file, _ := strings.Cut(strings.TrimSpace(args), " ")
	file = strings.TrimSpace(file)
	switch {
	case what != "breakpoints":
		d.fail("\"save\" must be followed by the name of a save subcommand (breakpoints).\n")
		return false
	case file == "":
		d.fail("Argument required (file name in which to save)\n")
		return false
	}
	text := d.savedBreakpoints()
	if text == "" {
		d.printf("warning: Nothing to save.\n") // gdb's, not an error
		return false
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		d.fail("Unable to open file '%s' for saving (%v)\n", file, err)
		return false
	}
	if d.fromUser() {
		d.printf("Saved to file '%s'.\n", file)
	}
	return false
}

// savedBreakpoints is what save breakpoints writes, in gdb's form: one command a
// breakpoint, in number order, each followed by what it has besides its place.
func (d *Debugger) savedBreakpoints() string {
	type saved struct {
		id   int
		text string
	}
	var all []saved
	for _, b := range d.s.Breakpoints() {
		var s strings.Builder
		cmd := "break"
		switch {
		case b.Spec.LogFormat != "":
			cmd = "dprintf"
		case b.Spec.Temporary || d.temporary[b.ID]:
			cmd = "tbreak"
		}
		s.WriteString(cmd + " " + d.savedLocation(b))
		if b.Spec.LogFormat != "" {
			s.WriteString("," + b.Spec.LogFormat)
		}
		s.WriteString("\n")
		if b.Spec.Condition != "" {
			fmt.Fprintf(&s, "  condition $bpnum %s\n", b.Spec.Condition)
		}
		if left := ignoresLeft(b); left > 0 {
			fmt.Fprintf(&s, "  ignore $bpnum %d\n", left)
		}
		if lines := d.cmds.byID[b.ID]; len(lines) > 0 {
			s.WriteString("  commands\n")
			for _, l := range lines {
				s.WriteString("    " + l + "\n")
			}
			s.WriteString("  end\n")
		}
		if b.Spec.Disabled {
			s.WriteString("disable $bpnum\n")
		}
		all = append(all, saved{b.ID, s.String()})
	}
	for _, c := range d.s.Catchpoints() {
		text := "catch syscall"
		for i, n := range c.Calls {
			text += " " + callName(c.Names[i], n)
		}
		if c.OnFork {
			text = "catch " + forkKind(c)
		}
		if c.OnExec {
			text = "catch exec"
		}
		if c.OnLibrary {
			text = strings.TrimSpace(map[bool]string{false: "catch load ", true: "catch unload "}[c.Unload] + d.libraryMatches[c.ID])
		}
		if c.OnSignals {
			text = strings.TrimSpace("catch signal " + strings.Join(c.Signals, " "))
			if c.AnySignal {
				text = "catch signal all"
			}
		}
		if c.Disabled {
			text += "\ndisable $bpnum"
		}
		all = append(all, saved{c.ID, text + "\n"})
	}
	for _, w := range d.s.DataBreakpoints() {
		cmd := map[engine.DataAccess]string{engine.DataWrite: "watch", engine.DataRead: "rwatch", engine.DataReadWrite: "awatch"}[w.Access]
		all = append(all, saved{w.ID, cmd + " " + w.Name + "\n"})
	}
	var out strings.Builder
	for id := 1; len(all) > 0; id++ { // in number order
		for i := 0; i < len(all); i++ {
			if all[i].id == id {
				out.WriteString(all[i].text)
				all = append(all[:i], all[i+1:]...)
				i--
			}
		}
		if id > 1<<20 {
			break
		}
	}
	return out.String()
}

// savedLocation is where a breakpoint was asked to be, as it was typed: its function,
// FILE:LINE or *ADDRESS.
func (d *Debugger) savedLocation(b engine.Breakpoint) string {
	if text, ok := d.locationText[b.ID]; ok {
		return text
	}
	switch b.Spec.Kind {
	case engine.FunctionBreakpoint:
		return b.Spec.Function
	case engine.InstructionBreakpoint:
		return fmt.Sprintf("*%#x", b.Spec.PC)
	}
	return fmt.Sprintf("%s:%d", d.fileName(b.Spec.File), b.Spec.Line)
}

// ignoresLeft is how many more times an ignore count lets breakpoint b go on.
func ignoresLeft(b engine.Breakpoint) int {
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(b.Spec.HitCondition, ">")))
	if err != nil || !strings.HasPrefix(b.Spec.HitCondition, ">") {
		return 0
	}
	return n - b.Hits
}

package gdbcmd

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// gdb's words for each kind of watchpoint: hardware ones on native and MCU targets,
// software ones (Size 0: a Kite variable, checked by the VM) on Kite programs.
var watchKinds = map[engine.DataAccess]string{
	engine.DataWrite:     "Hardware watchpoint",
	engine.DataRead:      "Hardware read watchpoint",
	engine.DataReadWrite: "Hardware access (read/write) watchpoint",
}

var softWatchKinds = map[engine.DataAccess]string{
	engine.DataWrite:     "Watchpoint",
	engine.DataRead:      "Read watchpoint",
	engine.DataReadWrite: "Access (read/write) watchpoint",
}

// watchKind is what gdb calls w.
func watchKind(w engine.Watchpoint) string {
	if w.Size == 0 {
		return softWatchKinds[w.Access]
	}
	return watchKinds[w.Access]
}

// watchCmd is gdb's watch, rwatch and awatch: a data breakpoint on what EXPR names, in the
// selected frame, numbered with the breakpoints.
func watchCmd(access engine.DataAccess) cmdFunc {
	return func(d *Debugger, args string) bool {
		expr, cond, _ := strings.Cut(strings.TrimSpace(args), " if ") // watch EXPR if COND
		expr = strings.TrimSpace(expr)
		if expr == "" {
			d.fail("Argument required (expression to compute).\n")
			return false
		}
		name := ""
		for _, flag := range []string{"-location ", "-l "} { // the place, not the expression
			if rest, ok := strings.CutPrefix(expr, flag); ok {
				expr = strings.TrimSpace(rest)
				name = "-location " + expr
			}
		}
		w, err := d.s.WatchNamed(d.frame, expr, name, access)
		if err != nil {
			d.fail("%s\n", watchError(expr, err))
			return false
		}
		if cond = strings.TrimSpace(cond); cond != "" {
			if _, err := d.s.SetWatchCondition(w.ID, cond); err != nil {
				d.fail("%v\n", err)
			}
		}
		d.printf("%s %d: %s\n", watchKind(w), w.ID, w.Name)
		d.noteBreakpointNumber(w.ID)
		return false
	}
}

// gdb's names of the kinds in "info breakpoints".
var watchTypes = map[engine.DataAccess]string{
	engine.DataWrite:     "hw watchpoint",
	engine.DataRead:      "read watchpoint",
	engine.DataReadWrite: "acc watchpoint",
}

// reportWatch says what a data breakpoint saw, in gdb's words: the old and new value of a
// write, the value read.
func (d *Debugger) reportWatch(st *engine.Stop, hit string) {
	var w engine.Watchpoint
	found := false
	for _, x := range d.s.DataBreakpoints() {
		if x.ID == st.BreakpointID {
			w, found = x, true
		}
	}
	if !found && strings.Contains(st.Text, ": out of scope") {
		d.printf("\nWatchpoint %d deleted because the program has left the block in\nwhich its expression is valid.\n", st.BreakpointID)
		return
	}
	d.printf("\n%s%s %d: %s\n\n", hit, watchKind(w), st.BreakpointID, w.Name)
	text := strings.TrimPrefix(st.Text, w.Name)
	if change, ok := strings.CutPrefix(text, ": "); ok && w.Name != "" {
		if old, now, ok := strings.Cut(change, " -> "); ok {
			d.printf("Old value = %s\nNew value = %s\n", old, now)
			return
		}
	}
	if value, ok := strings.CutPrefix(text, " = "); ok && w.Name != "" {
		if w.Access == engine.DataWrite {
			d.printf("New value = %s\n", value)
		} else {
			d.printf("Value = %s\n", value)
		}
		return
	}
	d.printf("%s\n", st.Text)
}

// watchError says why expr cannot be watched: gdb's own words for a name it does not know.
func watchError(expr string, err error) string {
	if msg := explain(err); strings.HasPrefix(msg, "No symbol ") {
		return msg
	}
	return fmt.Sprintf("Cannot watch %s: %v", expr, err)
}

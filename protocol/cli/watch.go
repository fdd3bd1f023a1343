package cli

import (
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// gdb's words for each kind of watchpoint.
var watchKinds = map[engine.DataAccess]string{
	engine.DataWrite:     "Hardware watchpoint",
	engine.DataRead:      "Hardware read watchpoint",
	engine.DataReadWrite: "Hardware access (read/write) watchpoint",
}

// watchCmd is gdb's watch, rwatch and awatch: a data breakpoint on what EXPR names, in the
// selected frame, numbered with the breakpoints.
func watchCmd(access engine.DataAccess) cmdFunc {
	return func(d *Debugger, args string) bool {
		expr := strings.TrimSpace(args)
		if expr == "" {
			d.printf("Argument required (expression to compute).\n")
			return false
		}
		w, can, err := d.s.DataBreakpointInfo(d.frame, expr)
		if err != nil {
			d.printf("Cannot watch %s: %v\n", expr, err)
			return false
		}
		if !slices.Contains(can, access) {
			d.printf("Cannot watch %s for %s accesses on this target.\n", expr, access)
			return false
		}
		w.Access = access
		set, err := d.s.SetDataBreakpoints(append(d.s.DataBreakpoints(), w))
		if err != nil {
			d.printf("Cannot watch %s: %v\n", expr, err)
			return false
		}
		nw := set[len(set)-1]
		if !nw.Verified {
			d.printf("Cannot watch %s: %s\n", expr, nw.Message)
			_, _ = d.s.SetDataBreakpoints(set[:len(set)-1])
			return false
		}
		d.printf("%s %d: %s\n", watchKinds[access], nw.ID, nw.Name)
		return false
	}
}

// deleteWatchpoint removes data breakpoint n, if there is one.
func (d *Debugger) deleteWatchpoint(n int) bool {
	ws := d.s.DataBreakpoints()
	i := slices.IndexFunc(ws, func(w engine.Watchpoint) bool { return w.ID == n })
	if i < 0 {
		return false
	}
	_, err := d.s.SetDataBreakpoints(slices.Delete(slices.Clone(ws), i, i+1))
	return err == nil
}

// gdb's names of the kinds in "info breakpoints".
var watchTypes = map[engine.DataAccess]string{
	engine.DataWrite:     "hw watchpoint",
	engine.DataRead:      "read watchpoint",
	engine.DataReadWrite: "acc watchpoint",
}

// infoWatchpoints lists the data breakpoints after the breakpoints.
func (d *Debugger) infoWatchpoints() {
	for _, w := range d.s.DataBreakpoints() {
		d.printf("%-4d %-40s %s", w.ID, watchTypes[w.Access], w.Name)
		if !w.Verified {
			d.printf("  (not armed: %s)", w.Message)
		}
		d.printf("\n")
	}
}

// reportWatch says what a data breakpoint saw, in gdb's words: the old and new value of a
// write, the value read.
func (d *Debugger) reportWatch(st *engine.Stop) {
	var w engine.Watchpoint
	for _, x := range d.s.DataBreakpoints() {
		if x.ID == st.BreakpointID {
			w = x
		}
	}
	d.printf("\n%s %d: %s\n\n", watchKinds[w.Access], st.BreakpointID, w.Name)
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

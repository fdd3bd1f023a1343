package gdbcmd

// gdb's display and undisplay, and enable display, disable display and delete display: the
// displays numbered (all of them without numbers) shown at each stop again, not shown, or gone.

import "strings"

// displayNumbers are the display numbers args names (all of them for none); false, said,
// for one that is no display.
func (d *Debugger) displayNumbers(args string) ([]int, bool) {
	var ids []int
	if strings.TrimSpace(args) == "" {
		for _, w := range d.s.Watches() {
			ids = append(ids, w.ID)
		}
		return ids, true
	}
	known := map[int]bool{}
	for _, w := range d.s.Watches() {
		known[w.ID] = true
	}
	for _, f := range strings.Fields(args) {
		n, ok := atoi(f)
		if !ok || !known[n] {
			d.fail("No display number %s.\n", f)
			return nil, false
		}
		ids = append(ids, n)
	}
	return ids, true
}

// enableDisplays is enable display and disable display.
func (d *Debugger) enableDisplays(on bool, args string) {
	ids, ok := d.displayNumbers(args)
	if !ok {
		return
	}
	if d.displayOff == nil {
		d.displayOff = map[int]bool{}
	}
	for _, id := range ids {
		if on {
			delete(d.displayOff, id)
		} else {
			d.displayOff[id] = true
		}
	}
}

// deleteDisplays is delete display (undisplay): without numbers, after gdb's question.
func (d *Debugger) deleteDisplays(args string) {
	if strings.TrimSpace(args) == "" && len(d.s.Watches()) > 0 && !d.query("Delete all auto-display expressions? ") {
		return
	}
	ids, ok := d.displayNumbers(args)
	if !ok {
		return
	}
	for _, id := range ids {
		_ = d.s.RemoveWatch(id)
		delete(d.insnDisplays, id)
		delete(d.displayOff, id)
	}
}

func cmdDisplay(d *Debugger, args string) bool {
	if args == "" {
		d.showDisplays(0)
		return false
	}
	if n, expr, ok := instructionFormat(args); ok { // display/i $pc: instructions at each stop
		if d.insnDisplays == nil {
			d.insnDisplays = map[int]int{}
		}
		id := d.s.AddWatchFormat(expr, 0).ID
		d.insnDisplays[id] = n
		d.showNewDisplay(id)
		return false
	}
	format, expr, err := splitFormat(args)
	if err == nil {
		expr, err = d.values.Substitute(expr)
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	d.showNewDisplay(d.s.AddWatchFormat(expr, format).ID)
	return false
}

// showNewDisplay shows a display as it is made, to a person at a terminal (gdb -batch
// shows it at the next stop only).
func (d *Debugger) showNewDisplay(id int) {
	if !d.cfg.Batch {
		d.showDisplays(id)
	}
}

func cmdUndisplay(d *Debugger, args string) bool { d.deleteDisplays(args); return false }

package gdbcmd

// info breakpoints, in gdb's table.

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// bpRow is one row of the table: a breakpoint, a location of one, or a watchpoint.
type bpRow struct {
	id                  int
	num, kind, disp, on string
	addr, what          string
	notes               []string // the lines under the row: condition, hits, ignore count
	placed              bool     // a catchpoint with a place (catch throw): gdb lists it as a breakpoint
}

// infoBreakpoints is gdb's info breakpoints: breakpoints, dprintfs and watchpoints by
// number, with what each stops on and how often it has.
//
//	Num     Type           Disp Enb Address            What
//	1       breakpoint     keep y   0x0000555555555144 in fact at t.c:12
//		stop only if n==2
//		breakpoint already hit 1 time
func (d *Debugger) infoBreakpoints(numbers string) { d.breakpointTable(true, numbers) }

// breakpointTable is info breakpoints' table, or info watchpoints' (the watchpoints alone:
// withBreakpoints false), of the numbers listed (all without). The Type column is as wide
// as its longest entry, as gdb's.
func (d *Debugger) breakpointTable(withBreakpoints bool, numbers string) {
	only, err := breakpointNumbers(numbers)
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	rows := d.tableRows(withBreakpoints)
	if len(only) > 0 {
		rows = slices.DeleteFunc(rows, func(r bpRow) bool { return !slices.Contains(only, r.id) })
	}
	switch {
	case len(rows) > 0:
	case len(only) > 0 && withBreakpoints:
		d.printf("No breakpoint or watchpoint matching '%s'.\n", strings.TrimSpace(numbers))
		return
	case len(only) > 0:
		d.printf("No watchpoint matching '%s'.\n", strings.TrimSpace(numbers))
		return
	case withBreakpoints:
		d.printf("No breakpoints or watchpoints.\n")
		return
	default:
		d.printf("No watchpoints.\n")
		return
	}
	slices.SortStableFunc(rows, func(a, b bpRow) int { return cmp.Compare(a.id, b.id) })
	width, kinds := max(len("Address"), d.pcWidth()+2), len("breakpoint    ")
	if !slices.ContainsFunc(rows, func(r bpRow) bool { return (r.kind != "catchpoint" || r.placed) && r.addr != "<PENDING>" }) {
		width = 10 // gdb's, when nothing listed has an address
	}
	for _, r := range rows {
		kinds = max(kinds, len(r.kind))
	}
	d.printf("%-7s %-*s %-4s %-3s %-*s %s\n", "Num", kinds, "Type", "Disp", "Enb", width, "Address", "What")
	for _, r := range rows {
		line := fmt.Sprintf("%-7s %-*s %-4s %-3s %-*s %s", r.num, kinds, r.kind, r.disp, r.on, width, r.addr, r.what)
		if r.kind != "catchpoint" && r.addr != "<MULTIPLE>" || r.placed { // gdb ends these with spaces
			line = strings.TrimRight(line, " ")
		}
		d.printf("%s\n", line)
		for _, n := range r.notes {
			d.printf("%s\n", n)
		}
		if r.num == strconv.Itoa(r.id) {
			for _, n := range d.commandNotes(r.id) {
				d.printf("%s\n", n)
			}
		}
	}
}

// tableRows is the rows of info breakpoints (withBreakpoints) or info watchpoints.
func (d *Debugger) tableRows(withBreakpoints bool) []bpRow {
	var rows []bpRow
	for _, b := range d.s.Breakpoints() {
		if withBreakpoints {
			rows = append(rows, d.breakpointRows(b)...)
		}
	}
	if withBreakpoints {
		rows = append(rows, d.catchpointRows()...)
	}
	for _, w := range d.s.DataBreakpoints() {
		kind := watchTypes[w.Access]
		if w.Size == 0 && w.Access == engine.DataWrite {
			kind = "watchpoint" // a software one (Kite)
		}
		r := bpRow{id: w.ID, num: strconv.Itoa(w.ID), kind: kind, disp: "keep", on: "y", what: w.Name}
		if !w.Verified {
			r.notes = append(r.notes, "\tnot armed: "+w.Message)
		}
		if w.Condition != "" {
			r.notes = append(r.notes, "\tstop only if "+w.Condition)
		}
		if w.Hits > 0 {
			r.notes = append(r.notes, hitNote(w.Hits))
		}
		rows = append(rows, r)
	}
	return rows
}

// breakpointRows is a breakpoint's row and its notes, then a row for each of its
// locations when it has several (the inlined copies of a function), as gdb's 1.1, 1.2.
func (d *Debugger) breakpointRows(b engine.Breakpoint) []bpRow {
	r := bpRow{id: b.ID, num: strconv.Itoa(b.ID), kind: "breakpoint", disp: "keep", on: "y"}
	if b.Spec.LogFormat != "" {
		r.kind = "dprintf"
	}
	switch {
	case d.temporary[b.ID] || b.Spec.Temporary:
		r.disp = "del"
	case b.Spec.Counted: // enable once, enable count
		r.disp = "dis"
	}
	if b.Spec.Disabled {
		r.on = "n"
	}
	sites := d.sites(b.ID)
	switch {
	case !b.Verified && !(b.Pending && b.Location.HasPC): // an exec left it without a place: what it was set on, as gdb
		r.addr, r.what = "<PENDING>", specText(b.Spec)
	case len(sites) > 1:
		r.addr = "<MULTIPLE>"
	default:
		r.addr, r.what = d.bpAddress(b.Location), d.bpWhat(b.Location)
		if d.bareBreaks[b.ID] && b.Location.File != "" {
			r.what = fmt.Sprintf("%s:%d", d.fileName(b.Location.File), b.Location.Line)
		}
	}
	if c := b.Spec.Condition; c != "" {
		r.notes = append(r.notes, "\tstop only if "+c)
	}
	if b.Hits > 0 {
		r.notes = append(r.notes, hitNote(b.Hits))
	}
	if d.byCount[b.ID] && b.Spec.Counted && b.Spec.StopsLeft > 1 { // enable count N (gdb says nothing of the last one)
		r.notes = append(r.notes, fmt.Sprintf("\tdisable after next %d hits", b.Spec.StopsLeft))
	}
	if hc := strings.TrimSpace(b.Spec.HitCondition); hc != "" {
		n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(hc, ">")))
		switch {
		case err == nil && strings.HasPrefix(hc, ">") && n > b.Hits:
			r.notes = append(r.notes, fmt.Sprintf("\tignore next %d hits", n-b.Hits)) // gdb's ignore, as the engine keeps it
		case err == nil && strings.HasPrefix(hc, ">"): // an ignore count used up: gdb says nothing more
		default:
			r.notes = append(r.notes, "\tstop only when the hit count is "+hc)
		}
	}
	if b.Spec.LogMessage != "" {
		r.notes = append(r.notes, "        log "+strconv.Quote(b.Spec.LogMessage))
	}
	if b.Spec.LogFormat != "" {
		r.notes = append(r.notes, "        printf "+b.Spec.LogFormat)
	}
	rows := []bpRow{r}
	if len(sites) > 1 {
		for i, l := range sites {
			rows = append(rows, bpRow{id: b.ID, num: fmt.Sprintf("%d.%d", b.ID, i+1), on: r.on, addr: d.bpAddress(l), what: d.bpWhat(l)})
		}
	}
	return rows
}

// bpAddress is a breakpoint's address as the table shows it: the pc in hex, or the
// instruction's number on the Kite VM ("pc 23").
func (d *Debugger) bpAddress(l engine.Location) string {
	switch {
	case !l.HasPC:
		return ""
	case d.indexedPCs():
		return fmt.Sprintf("pc %d", l.PC)
	}
	return d.pcText(d.fileAddress(l.PC))
}

// fileAddress is pc as gdb shows a breakpoint's address before the program runs: in the
// executable file, before a position-independent program is loaded where it will run
// (polydbg's is loaded already, held at its first instruction). Once it runs, or when it
// was there before the debugger came (Attached), the address is pc itself.
func (d *Debugger) fileAddress(pc uint64) uint64 {
	if base := d.fileBias(); base != 0 && pc >= base {
		return pc - base
	}
	return pc
}

// loadedAddress is the address the program has for a, which before it runs is given as
// gdb gives it, in the file (list *0x1139); a itself once it runs.
func (d *Debugger) loadedAddress(a uint64) uint64 {
	if base := d.fileBias(); base != 0 && a < base {
		return a + base
	}
	return a
}

// fileBias is, before a position-independent program first runs, where it is loaded: the
// difference between the addresses polydbg has and those gdb shows then; 0 otherwise.
func (d *Debugger) fileBias() uint64 {
	if d.s.State() != engine.Initialized || d.ranOnce || d.cfg.Attached || d.indexedPCs() {
		return 0 // gdb too says the loaded address once the program has been run
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mods, _ := d.s.Modules(ctx)
	for _, m := range mods {
		if m.Symbols && m.Base != 0 {
			return m.Base
		}
	}
	return 0
}

// sites are the places breakpoint id is at, by address as gdb numbers them (1.1, 1.2).
func (d *Debugger) sites(id int) []engine.Location {
	sites, _ := d.s.BreakpointSites(id)
	sites = slices.Clone(sites)
	slices.SortStableFunc(sites, func(a, b engine.Location) int { return cmp.Compare(a.PC, b.PC) })
	return sites
}

// bpWhat is where a breakpoint is, as gdb says it: "in fact at t.c:12".
func (d *Debugger) bpWhat(l engine.Location) string {
	switch {
	case l.File == "" && l.Func != "":
		return "<" + l.Func + ">"
	case l.Func == "":
		return fmt.Sprintf("at %s:%d", d.fileName(l.File), l.Line)
	}
	if fs, ok := d.s.Target().(engine.FunctionSignatures); ok && l.HasPC {
		if sig, ok := fs.FunctionSignature(l.PC); ok {
			return fmt.Sprintf("in %s at %s:%d", sig, d.fileName(l.File), l.Line)
		}
	}
	return fmt.Sprintf("in %s at %s:%d", l.Func, d.fileName(l.File), l.Line)
}

// fileName is a source file as gdb names it: as the compiler was given it.
func (d *Debugger) fileName(path string) string { return d.s.SourceName(path) }

// hitNote is gdb's line under a breakpoint or watchpoint that has stopped the program.
func hitNote(hits int) string {
	if hits == 1 {
		return "\tbreakpoint already hit 1 time"
	}
	return fmt.Sprintf("\tbreakpoint already hit %d times", hits)
}

// specText is what a breakpoint was set on: a function, a file's line, an address.
func specText(spec engine.BreakpointSpec) string {
	switch spec.Kind {
	case engine.FunctionBreakpoint:
		return spec.Function
	case engine.LineBreakpoint:
		return fmt.Sprintf("%s:%d", filepath.Base(spec.File), spec.Line)
	}
	return fmt.Sprintf("*%#x", spec.PC)
}

package gdbcmd

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// infoLine is gdb's info line [LOCATION]: where a line's code starts and ends (LINE,
// FILE:LINE, FUNCTION, *ADDR; the selected frame's line without one).
func (d *Debugger) infoLine(arg string) {
	var lc engine.LineCode
	var err error
	switch {
	case arg == "":
		here, ok := d.here()
		if !ok {
			d.fail("No line number information available.\n")
			return
		}
		lc, err = d.s.LineCode(here.File, here.Line)
	case strings.HasPrefix(arg, "*"):
		var pc uint64
		if pc, err = d.s.Address(d.frame, arg[1:]); err == nil {
			lc, err = d.s.LineCodeAt(d.loadedAddress(pc))
		}
	default:
		spec, perr := d.parseLocation(arg)
		if perr != nil {
			d.fail("%v\n", perr)
			return
		}
		file, line := spec.File, spec.Line
		if fl, ok := d.s.Target().(engine.FunctionLocator); ok && spec.Kind == engine.FunctionBreakpoint && singleColon(spec.Function) < 0 {
			if files := fl.FunctionFiles(spec.Function); len(files) > 1 { // a name two files define: each, as gdb's
				for _, f := range files {
					d.infoLine(f + ":" + spec.Function)
				}
				return
			}
		}
		if spec.Kind == engine.FunctionBreakpoint {
			fn, ferr := d.functionStart(spec.Function)
			if ferr != nil {
				d.fail("Function %q not defined.\n", spec.Function)
				return
			}
			if fn.File == "" { // known by its symbol alone
				if pc, aerr := d.s.Address(d.frame, spec.Function); aerr == nil {
					d.fail("No line number information available for address %s\n", d.codeAddress(pc))
					return
				}
			}
			file, line = fn.File, fn.Line
		}
		lc, err = d.s.LineCode(file, line)
	}
	switch {
	case err != nil:
		d.fail("%s\n", explain(err))
	case lc.NoCode:
		d.printf("Line %d of %q is at address %s but contains no code.\n", lc.Line, d.fileName(lc.File), d.codeAddress(lc.Start))
		d.noteLineAddress(lc.Start)
	default:
		d.printf("Line %d of %q starts at address %s and ends at %s.\n", lc.Line, d.fileName(lc.File), d.codeAddress(lc.Start), d.codeAddress(lc.End))
		d.noteLineAddress(lc.Start)
	}
}

// noteLineAddress makes the address info line told where x goes on from (x/i is enough to
// see the line's code) and the value of $_, as gdb does.
func (d *Debugger) noteLineAddress(pc uint64) {
	if d.indexedPCs() {
		return
	}
	d.examined.next, d.examined.valid = pc, true
	d.values.SetConvenience("_", engine.Variable{Name: "$_", Value: d.labelled(pc), Type: "void *"})
}

// codeAddress is an instruction's address with its symbol ("0x1139 <fact>"), or its number
// on the Kite VM ("pc 72").
func (d *Debugger) codeAddress(pc uint64) string {
	if d.indexedPCs() {
		return fmt.Sprintf("pc %d", pc)
	}
	return d.labelled(pc)
}

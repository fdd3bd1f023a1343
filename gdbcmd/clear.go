package gdbcmd

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdClear is gdb's clear [LOCATION]: delete every breakpoint at a place (a line, a
// function's, an address; without one, the selected frame's line) and say which.
func cmdClear(d *Debugger, args string) bool {
	spec := engine.BreakpointSpec{Kind: engine.LineBreakpoint}
	if args == "" {
		here, ok := d.here()
		if !ok {
			d.fail("No source file specified.\n")
			return false
		}
		spec.File, spec.Line = here.File, here.Line
	} else {
		var err error
		if spec, err = d.parseLocation(args); err != nil {
			d.fail("%v\n", err)
			return false
		}
	}
	bps, err := d.s.BreakpointsAtPlace(spec)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	var deleted []string
	for _, b := range bps {
		if d.s.RemoveBreakpoint(b.ID) == nil {
			deleted = append(deleted, fmt.Sprint(b.ID))
		}
	}
	switch {
	case len(deleted) == 0:
		d.fail("No breakpoint at %s.\n", strings.TrimSpace(args))
	case !d.fromUser(): // said to a person only, as gdb (a script's clear is silent)
	case len(deleted) == 1:
		d.printf("Deleted breakpoint %s \n", deleted[0]) // gdb's words, its space included
	default:
		d.printf("Deleted breakpoints %s \n", strings.Join(deleted, " "))
	}
	return false
}

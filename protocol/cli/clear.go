package cli

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdClear is gdb's clear [LOCATION]: delete every breakpoint at a place (a line, a
// function's, an address; without one, the selected frame's line) and say which.
func cmdClear(d *Debugger, args string) bool {
	var at func(engine.Breakpoint) bool
	if args == "" {
		here, ok := d.here()
		if !ok {
			d.printf("No source file specified.\n")
			return false
		}
		at = func(b engine.Breakpoint) bool { return atLine(b.Location, here.File, here.Line) }
	} else {
		spec, err := d.parseLocation(args)
		if err != nil {
			d.printf("%v\n", err)
			return false
		}
		switch spec.Kind {
		case engine.InstructionBreakpoint:
			at = func(b engine.Breakpoint) bool { return b.Location.HasPC && b.Location.PC == spec.PC }
		case engine.FunctionBreakpoint:
			fn, err := d.s.Target().ResolveFunction(spec.Function)
			if err != nil {
				d.printf("Function %q not defined.\n", spec.Function)
				return false
			}
			at = func(b engine.Breakpoint) bool {
				return b.Spec.Function == spec.Function || atLine(b.Location, fn.File, fn.Line)
			}
		default:
			at = func(b engine.Breakpoint) bool {
				return atLine(b.Location, spec.File, spec.Line) ||
					b.Spec.Kind == engine.LineBreakpoint && b.Spec.Line == spec.Line && fileIs(b.Location.File, spec.File)
			}
		}
	}
	var deleted []string
	for _, b := range d.s.Breakpoints() {
		if at(b) && d.s.RemoveBreakpoint(b.ID) == nil {
			deleted = append(deleted, fmt.Sprint(b.ID))
		}
	}
	switch len(deleted) {
	case 0:
		d.printf("No breakpoint at %s.\n", strings.TrimSpace(args))
	case 1:
		d.printf("Deleted breakpoint %s \n", deleted[0]) // gdb's words, its space included
	default:
		d.printf("Deleted breakpoints %s \n", strings.Join(deleted, " "))
	}
	return false
}

// atLine reports whether l is at line of file (a path, or its end: "loop.c").
func atLine(l engine.Location, file string, line int) bool {
	return l.Line == line && fileIs(l.File, file)
}

// fileIs reports whether the path full is the file given, as a user names it: the same
// path, or one ending with it after a slash.
func fileIs(full, given string) bool {
	return sameFile(full, given) || given != "" && strings.HasSuffix(full, "/"+strings.TrimPrefix(given, "./"))
}

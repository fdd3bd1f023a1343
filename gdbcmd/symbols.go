package gdbcmd

import (
	"cmp"

	"github.com/polydbg/polydbg/engine"
)

// infoAddress is gdb's info address NAME: where a variable, function or symbol lives.
func (d *Debugger) infoAddress(name string) {
	sd, ok := d.symbolDescriber(name, "Argument required.")
	if !ok {
		return
	}
	shown, where, err := sd.DescribeSymbol(d.frame, name)
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	d.printf("Symbol %q is %s.\n", cmp.Or(shown, name), d.fileText(where))
}

// infoScope is gdb's info scope LOCATION: the variables visible where the location's code
// starts, each with where it lives and its size.
func (d *Debugger) infoScope(args string) {
	sd, ok := d.symbolDescriber(args, "requires an argument (function, line or *addr) to define a scope")
	if !ok {
		return
	}
	spec, err := d.parseLocation(args)
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	var loc engine.Location
	switch spec.Kind {
	case engine.FunctionBreakpoint:
		if sf, ok := d.s.Target().(engine.ScopeFunctioner); ok { // an overloaded name: the function gdb takes
			loc, err = sf.ScopeFunction(spec.Function)
		} else {
			loc, err = d.s.Target().ResolveFunction(spec.Function)
		}
		if err != nil {
			d.fail("Function %q not defined.\n", spec.Function)
			return
		}
	case engine.LineBreakpoint:
		loc, err = d.s.Target().ResolveLine(spec.File, spec.Line)
	default:
		loc, err = d.s.ResolvePC(spec.PC)
	}
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	syms, err := sd.DescribeScope(loc.PC)
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if len(syms) == 0 {
		d.printf("Scope for %s contains no locals or arguments.\n", args)
		return
	}
	d.printf("Scope for %s:\n", args)
	for _, s := range syms {
		d.printf("Symbol %s is %s, length %d.\n", s.Name, d.fileText(s.Where), s.Size)
	}
}

// symbolDescriber is the target's, for a command whose argument is arg: false, with the
// reason said (missing, gdb's words for it), when arg is empty or the target has none.
func (d *Debugger) symbolDescriber(arg, missing string) (engine.SymbolDescriber, bool) {
	if arg == "" {
		d.fail("%s\n", missing)
		return nil, false
	}
	sd, ok := d.s.Target().(engine.SymbolDescriber)
	if !ok {
		d.fail("%s\n", explain(engine.ErrUnsupported))
	}
	return sd, ok
}

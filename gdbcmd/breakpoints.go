package gdbcmd

// gdb's breakpoint commands: break, tbreak, delete, condition, enable, disable, ignore,
// and the locations they take.

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// parseLocation turns FILE:LINE, LINE, FUNCTION or *PC into a breakpoint spec.
func (d *Debugger) parseLocation(arg string) (engine.BreakpointSpec, error) {
	loc, cond, _ := strings.Cut(arg, " if ")
	loc = strings.TrimSpace(loc)
	spec := engine.BreakpointSpec{Condition: strings.TrimSpace(cond)}
	switch {
	case loc == "":
		return spec, fmt.Errorf("Argument required (a location: FILE:LINE, LINE, FUNCTION or *PC).")
	case strings.HasPrefix(loc, "*"):
		pc, err := d.s.Address(d.frame, loc[1:]) // *0x401136, or *$pc when stopped
		if err != nil {
			return spec, fmt.Errorf("Invalid address %q.", loc[1:])
		}
		spec.Kind, spec.PC = engine.InstructionBreakpoint, d.loadedAddress(pc) // before the run gdb takes a file address
	case (loc[0] == '+' || loc[0] == '-') && len(loc) > 1: // lines after or before the selected frame's
		n, ok := atoi(loc[1:])
		here, stopped := d.here()
		if !ok || !stopped {
			return spec, fmt.Errorf("No line %s from here (a relative line needs a stopped program).", loc)
		}
		if loc[0] == '-' {
			n = -n
		}
		spec.Kind, spec.File, spec.Line = engine.LineBreakpoint, here.File, max(1, here.Line+n)
	default:
		if i := singleColon(loc); i > 0 {
			if n, ok := atoi(loc[i+1:]); ok {
				spec.Kind, spec.File, spec.Line = engine.LineBreakpoint, loc[:i], n
				return spec, nil
			}
			// FILE:FUNCTION: the function, which must be in that file
			file, fn := loc[:i], loc[i+1:]
			if names, ok := d.s.Target().(engine.Names); ok && !slices.ContainsFunc(names.SourceFiles(), func(f string) bool { return engine.SourceFileIs(f, file) }) {
				return spec, fmt.Errorf("No source file named %s.", file)
			}
			if _, err := d.s.Target().ResolveFunction(loc); err == nil { // a target that binds FILE:FUNCTION itself: that file's alone
				spec.Kind, spec.Function = engine.FunctionBreakpoint, loc
				return spec, nil
			}
			if l, err := d.s.Target().ResolveFunction(fn); err != nil || !engine.SourceFileIs(l.File, file) {
				return spec, fmt.Errorf("Function %q not defined in %q.", fn, file)
			}
			spec.Kind, spec.Function = engine.FunctionBreakpoint, fn
			return spec, nil
		}
		if n, ok := atoi(loc); ok { // a line of the current file, or of main's before the program stops
			spec.Kind, spec.Line = engine.LineBreakpoint, n
			if st := d.s.LastStop(); st != nil && st.Location.File != "" {
				spec.File = cmp.Or(d.listFile, st.Location.File) // the file listed last, the stop's unless list showed another
			} else { // (a stop in a library without lines too, as gdb)
				spec.File = d.defaultFile()
			}
			return spec, nil
		}
		spec.Kind, spec.Function = engine.FunctionBreakpoint, loc
	}
	return spec, nil
}

// singleColon is the index of the first colon of loc that is not half of C++'s "::" (the
// one after FILE in FILE:LINE and FILE:geo::add), -1 when there is none.
func singleColon(loc string) int {
	for i := 0; i < len(loc); i++ {
		if loc[i] != ':' {
			continue
		}
		if i+1 < len(loc) && loc[i+1] == ':' {
			i++
			continue
		}
		return i
	}
	return -1
}

func cmdBreak(d *Debugger, args string) bool { d.setBreak(args, "Breakpoint", nil); return false }

func cmdTbreak(d *Debugger, args string) bool {
	d.setBreak(args, "Temporary breakpoint", func(spec *engine.BreakpointSpec) { spec.Temporary = true })
	return false
}

// setBreak sets a breakpoint at the location args names, adjust given the spec first, and
// says so as gdb does ("Breakpoint 1 at ...", kind being its first words).
func (d *Debugger) setBreak(args, kind string, adjust func(*engine.BreakpointSpec)) {
	if d.s.State().Ended() { // for the next run, as gdb keeps it: that run's session, made now
		if err := d.newSession(); err != nil {
			d.fail("No breakpoint set: %v\n", err)
			return
		}
	}
	spec, err := d.parseLocation(args)
	bare := err != nil && strings.TrimSpace(strings.SplitN(args, " if ", 2)[0]) == ""
	if bare { // gdb's break without a location: the selected frame's pc
		here, stopped := d.here()
		if !stopped || !here.HasPC {
			d.fail("No default breakpoint address now.\n")
			return
		}
		spec.Kind, spec.PC, err = engine.InstructionBreakpoint, here.PC, nil
	}
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	if adjust != nil {
		adjust(&spec)
	}
	bp, err := d.s.SetBreakpoint(spec)
	if nf := (engine.NoFunctionError{}); errors.As(err, &nf) && spec.Kind == engine.FunctionBreakpoint {
		// gdb's words, not an error that ends a script; polydbg makes no breakpoint pending,
		// so the question (a native program's) has gdb's default answer.
		d.printf("Function \"%s\" not defined.\n", nf.Name)
		if d.cfg.Confirm == nil && !d.indexedPCs() {
			d.printf("Make breakpoint pending on future shared library load? (y or [n]) [answered N; input not from terminal]\n")
		}
		return
	}
	if ns := (engine.NoSourceFileError{}); errors.As(err, &ns) && spec.Kind == engine.LineBreakpoint {
		d.printf("No source file named %s.\n", ns.File) // as a function no program has, above
		if d.cfg.Confirm == nil && !d.indexedPCs() {
			d.printf("Make breakpoint pending on future shared library load? (y or [n]) [answered N; input not from terminal]\n")
		}
		return
	}
	if ce := (engine.ConditionError{}); errors.As(err, &ce) {
		d.fail("%v\n", ce.Err) // gdb's error alone: A syntax error in expression, near `'.
		return
	}
	if err != nil {
		d.fail("No breakpoint set: %v\n", err)
		return
	}
	if spec.Temporary {
		if d.temporary == nil {
			d.temporary = map[int]bool{}
		}
		d.temporary[bp.ID] = true
	}
	d.noteBreakpointNumber(bp.ID)
	if !bare { // as typed, for save breakpoints
		if d.locationText == nil {
			d.locationText = map[int]string{}
		}
		d.locationText[bp.ID] = strings.TrimSpace(strings.SplitN(args, " if ", 2)[0])
	}
	if bare {
		if d.bareBreaks == nil {
			d.bareBreaks = map[int]bool{}
		}
		d.bareBreaks[bp.ID] = true
	}
	l := bp.Location // said as gdb says it: "Breakpoint 1 at 0x1144: file t.c, line 12."
	addr := fmt.Sprintf("%#x", d.fileAddress(l.PC))
	if d.indexedPCs() {
		addr = fmt.Sprintf("pc %d", l.PC)
	}
	if d.fromUser() {
		d.noteOthersAt(bp, addr)
	}
	switch sites := d.sites(bp.ID); {
	case len(sites) > 1: // inlined copies, overloads, template instances: named as typed, at the first
		name := l.Func
		if bp.Spec.Kind == engine.FunctionBreakpoint {
			name = bp.Spec.Function
		}
		if !d.indexedPCs() {
			addr = fmt.Sprintf("%#x", d.fileAddress(sites[0].PC))
		}
		d.printf("%s %d at %s: %s. (%d locations)\n", kind, bp.ID, addr, name, len(sites))
	case l.File != "":
		d.printf("%s %d at %s: file %s, line %d.\n", kind, bp.ID, addr, d.fileName(l.File), l.Line)
	default:
		d.printf("%s %d at %s\n", kind, bp.ID, addr)
	}
}

// noteOthersAt says which breakpoints were already at the place bp was set at, as gdb
// does to a person: "Note: breakpoints 1 (disabled) and 2 also set at pc 0x1144."
func (d *Debugger) noteOthersAt(bp engine.Breakpoint, addr string) {
	addr = strings.TrimPrefix(addr, "pc ") // a Kite program's "pc 12"
	var others []string
	for _, b := range d.s.Breakpoints() {
		if b.ID == bp.ID || !b.Verified || !b.Location.HasPC || b.Location.PC != bp.Location.PC {
			continue
		}
		o := strconv.Itoa(b.ID)
		if b.Spec.Disabled {
			o += " (disabled)"
		}
		others = append(others, o)
	}
	switch len(others) {
	case 0:
	case 1:
		d.printf("Note: breakpoint %s also set at pc %s.\n", others[0], addr)
	default:
		d.printf("Note: breakpoints %s and %s also set at pc %s.\n", strings.Join(others[:len(others)-1], ", "), others[len(others)-1], addr)
	}
}

// describe prints a location; pcs in hex unless the target numbers its instructions.
func (d *Debugger) describe(l engine.Location) string {
	s := fmt.Sprintf("%s:%d", l.File, l.Line)
	if l.Func != "" {
		s = l.Func + " " + s
	}
	if l.HasPC {
		if ix, ok := d.s.Target().(engine.IndexedPCs); ok && ix.PCsAreIndexes() {
			s = fmt.Sprintf("pc %d: %s", l.PC, s)
		} else {
			s = fmt.Sprintf("%#x: %s", l.PC, s)
		}
	}
	return s
}

func cmdDelete(d *Debugger, args string) bool {
	if rest, ok := strings.CutPrefix(args, "breakpoints"); ok && (rest == "" || rest[0] == ' ') { // gdb's delete breakpoints [N...]
		args = strings.TrimSpace(rest)
	}
	if rest, ok := strings.CutPrefix(args, "display"); ok && (rest == "" || rest[0] == ' ') {
		d.deleteDisplays(rest)
		return false
	}
	if args == "" {
		some := len(d.s.Breakpoints())+len(d.s.DataBreakpoints())+len(d.s.Catchpoints()) > 0
		if some && d.fromUser() && !d.query("Delete all breakpoints? ") { // gdb asks a person only
			return false
		}
		d.s.ClearBreakpoints()
		for _, c := range d.s.Catchpoints() {
			_ = d.s.RemoveCatchpoint(c.ID)
		}
		if len(d.s.DataBreakpoints()) > 0 {
			_, _ = d.s.SetDataBreakpoints(nil)
		}
		return false
	}
	ids, err := breakpointNumbers(args)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	for _, n := range ids {
		if d.s.Unwatch(n) || d.s.RemoveCatchpoint(n) == nil {
			continue
		}
		if err := d.s.RemoveBreakpoint(n); err != nil {
			d.fail("No breakpoint number %d.\n", n)
		}
	}
	return false
}

func cmdCondition(d *Debugger, args string) bool {
	num, cond, _ := strings.Cut(args, " ")
	n, ok := atoi(num)
	if !ok {
		d.fail("Argument required (breakpoint number).\n")
		return false
	}
	found, err := d.s.SetWatchCondition(n, cond) // a watchpoint's
	if !found {
		err = d.s.SetCondition(n, strings.TrimSpace(cond))
	}
	if ce := (engine.ConditionError{}); errors.As(err, &ce) {
		err = ce.Err // gdb's error alone
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	if strings.TrimSpace(cond) == "" && d.fromUser() {
		d.printf("%s %d now unconditional.\n", map[bool]string{false: "Breakpoint", true: "Watchpoint"}[found], n)
	}
	return false
}

// enableCmd is gdb's enable and disable: of the breakpoints numbered, or all of them;
// enable once, enable count N and enable delete besides.
func enableCmd(on bool) cmdFunc {
	return func(d *Debugger, args string) bool {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(args), "display"); ok && (rest == "" || rest[0] == ' ') {
			d.enableDisplays(on, rest)
			return false
		}
		args = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args), "breakpoints"))
		var how func(id int) error // enable once, count, delete; nil for a plain enable
		if on {
			if how = d.enableHow(&args); how == nil && d.failed {
				return false
			}
		}
		ids, err := breakpointNumbers(args)
		if err != nil {
			d.fail("%v\n", err)
			return false
		}
		if len(ids) == 0 {
			if how != nil {
				d.fail("Argument required (one or more breakpoint numbers).\n")
				return false
			}
			for _, b := range d.s.Breakpoints() {
				ids = append(ids, b.ID)
			}
			for _, c := range d.s.Catchpoints() {
				ids = append(ids, c.ID)
			}
		}
		for _, n := range ids {
			if how == nil && d.s.EnableCatchpoint(n, on) == nil {
				continue
			}
			err := d.s.EnableBreakpoint(n, on)
			if how != nil {
				err = how(n)
			}
			if err != nil {
				d.fail("%v\n", err)
			}
		}
		return false
	}
}

// enableHow reads the word after enable, once, count N or delete, off args: what enabling
// a breakpoint then does. nil for a plain enable, or after a bad count (d.failed).
func (d *Debugger) enableHow(args *string) func(id int) error {
	word, rest, _ := strings.Cut(*args, " ")
	switch word {
	case "once":
		*args = rest
		return func(id int) error { delete(d.temporary, id); delete(d.byCount, id); return d.s.EnableFor(id, 1) }
	case "delete":
		*args = rest
		return func(id int) error {
			if d.temporary == nil {
				d.temporary = map[int]bool{}
			}
			d.temporary[id] = true
			delete(d.byCount, id)
			return d.s.EnableTemporary(id)
		}
	case "count":
		num, rest, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, ok := atoi(num)
		if !ok {
			d.fail("Argument required (hit count).\n")
			return nil
		}
		*args = rest
		return func(id int) error {
			delete(d.temporary, id)
			if d.byCount == nil {
				d.byCount = map[int]bool{}
			}
			d.byCount[id] = true                // its count is told in info breakpoints, once's is not
			return d.s.EnableFor(id, max(n, 1)) // gdb's 0 stops once too
		}
	}
	return nil
}

// maxRange bounds the numbers one range of breakpoints names ("delete 1-1000").
const maxRange = 10000

// breakpointNumbers reads gdb's list of breakpoint numbers: "2 4-6 9".
func breakpointNumbers(args string) ([]int, error) {
	var ids []int
	for _, f := range strings.Fields(args) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, okA := atoi(lo)
		b, okB := a, okA
		if isRange {
			b, okB = atoi(hi)
		}
		switch {
		case !okA || !okB || a < 0:
			return nil, fmt.Errorf("Bad breakpoint number '%s'", f)
		case b < a:
			return nil, fmt.Errorf("inverted range")
		case b-a > maxRange:
			return nil, fmt.Errorf("The range %s names more than %d breakpoints.", f, maxRange)
		}
		for n := a; n <= b; n++ {
			ids = append(ids, n)
		}
	}
	return ids, nil
}

// cmdIgnore is gdb's ignore N COUNT.
func cmdIgnore(d *Debugger, args string) bool {
	f := strings.Fields(args)
	if len(f) != 2 {
		d.fail("Argument required (a breakpoint number and a count).\n")
		return false
	}
	n, ok1 := atoi(f[0])
	count, ok2 := atoi(f[1])
	if !ok1 || !ok2 || count < 0 {
		d.fail("Bad arguments: ignore N COUNT.\n")
		return false
	}
	if err := d.s.IgnoreBreakpoint(n, count); err != nil {
		d.fail("%v\n", err)
		return false
	}
	switch count { // to a person at a terminal: gdb -batch says none of it
	case 0:
		d.say("Will stop next time breakpoint %d is reached.\n", n)
	case 1:
		d.say("Will ignore next crossing of breakpoint %d.\n", n)
	default:
		d.say("Will ignore next %d crossings of breakpoint %d.\n", count, n)
	}
	return false
}

package gdbremote

// Target: resolving locations, and traps (breakpoints) set while stopped or running.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// ResolveLine implements engine.Target: the line's first address; a trap there also
// covers the line in every other function and inlined copy it has code in (sites.go).
func (t *Target) ResolveLine(file string, line int) (engine.Location, error) {
	pcs, got, err := t.sym.LineToPCs(file, line)
	if err != nil && t.loadsLibraries() && t.addLibraries() {
		pcs, got, err = t.sym.LineToPCs(file, line) // a line of a loaded library's source
	}
	if errors.Is(err, elfsym.ErrNoSourceFile) {
		return engine.Location{}, engine.NoSourceFileError{File: file, Libraries: t.loadsLaterLibraries()}
	}
	if err != nil {
		return engine.Location{}, err
	}
	loc := t.location(pcs[0])
	t.addSites(pcs, loc.Func) // a trap at pcs[0] covers the line in every copy (sites.go)
	if fn := t.sym.FuncAt(pcs[0]); fn == nil || fn.Line != got || loc.Line < got {
		loc.Line = got // (a function's own line is past its prologue, on the line found there, as gdb says)
	}
	return loc, nil
}

// ResolveFunction implements engine.Target: the out-of-line copy's first statement, else
// the first inlined copy's. A trap there also covers every other copy (sites.go).
func (t *Target) ResolveFunction(name string) (engine.Location, error) {
	return t.resolveFunction(name, true)
}

// FunctionLocation implements engine.FunctionLocator: ResolveFunction for a look alone
// (list, info line), which leaves the traps' sites as they are.
func (t *Target) FunctionLocation(name string) (engine.Location, error) {
	return t.resolveFunction(name, false)
}

// FunctionFiles implements engine.FunctionLocator: the files of the program's functions
// named name, in the order of its debug information.
func (t *Target) FunctionFiles(name string) []string {
	var files []string
	for _, fn := range t.sym.FuncsNamed(name) {
		if f := t.location(fn.Start()).File; f != "" && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}

// resolveFunction is ResolveFunction; record says a breakpoint will be bound there, its
// other copies to be covered by the trap (addSites).
func (t *Target) resolveFunction(name string, record bool) (engine.Location, error) {
	addSites := t.addSites
	if !record {
		addSites = func([]uint64, string) {}
	}
	if file, fn, ok := fileAndFunction(name); ok { // b.c:helper, of the functions named helper the one b.c defines
		return t.resolveFunctionIn(file, fn, addSites)
	}
	pcs, err := t.sym.FuncBreakpoints(name)
	if err != nil && t.loadsLibraries() { // a loaded library's function (break write, break abort)
		t.addLibraries()
		pcs, err = t.sym.FuncBreakpoints(name) // one with debug information
	}
	if err != nil && t.loadsLibraries() {
		if fn, ok := t.libraryFunc(name); ok { // debug information names it otherwise (puts: __GI__IO_puts)
			bp := t.sym.BreakpointAt(fn)
			addSites([]uint64{bp}, fn.Name)
			return t.location(bp), nil
		}
		if pc, _, ok := t.sym.LibraryFunction(name); ok {
			pc = t.sym.SymbolBreakpoint(pc) // after the frame's setup, as gdb analyses a prologue without lines
			shown := name
			if n, ok := t.sym.LibrarySymbol(pc); ok { // the name gdb gives the address
				shown = n
			}
			return engine.Location{Func: shown, PC: pc, HasPC: true}, nil
		}
	}
	if err != nil && !t.started() && !errors.Is(err, elfsym.ErrNoCode) {
		// before the program runs, a library function binds to its PLT entry until the
		// library is loaded (LibrariesLoaded), as gdb binds it
		if pc, ok := t.sym.PLTEntry(name); ok {
			return engine.Location{Func: name + "@plt", PC: pc, HasPC: true, StandIn: true}, nil
		}
	}
	if err != nil && !errors.Is(err, elfsym.ErrNoCode) {
		return engine.Location{}, engine.NoFunctionError{Name: name, Libraries: t.loadsLaterLibraries()}
	}
	if err != nil {
		return engine.Location{}, err
	}
	addSites(pcs, name)
	return t.location(pcs[0]), nil
}

// fileAndFunction splits FILE:FUNCTION at its colon (not one of C++'s ::).
func fileAndFunction(s string) (file, fn string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != ':':
		case i+1 < len(s) && s[i+1] == ':':
			i++
		default:
			return s[:i], s[i+1:], i > 0 && i+1 < len(s)
		}
	}
	return "", "", false
}

// resolveFunctionIn is ResolveFunction of the copies of function fn that source file file
// has (gdb's break FILE:FUNCTION).
func (t *Target) resolveFunctionIn(file, fn string, addSites func([]uint64, string)) (engine.Location, error) {
	pcs, err := t.sym.FuncBreakpoints(fn)
	if err != nil {
		return engine.Location{}, err
	}
	pcs = slices.DeleteFunc(pcs, func(pc uint64) bool { return !engine.SourceFileIs(t.location(pc).File, file) })
	if len(pcs) == 0 {
		return engine.Location{}, fmt.Errorf("Function %q not defined in %q.", fn, file)
	}
	addSites(pcs, fn)
	return t.location(pcs[0]), nil
}

// loadsLibraries says whether the program runs with the shared libraries it loaded
// known to the stub: started, and not a core file.
func (t *Target) loadsLibraries() bool { return t.started() && t.core == nil }

// loadsLaterLibraries says whether shared libraries may bring what the program does not
// have: it is dynamically linked, and runs (not a core file's).
func (t *Target) loadsLaterLibraries() bool { return t.core == nil && t.sym.Interpreter() != "" }

// StatementStart implements engine.StatementStarts, by lines as gdb counts them.
func (t *Target) StatementStart(pc uint64) bool { return t.sym.LineStart(pc) }

// ResolvePC implements engine.InstructionResolver.
func (t *Target) ResolvePC(pc uint64) (engine.Location, error) {
	return t.location(t.clearThumb(pc)), nil
}

// location is the place of pc; its function is the innermost inlined copy holding pc, as
// the innermost frame of a backtrace there.
func (t *Target) location(pc uint64) engine.Location {
	l, _ := t.sym.PCToLine(pc)
	if in := t.sym.InlinesAt(pc); len(in) > 0 {
		l.Function = in[len(in)-1].Name
	}
	return engine.Location{File: l.File, Line: l.Line, Col: l.Column, Func: l.Function, PC: pc, HasPC: true}
}

// FunctionSignature implements engine.FunctionSignatures: a C++ function's signature
// (not an inlined copy's: gdb lists those by name).
func (t *Target) FunctionSignature(pc uint64) (string, bool) {
	if len(t.sym.InlinesAt(pc)) > 0 {
		return "", false
	}
	fn := t.sym.FuncAt(pc)
	if fn == nil {
		return "", false
	}
	if s := t.sym.Signature(fn); s != fn.Name {
		return s, true
	}
	return "", false
}

// SetTrap implements engine.Target: a breakpoint at loc.PC and at the other copies of
// the function whose breakpoint address it is (sites.go). While the target runs it is
// interrupted, the change made, and resumed.
func (t *Target) SetTrap(loc engine.Location, on bool) error {
	if !loc.HasPC {
		return fmt.Errorf("gdbremote: a trap needs an address")
	}
	key := loc.PC
	t.mu.Lock()
	pcs := append([]uint64{key}, t.sites[key]...)
	t.mu.Unlock()
	apply := func() error {
		for _, pc := range pcs {
			if err := t.setOneTrap(pc, key, on); err != nil {
				return err
			}
		}
		return nil
	}
	if !on {
		t.mu.Lock()
		delete(t.sites, key) // the breakpoints that bound here are gone
		t.mu.Unlock()
	}
	return t.whileStopped(apply)
}

// setOneTrap plants (or removes) the stub's breakpoint at pc for the trap set at key.
func (t *Target) setOneTrap(pc, key uint64, on bool) error {
	t.mu.Lock()
	tr := t.traps[pc]
	t.mu.Unlock()
	if on {
		if tr != nil {
			t.mu.Lock()
			if !slices.Contains(tr.keys, key) {
				tr.keys = append(tr.keys, key)
			}
			t.mu.Unlock()
			return nil
		}
		k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen)
		if err != nil {
			return err
		}
		t.mu.Lock()
		t.traps[pc] = &trap{kind: k, keys: []uint64{key}}
		t.mu.Unlock()
		return nil
	}
	if tr == nil {
		return nil
	}
	t.mu.Lock()
	tr.keys = slices.DeleteFunc(tr.keys, func(k uint64) bool { return k == key })
	last := len(tr.keys) == 0
	if last {
		delete(t.traps, pc)
	}
	t.mu.Unlock()
	if !last {
		return nil
	}
	return t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen)
}

// SetTrapConditions makes the stub itself evaluate the trap at loc: it reports the trap
// only when one of conds is true. Every condition must have been made by this target's
// CompileCondition and be simple enough for an agent expression (CanRunOnStub), and the
// stub must support it (gdbserver does); otherwise it returns an error wrapping
// ErrNotCompilable or ErrUnsupported and the trap is unconditional (the session then
// checks every condition itself). A nil conds makes it unconditional again. The session
// calls it when every breakpoint at loc has a condition and no log message (hit counts
// still work: they count true hits).
func (t *Target) SetTrapConditions(loc engine.Location, conds []engine.Condition) error {
	var exprs [][]byte
	var cerr error
	if !t.c.Supports("ConditionalBreakpoints") && len(conds) > 0 {
		cerr = fmt.Errorf("%w: target-side conditions", ErrUnsupported)
	}
	for _, c := range conds {
		if cerr != nil {
			break
		}
		hc, ok := c.(*hostCond)
		if !ok || hc.agent == nil {
			cerr = fmt.Errorf("%w: %v", ErrNotCompilable, c)
			break
		}
		exprs = append(exprs, hc.agent)
	}
	if cerr != nil {
		exprs = nil // unconditional: a condition the stub cannot check must still stop it
	}
	pc := loc.PC
	err := t.whileStopped(func() error {
		t.mu.Lock()
		tr := t.traps[pc]
		t.mu.Unlock()
		if tr == nil {
			return fmt.Errorf("gdbremote: no trap at %#x", pc)
		}
		if tr.conds == nil && exprs == nil {
			return nil // already unconditional
		}
		if err := t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen); err != nil {
			return err
		}
		k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen, exprs...)
		if err != nil {
			k, _ = t.c.SetBreakpoint(t.ctx, pc, t.bpLen)
			exprs = nil
		}
		t.mu.Lock()
		t.traps[pc] = &trap{kind: k, conds: exprs, keys: tr.keys}
		t.mu.Unlock()
		return err
	})
	if cerr != nil {
		return cerr
	}
	return err
}

type trap struct {
	kind  BreakKind
	conds [][]byte // agent expressions, when the stub evaluates them
	keys  []uint64 // the addresses the session set traps at that cover this one (sites.go)
}

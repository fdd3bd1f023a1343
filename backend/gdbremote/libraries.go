package gdbremote

// Unwinding through shared libraries: when a backtrace reaches a pc in no code the
// symbols know (a thread waiting in libc, a callback from a library), the libraries the
// dynamic linker has loaded (qXfer:libraries-svr4) are added to the symbols and the stack
// is unwound again, through the libraries' call frame information.

import (
	"context"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// unwindThroughLibraries returns fs, or the stack unwound again once the libraries are
// known when a frame's pc is in code the symbols do not have: the last one (a thread
// waiting in libc), or an inner one that the frame pointer walked past to the program's
// own code (a signal raised in libc, whose raise() keeps no frame pointer).
func (t *Target) unwindThroughLibraries(fs []elfsym.Frame) []elfsym.Frame {
	unknown := false
	for i := range fs {
		if !t.sym.HasCodeAt(fs[i].PC) {
			unknown = true
			break
		}
	}
	if !unknown || !t.addLibraries() {
		return fs
	}
	if again, err := t.sym.Unwind(dwarfRegs{t}, cachedMem{t}, 256); err == nil {
		return again
	}
	return fs
}

// anySymbol is the address of the symbol name in the program or a library it loaded (the
// libraries read first when they were not yet).
func (t *Target) anySymbol(name string) (uint64, bool) {
	if a, ok := t.sym.AnySymbol(name); ok {
		return a, true
	}
	if !t.addLibraries() {
		return 0, false
	}
	return t.sym.AnySymbol(name)
}

// functionSymbol is the function of the program or a library it loaded that only a symbol
// table names (the libraries read first when they were not yet).
func (t *Target) functionSymbol(name string) (elfsym.MinSym, bool) {
	return t.loadedSymbol(name, t.sym.FunctionSymbol)
}

// dataSymbol is the variable of the program or a library it loaded that only a symbol
// table names (the libraries read first when they were not yet).
func (t *Target) dataSymbol(name string) (elfsym.MinSym, bool) {
	return t.loadedSymbol(name, t.sym.DataSymbol)
}

// loadedSymbol is what find finds of name, with the loaded libraries read first when it
// finds nothing and they were not yet.
func (t *Target) loadedSymbol(name string, find func(string) (elfsym.MinSym, bool)) (elfsym.MinSym, bool) {
	if m, ok := find(name); ok {
		return m, true
	}
	if !t.started() || !t.addLibraries() {
		return elfsym.MinSym{}, false
	}
	return find(name)
}

// symbolVariable is the variable a data symbol without debug information is: read with the
// type an extern declaration gives it (extern int counter;), as gdb reads it, else without
// a type (elfsym.NoDebugData).
func (t *Target) symbolVariable(m elfsym.MinSym) (elfsym.Value, error) {
	dv := elfsym.NoDebugData(m)
	typ, declaredIn, ok := t.sym.ExternType(m.Name)
	if !ok {
		return dv, nil
	}
	v, err := declaredIn.ReadAs(typ, dv, cachedMem{t})
	v.Name = m.Name
	return v, err
}

// librariesLoaded reads the libraries the dynamic linker has loaded (their symbols, and
// all of the debug information one was built with) and tells h, so that breakpoints
// waiting for them are placed.
func (t *Target) librariesLoaded(h engine.Handler) {
	t.addLibraries()
	t.armLibraryEvents()
	if ll, ok := h.(engine.LibraryLoads); ok {
		ll.LibrariesLoaded()
	}
}

// addLibraries adds the loaded shared libraries found on this host to the symbols; it
// reports whether the stub listed any.
func (t *Target) addLibraries() bool {
	libs, _ := t.readLibraries(t.ctx)
	for _, l := range libs {
		_ = t.sym.AddLibrary(l.Path, l.Base) // one that is not on this host is not walked through
	}
	t.tellLibraryWarnings()
	return len(libs) > 0
}

// tellLibraryWarnings writes what reading the libraries just added found wrong, as gdb
// says it when it reads them.
func (t *Target) tellLibraryWarnings() {
	for _, w := range t.sym.TakeLibraryWarnings() {
		t.output("console", w+"\n")
	}
}

// readLibraries is the stub's list of the libraries the dynamic linker has loaded; none
// from a stub that does not list them.
func (t *Target) readLibraries(ctx context.Context) ([]engine.Module, error) {
	if !t.c.Supports("qXfer:libraries-svr4:read") {
		return nil, nil
	}
	b, err := t.c.ReadXfer(ctx, "libraries-svr4", "")
	if err != nil {
		return nil, err
	}
	return parseLibrariesSVR4(b)
}

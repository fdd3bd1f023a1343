package gdbremote

// Target: the dynamic linker's library events. glibc's dynamic linker calls
// _dl_debug_state (r_debug's r_brk) whenever its list of loaded objects changes, so that
// debuggers may look: at dlopen and dlclose, before and after the change. A breakpoint
// there, set once the program has started, tells polydbg of a library loaded later: its
// symbols and debug information are read, the breakpoints waiting for it placed (the
// engine's LibrariesLoaded), and the run goes on, as gdb's solib events do; a continue
// stops there when asked to (engine.LibraryCatcher: catch load, catch unload).

import (
	"fmt"
	"syscall"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

var _ engine.LibraryCatcher = (*Target)(nil)

// CatchLibraries implements engine.LibraryCatcher.
func (t *Target) CatchLibraries(on bool) error {
	if on && (t.sym.Interpreter() == "" || t.core != nil) {
		return ErrUnsupported // a static program loads no library
	}
	t.mu.Lock()
	t.catchLibs = on
	t.mu.Unlock()
	return nil
}

// libraryEventFunc is the function of the dynamic linker a debugger breaks on.
const libraryEventFunc = "_dl_debug_state"

// armLibraryEvents sets the breakpoint on the dynamic linker's event function (the
// program started, its libraries read); a static program or a stub that does not list
// libraries has none.
func (t *Target) armLibraryEvents() {
	t.mu.Lock()
	armed := t.libEvent != 0
	t.mu.Unlock()
	if armed || t.core != nil || t.sym.Interpreter() == "" || !t.c.Supports("qXfer:libraries-svr4:read") {
		return
	}
	addr, _, ok := t.sym.LibraryFunction(libraryEventFunc)
	if !ok {
		return
	}
	if _, err := t.c.SetBreakpoint(t.ctx, addr, t.bpLen); err != nil {
		t.log.Warn("gdbremote: no library events", "err", err)
		return
	}
	t.libraryChanges() // the libraries loaded so far: the events tell of others
	t.mu.Lock()
	t.libEvent = addr
	t.mu.Unlock()
}

// armLibraryEventsAtStart sets the event breakpoint at the program's first instruction,
// when a catch load asks for the libraries loaded before the entry point too, as gdb stops
// for the C library's load (the events are otherwise read from the entry point on).
func (t *Target) armLibraryEventsAtStart() {
	t.mu.Lock()
	catching := t.catchLibs
	t.mu.Unlock()
	if !catching || t.attached || t.core != nil {
		return
	}
	t.noteInterpreter(t.sym)
	t.armLibraryEvents()
	t.mu.Lock()
	if t.libsKnown != nil {
		t.libsKnown[t.sym.Interpreter()] = true // known from the start, as gdb knows it
	}
	t.mu.Unlock()
}

// atLibraryEvent says whether sr is a stop at the event breakpoint.
func (t *Target) atLibraryEvent(sr StopReply) bool {
	t.mu.Lock()
	addr := t.libEvent
	t.mu.Unlock()
	if addr == 0 || sr.Kind != StopSignal || sr.Signal != int(syscall.SIGTRAP) {
		return false
	}
	pc, err := t.pc()
	return err == nil && pc == addr
}

// startupLibraryEvent handles the event breakpoint's stop on the way to the entry point:
// the stop to report when libraries are caught, else nil once the thread stepped off it.
func (t *Target) startupLibraryEvent() (*engine.Stop, error) {
	changes := t.libraryChanges()
	t.mu.Lock()
	catching := t.catchLibs
	t.mu.Unlock()
	if catching { // (the engine lets the program go on when no catchpoint wants the stop)
		return libraryStop(changes), nil
	}
	other, err := t.stepOffLibraryEvent()
	if err != nil {
		return nil, err
	}
	if other != nil {
		return nil, stoppedBeforeEntry(*other)
	}
	return nil, nil
}

// stoppedBeforeEntry says that the program ended or got a signal on its way to its entry
// point, as a step off the event breakpoint found it.
func stoppedBeforeEntry(sr StopReply) error {
	if sr.Exited() {
		return fmt.Errorf("gdbremote: the program ended before its entry point")
	}
	return fmt.Errorf("gdbremote: the program stopped with signal %s before its entry point", SignalName(sr.Signal))
}

// disarmLibraryEvents takes the event breakpoint out (before a detach).
func (t *Target) disarmLibraryEvents() error {
	t.mu.Lock()
	addr := t.libEvent
	t.libEvent = 0
	t.mu.Unlock()
	if addr == 0 {
		return nil
	}
	return t.c.ClearBreakpoint(t.ctx, SoftwareBreak, addr, t.bpLen)
}

// libraryEvent handles sr, the stop of a continue, when it is at the event breakpoint: the
// libraries are read again and the handler told, the trap changes it asks for made
// meanwhile; then, when catching (a continue's own, catch load asked for), the error is
// the stop there (ReasonLibrary, what changed), and otherwise the thread steps off the
// breakpoint. It reports whether sr was such a stop, and the stop the step off ended with
// when that is not a plain step (a signal, the end), which is then the caller's.
func (t *Target) libraryEvent(sr StopReply, catching bool) (handled bool, other *StopReply, err error) {
	if !t.atLibraryEvent(sr) {
		return false, nil, nil
	}
	t.mu.Lock()
	h := t.h
	catching = catching && t.catchLibs
	t.mu.Unlock()
	changes := t.libraryChanges()
	if ll, ok := h.(engine.LibraryLoads); ok {
		t.serveWhile(ll.LibrariesLoaded)
	}
	if mr, ok := h.(engine.ModuleReporter); ok && len(changes) > 0 {
		if mods, err := t.moduleList(t.ctx); err == nil {
			mr.ModulesChanged(mods) // (told now, not at the next stop)
		}
	}
	if catching {
		return true, nil, &trapStopError{st: libraryStop(changes)}
	}
	other, err = t.stepOffLibraryEvent()
	return true, other, err
}

// libraryStop is the stop at the event breakpoint, saying what changed.
func libraryStop(changes []engine.LibraryChange) *engine.Stop {
	return &engine.Stop{Reason: engine.ReasonLibrary, Text: engine.LibraryChangeText(changes)}
}

// stepOffLibraryEvent steps the thread at the event breakpoint off it; other is the
// step's stop when that is not a plain step (a signal, the end).
func (t *Target) stepOffLibraryEvent() (other *StopReply, err error) {
	t.mu.Lock()
	addr := t.libEvent
	t.mu.Unlock()
	step, err := t.c.StepOver(t.ctx, t.stepThread(), SoftwareBreak, addr, t.bpLen)
	if err != nil {
		return nil, err
	}
	t.newStop(step)
	if step.Kind != StopSignal || step.Signal != int(syscall.SIGTRAP) {
		return &step, nil
	}
	return nil, nil
}

// libraryChanges reads the libraries again, adds the new ones to the symbols and says
// what changed since the last event, in the stub's order: the loaded, then the unloaded.
func (t *Target) libraryChanges() []engine.LibraryChange {
	libs, _ := t.readLibraries(t.ctx)
	now := map[string]bool{}
	var changes []engine.LibraryChange
	t.mu.Lock()
	before := t.libsKnown
	t.mu.Unlock()
	for _, l := range libs {
		_ = t.sym.AddLibrary(l.Path, l.Base)
		now[l.Path] = true
		if before != nil && !before[l.Path] {
			changes = append(changes, engine.LibraryChange{Path: l.Path})
		}
	}
	t.tellLibraryWarnings()
	for _, l := range t.libsOrder {
		if !now[l] {
			changes = append(changes, engine.LibraryChange{Path: l, Unloaded: true})
		}
	}
	order := make([]string, 0, len(libs))
	for _, l := range libs {
		order = append(order, l.Path)
	}
	t.mu.Lock()
	t.libsKnown, t.libsOrder = now, order
	t.mu.Unlock()
	return changes
}

// serveWhile runs fn, which may ask for work on the stopped target (whileStopped: trap
// changes), and does that work here, in the run loop, until fn returns.
func (t *Target) serveWhile(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	for {
		t.mu.Lock()
		ops := t.takePending()
		t.mu.Unlock()
		if len(ops) > 0 {
			runPending(ops)
			continue
		}
		select {
		case <-done:
			t.mu.Lock()
			ops := t.takePending()
			t.mu.Unlock()
			runPending(ops)
			return
		case <-t.opQueued:
		}
	}
}

var _ engine.DebugFileReader = (*Target)(nil)

// SetDebugDirs implements engine.DebugFileReader.
func (t *Target) SetDebugDirs(dirs []string) { t.sym.SetDebugDirs(elfsym.DebugDirs(dirs)) }

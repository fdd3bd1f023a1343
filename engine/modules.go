package engine

import (
	"context"
	"fmt"
)

// Module is an executable file mapped into the debuggee: the program itself or a shared
// library it loaded.
type Module struct {
	Name    string // the file's base name
	Path    string // as the dynamic linker (or the launch) names it
	Base    uint64 // where it is loaded: its load bias (0 for a fixed executable)
	Symbols bool   // polydbg has its symbols (the program); libraries are shown only

	// Of a library whose file is at hand: where its code lies as loaded (0, 0 when unknown),
	// whether debug information for it exists, whether it is the dynamic linker.
	TextStart, TextEnd uint64
	DebugInfo          bool
	Interpreter        bool
	// DebugRead: polydbg reads the library's debug information (its own file has it): its
	// functions, lines and variables are known as the program's are.
	DebugRead bool
}

// ModuleLister is implemented by targets that know their loaded modules (a program under
// gdbserver: the executable and the libraries of qXfer:libraries-svr4).
type ModuleLister interface {
	Modules(ctx context.Context) ([]Module, error)
}

// Modules lists the loaded modules of a stopped (or not yet started) debuggee;
// ErrUnsupported for targets that do not know them.
func (s *Session) Modules(ctx context.Context) ([]Module, error) {
	ml, ok := s.t.(ModuleLister)
	if !ok {
		return nil, fmt.Errorf("modules: %w", ErrUnsupported)
	}
	if err := s.checkHalted("list modules"); err != nil {
		return nil, err
	}
	return ml.Modules(ctx)
}

// checkHalted is checkStopped that also lets a debuggee not started yet through (a
// target behind a stub is halted then, and can be asked what it has).
func (s *Session) checkHalted(what string) error {
	if s.State() == Initialized {
		return nil
	}
	return s.checkStopped(what)
}

// EventModules says that the program's modules changed while it ran (a library loaded or
// unloaded): Event.Modules lists them all as they are now.
const EventModules EventKind = "modules"

// ModuleReporter is implemented by the Handler a session gives its target: a target that
// sees the dynamic linker load or unload a library while the program runs reports the
// modules then (found by type assertion on the Handler), so that subscribers learn of them
// without waiting for a stop.
type ModuleReporter interface {
	ModulesChanged(mods []Module)
}

var _ ModuleReporter = handler{}

// ModulesChanged implements ModuleReporter.
func (h handler) ModulesChanged(mods []Module) {
	h.s.mu.Lock()
	defer h.s.mu.Unlock()
	if !h.s.state.Ended() {
		h.s.emit(Event{Kind: EventModules, Modules: mods})
	}
}

package gdbremote

// Target: where a C++ program throws, rethrows and catches exceptions (engine's
// ExceptionSites), as gdb finds it: libstdc++'s SystemTap probe for the event, else the
// runtime function that does it.

import (
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

// exceptionFuncs are the C++ runtime's functions for each event, where a runtime has no
// probes.
var exceptionFuncs = map[string]string{
	engine.ExceptionThrow: "__cxa_throw", engine.ExceptionRethrow: "__cxa_rethrow", engine.ExceptionCatch: "__cxa_begin_catch",
}

// ExceptionSite implements engine.ExceptionSites.
func (t *Target) ExceptionSite(event string) (engine.Location, error) {
	fn, ok := exceptionFuncs[event]
	if !ok {
		return engine.Location{}, fmt.Errorf("no exception event %q", event)
	}
	if !t.started() || t.core != nil {
		return engine.Location{}, fmt.Errorf("the program is not running")
	}
	t.addLibraries()
	if pc, ok := t.sym.ProbeAddress("libstdcxx", event); ok {
		return t.location(pc), nil
	}
	if pc, _, ok := t.sym.LibraryFunction(fn); ok {
		return t.location(pc), nil
	}
	if f, ok := t.sym.FuncByName(fn); ok { // linked in statically
		return t.location(f.Low + t.sym.Bias), nil
	}
	return engine.Location{}, fmt.Errorf("no C++ runtime loaded")
}

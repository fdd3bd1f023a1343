package gdbremote

// Target: detaching (engine.Detacher): the traps (and thread event breakpoints) are removed and the stub told to let the
// program run on ('D'); gdbserver --once then exits, the program goes on.

import (
	"errors"

	"github.com/polydbg/polydbg/engine"
)

var _ engine.Detacher = (*Target)(nil)

// Detach implements engine.Detacher.
func (t *Target) Detach() error {
	if err := t.needStopped(); err != nil {
		return EngineError(err)
	}
	t.mu.Lock()
	traps, watches := t.traps, t.watches
	t.traps, t.watches = map[uint64]*trap{}, nil
	t.mu.Unlock()
	var errs []error
	if err := t.c.DisableThreadEvents(t.ctx); err != nil {
		errs = append(errs, err)
	}
	if err := t.disarmLibraryEvents(); err != nil {
		errs = append(errs, err)
	}
	for pc, tr := range traps {
		if err := t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen); err != nil {
			errs = append(errs, err)
		}
	}
	for _, w := range watches {
		if err := t.c.ClearWatchpoint(t.ctx, w.kind, w.Addr, w.Size); err != nil {
			errs = append(errs, err)
		}
	}
	if err := t.c.Detach(t.ctx); err != nil {
		return EngineError(errors.Join(append(errs, err)...))
	}
	t.mu.Lock()
	t.ended, t.killing = true, true // nothing more is reported: the session has let go
	t.mu.Unlock()
	return EngineError(errors.Join(errs...))
}

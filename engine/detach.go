package engine

import (
	"context"
	"fmt"
)

// Detacher is implemented by targets that can let the debuggee go: Detach removes every
// trap and leaves the program running on its own (gdb's `detach`). It is called on a
// stopped target; afterwards the target only needs Close.
type Detacher interface {
	Detach() error
}

// Detach lets the debuggee run on without the debugger: a running target is paused
// first (one not started yet is let go as it is), then the target detaches and the session ends (EventTerminated), without
// killing anything. Targets that cannot detach get ErrUnsupported.
func (s *Session) Detach(ctx context.Context) error {
	d, ok := s.t.(Detacher)
	if !ok {
		return fmt.Errorf("detach: %w", ErrUnsupported)
	}
	switch s.State() {
	case Exited, Terminated:
		return nil
	case Running:
		if err := s.pauseAndWait(ctx); err != nil {
			return err
		}
	}
	if st := s.State(); st != Stopped && st != Initialized {
		return fmt.Errorf("cannot detach: the debuggee is %v", st)
	}
	if err := d.Detach(); err != nil {
		return fmt.Errorf("detach: %w", err)
	}
	s.quitOnce.Do(func() { close(s.quit) })
	s.end(Terminated, 0)
	return nil
}

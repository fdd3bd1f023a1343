package engine

import (
	"context"
	"fmt"
)

// Threads lists the threads of a stopped (or not yet started) debuggee whose target has
// them (ThreadLister); ErrUnsupported otherwise.
func (s *Session) Threads(ctx context.Context) ([]Thread, error) {
	tl, ok := s.t.(ThreadLister)
	if !ok {
		return nil, fmt.Errorf("threads: %w", ErrUnsupported)
	}
	if err := s.checkHalted("list threads"); err != nil {
		return nil, err
	}
	return tl.Threads(ctx)
}

// checkHalted is checkStopped that also lets a debuggee not started yet through (a
// target behind a stub is halted then, and can be asked what it has).
func (s *Session) checkHalted(what string) error {
	if s.State() == Initialized {
		return nil
	}
	return s.checkStopped(what)
}

// SelectThread makes thread id the one that the stack, variables, registers and the next
// step apply to (ThreadSelector), on a stopped debuggee; the other threads stay stopped.
// Selecting the thread already selected costs nothing.
func (s *Session) SelectThread(id uint64) error {
	ts, ok := s.t.(ThreadSelector)
	if !ok {
		return fmt.Errorf("select a thread: %w", ErrUnsupported)
	}
	if err := s.checkStopped("select a thread"); err != nil {
		return err
	}
	if ts.SelectedThread() == id {
		return nil
	}
	return ts.SelectThread(id)
}

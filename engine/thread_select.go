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
	if st := s.State(); st != Initialized {
		if err := s.checkStopped("list threads"); err != nil {
			return nil, err
		}
	}
	return tl.Threads(ctx)
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

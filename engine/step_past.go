package engine

import (
	"context"
	"fmt"
)

// StepPast is gdb's until without a location: a step over, except that a step landing on
// code at or before the current line's in this frame (a loop's head, its body again) goes
// on, until code past it is reached or the frame returns, or something else stops the
// program (a breakpoint, a pause). It returns the halt it ended with.
func (s *Session) StepPast(ctx context.Context) (Halt, error) {
	fs, err := s.Stack()
	if err != nil {
		return Halt{}, err
	}
	if len(fs) == 0 {
		return Halt{}, fmt.Errorf("until: %w", ErrNoFrame)
	}
	here, depth := fs[0].Location, len(fs)
	for {
		seq := s.Seq()
		if err := s.Step(StepOver); err != nil {
			return Halt{}, err
		}
		h, err := s.WaitStop(ctx, seq)
		if err != nil || h.State != Stopped || h.Stop == nil || h.Stop.Reason != ReasonStep {
			return h, err
		}
		now, err := s.Stack()
		if err != nil || len(now) != depth || now[0].Location.Func != here.Func || !behind(now[0].Location, here) {
			return h, nil
		}
	}
}

// behind reports whether a step that landed at now went back from here: to code at or
// before here's, as gdb's until sees it (a C loop's increment, placed after its body, is
// ahead), or to an earlier line where there are no code addresses.
func behind(now, here Location) bool {
	if now.HasPC && here.HasPC {
		return now.PC <= here.PC
	}
	return now.File == here.File && now.Line <= here.Line
}

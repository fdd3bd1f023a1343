package engine

import (
	"context"
	"fmt"
)

// Finish runs until the frame numbered frame (0 the innermost) has returned, as gdb's
// finish from a frame selected with up: one step out per frame, each stopping in the
// caller right after the call with the returned value in its stop. It ends early where
// something else stops the program (a breakpoint, a pause, a signal, the end) and returns
// the last halt.
func (s *Session) Finish(ctx context.Context, frame int) (Halt, error) {
	if frame < 0 {
		return Halt{}, fmt.Errorf("finish: no frame %d", frame)
	}
	var h Halt
	for range frame + 1 {
		seq := s.Seq()
		if err := s.Step(StepOut); err != nil {
			return h, err
		}
		var err error
		if h, err = s.WaitStop(ctx, seq); err != nil {
			return h, err
		}
		if h.State != Stopped || h.Stop == nil || h.Stop.Reason != ReasonStep {
			break // something else stopped it on the way, or it ended
		}
	}
	return h, nil
}

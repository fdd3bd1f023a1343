package engine

import (
	"context"
	"fmt"
	"slices"
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
	outs, dummy, want := frame+1, false, -1
	if fs, err := s.Stack(); err == nil && frame < len(fs) {
		want = len(fs) - frame - 1 // the frames left once the selected one has returned
		// A call from the debugger's frame goes with the return of the function it called: no
		// step out of its own. Finishing one is running until the function above it returns.
		dummy = fs[frame].Dummy
		for _, f := range fs[:frame+1] {
			if f.Dummy {
				outs--
			}
		}
	}
	last := false // the stop is the last step out's
	for i := range outs {
		last = i == outs-1
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
		if !last && want >= 0 {
			// A step out of an inlined copy that ends its function returns from both:
			// the frames left say when the selected one has returned.
			if fs, err := s.Stack(); err == nil && len(fs) <= want {
				last = true
				break
			}
		}
	}
	if h.Stop != nil && h.Stop.Reason == ReasonCallReturned {
		// A function called from the debugger returned. The finish of that very function
		// is a finish's stop, with its value; one that was to go further stops there
		// silently, as gdb's.
		st := *h.Stop
		if last && !dummy {
			st.Reason = ReasonStep
		} else {
			st.ReturnValue = nil
		}
		h.Stop = &st
	}
	return h, nil
}

// NextInstruction runs one instruction and, when that entered a call, on until the call
// has returned (gdb's nexti): it stops at the instruction after the call, or where
// something else stops the program first.
func (s *Session) NextInstruction(ctx context.Context) (Halt, error) {
	depth, err := s.Depth()
	if err != nil {
		return Halt{}, err
	}
	seq := s.Seq()
	if err := s.Step(StepInstruction); err != nil {
		return Halt{}, err
	}
	h, err := s.WaitStop(ctx, seq)
	if err != nil || h.State != Stopped || h.Stop == nil || h.Stop.Reason != ReasonStep {
		return h, err
	}
	if now, err := s.Depth(); err != nil || now <= depth {
		return h, err
	}
	return s.Finish(ctx, 0)
}

// Advance runs to the location spec names (gdb's advance, and until LOCATION) through a
// temporary breakpoint of its own, removed again whatever stops the program first; like
// gdb's, it also stops where the frame numbered frame (0 the innermost; gdb's selected
// frame) returns first: one step out per frame up to it, any of which the breakpoint or
// something else ends. From the outermost frame it continues. It returns the halt and the
// id the temporary breakpoint had.
func (s *Session) Advance(ctx context.Context, spec BreakpointSpec, frame int) (Halt, int, error) {
	frames, err := s.Stack()
	if err != nil {
		return Halt{}, 0, err
	}
	if frame < 0 || frame >= len(frames) {
		return Halt{}, 0, fmt.Errorf("advance: no frame %d", frame)
	}
	spec.Temporary = true
	bp, err := s.SetBreakpoint(spec)
	if err != nil {
		return Halt{}, 0, err
	}
	defer func() {
		if slices.ContainsFunc(s.Breakpoints(), func(b Breakpoint) bool { return b.ID == bp.ID }) {
			_ = s.RemoveBreakpoint(bp.ID) // something else stopped the program first
		}
		s.mu.Lock()
		if s.nextID == bp.ID { // momentary, as gdb's: its number is the next breakpoint's
			s.nextID--
		}
		s.mu.Unlock()
	}()
	if frame == len(frames)-1 { // the outermost: nothing to return to
		seq := s.Seq()
		if err := s.Resume(Continue); err != nil {
			return Halt{}, bp.ID, err
		}
		h, err := s.WaitStop(ctx, seq)
		return h, bp.ID, err
	}
	h, err := s.Finish(ctx, frame)
	return h, bp.ID, err
}

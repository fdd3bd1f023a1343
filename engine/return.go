package engine

import "fmt"

// ReasonReturn is the stop Session.Return makes: frames were discarded, nothing ran.
const ReasonReturn StopReason = "return"

// FramePopper is implemented by targets that can make a function return at once, without
// running the rest of it (gdb's return).
type FramePopper interface {
	// PopFrames discards frame (0 the innermost) and every frame it called, leaving the
	// stopped thread in its caller right after the call, with the registers the caller
	// had there. value, when not "", is an expression evaluated in frame and left where
	// the function's return value goes, converted to its type. It returns the new
	// innermost location.
	PopFrames(frame int, value string) (Location, error)
}

// Return makes the function of frame return to its caller at once (FramePopper), with
// value as its returned value when not "", and reports it as a new stop (ReasonReturn) in
// the caller, in the thread that was stopped. The frames popped are not run: their
// side effects after the stop never happen. ErrUnsupported for targets that cannot.
func (s *Session) Return(frame int, value string) error {
	p, ok := s.t.(FramePopper)
	if !ok {
		return fmt.Errorf("return: %w", ErrUnsupported)
	}
	if frame < 0 {
		return fmt.Errorf("return: %w", ErrNoFrame)
	}
	s.takeWatches()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needStopped("return"); err != nil {
		return err
	}
	loc, err := p.PopFrames(frame, value)
	if err != nil {
		return err
	}
	stop := Stop{Reason: ReasonReturn, Location: loc}
	if s.lastStop != nil {
		stop.ThreadID = s.lastStop.ThreadID
	}
	s.lastStop = &stop
	s.emit(Event{Kind: EventStopped, Stop: &stop})
	s.halted(Stopped, &stop, 0)
	return nil
}

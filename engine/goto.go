package engine

import "fmt"

// ReasonGoto is the stop Session.Goto makes: the program was moved, not run.
const ReasonGoto StopReason = "goto"

// Jumper is implemented by targets whose innermost frame can be moved to another
// statement of its function without running anything (gdb's jump, DAP's goto).
type Jumper interface {
	// JumpTargets returns the statement starts of file:line that the innermost frame of
	// the stopped program may move to: in its own function, from where the program can go
	// on (for Kite, inside the same loops). None is not an error.
	JumpTargets(file string, line int) ([]Location, error)
	// Jump moves the innermost frame to loc, one of JumpTargets' locations.
	Jump(loc Location) error
}

// GotoTargets returns where the stopped debuggee's innermost frame may be moved for a
// source line (Jumper); ErrUnsupported for targets that cannot.
func (s *Session) GotoTargets(file string, line int) ([]Location, error) {
	j, ok := s.t.(Jumper)
	if !ok {
		return nil, fmt.Errorf("goto: %w", ErrUnsupported)
	}
	if err := s.checkStopped("goto"); err != nil {
		return nil, err
	}
	return j.JumpTargets(file, line)
}

// Goto moves the stopped debuggee's innermost frame to loc (one of GotoTargets') and
// reports it as a new stop (ReasonGoto) at loc, in the thread that was stopped; the
// watches keep their values of the stop before.
func (s *Session) Goto(loc Location) error {
	j, ok := s.t.(Jumper)
	if !ok {
		return fmt.Errorf("goto: %w", ErrUnsupported)
	}
	s.takeWatches()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.needStopped("goto"); err != nil {
		return err
	}
	if err := j.Jump(loc); err != nil {
		return err
	}
	stop := Stop{Reason: ReasonGoto, Location: loc}
	if s.lastStop != nil {
		stop.ThreadID, stop.FrameIndex = s.lastStop.ThreadID, s.lastStop.FrameIndex
	}
	s.lastStop = &stop
	s.emit(Event{Kind: EventStopped, Stop: &stop})
	s.halted(Stopped, &stop, 0)
	return nil
}

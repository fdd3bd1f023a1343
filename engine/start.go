package engine

// Starting the debuggee: at its entry point (or stopped there), or at its very first
// instruction (gdb's starti).

import "fmt"

// Start runs the debuggee, stopping on entry when asked.
func (s *Session) Start(stopOnEntry bool) error {
	return s.startWith(func(h Handler) error { return s.t.Start(h, stopOnEntry) })
}

// startWith moves the session from Initialized to Running and starts the target with
// start; a start that fails ends the session.
func (s *Session) startWith(start func(Handler) error) error {
	s.mu.Lock()
	if s.state != Initialized {
		st := s.state
		s.mu.Unlock()
		return fmt.Errorf("cannot start: the program is %s", st)
	}
	s.state = Running
	s.emit(Event{Kind: EventStarted})
	s.mu.Unlock()
	if err := start(handler{s}); err != nil {
		s.end(Terminated, 0)
		return err
	}
	return nil
}

// FirstInstructionStarter is implemented by targets that can start the program stopped at
// its very first instruction (gdb's starti), before its entry point.
type FirstInstructionStarter interface {
	StartAtFirstInstruction(h Handler) error
}

// StartAtFirstInstruction starts the debuggee stopped at its first instruction (a stop
// with ReasonEntry); ErrUnsupported for targets that cannot.
func (s *Session) StartAtFirstInstruction() error {
	fs, ok := s.t.(FirstInstructionStarter)
	if !ok {
		return fmt.Errorf("start at the first instruction: %w", ErrUnsupported)
	}
	return s.startWith(fs.StartAtFirstInstruction)
}

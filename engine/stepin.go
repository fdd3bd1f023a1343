package engine

import (
	"fmt"
	"sync/atomic"
)

// CallTarget is a function the statement where the program stopped calls, which a step
// into may enter by name (DAP's stepInTargets), listed in the order the statement calls
// them.
type CallTarget struct {
	Function string // as the target names functions in frames and to a StepFilter
	Line     int    // the call's line, its column when known (0: not)
	Column   int
}

// CallLister is implemented by targets that can list the calls of known functions the
// statement at the top frame's pc makes from there on (not those through a pointer or a
// value computed at run time, which cannot be known before they run).
type CallLister interface {
	StatementCalls() ([]CallTarget, error)
}

// StatementCalls lists the calls the statement where the program stopped makes from there
// on; ErrUnsupported for a target that cannot list them.
func (s *Session) StatementCalls() ([]CallTarget, error) {
	if err := s.checkStopped("list calls"); err != nil {
		return nil, err
	}
	cl, ok := s.t.(CallLister)
	if !ok {
		return nil, fmt.Errorf("list calls: %w", ErrUnsupported)
	}
	return cl.StatementCalls()
}

// stepInto is the function a step into targets (StepIntoTarget) until the step stops.
type stepInto struct {
	target atomic.Pointer[string]
	skip   atomic.Int32               // calls of target still to pass over
	user   atomic.Pointer[StepFilter] // the filter SetStepFilter set
}

// filter is the step filter the session gives the target: while a step into a target runs,
// every function but it is passed over, and its calls before the one wanted; else the
// user's filter decides.
func (si *stepInto) filter(function, file string) bool {
	if t := si.target.Load(); t != nil {
		return function != *t || si.skip.Add(-1) >= 0
	}
	if u := si.user.Load(); u != nil {
		return (*u)(function, file)
	}
	return false
}

// StepIntoTarget steps into a call of function the statement makes (one of
// StatementCalls'), its nth from here (0 for the first), passing over the others: the
// program stops at the function's first line, or where a step over would have stopped
// when the statement does not make that call.
func (s *Session) StepIntoTarget(function string, nth int) error {
	sf, ok := s.t.(StepFilterer)
	if !ok {
		return fmt.Errorf("step into a call: %w", ErrUnsupported)
	}
	s.mu.Lock()
	if err := s.needStopped("step into a call"); err != nil {
		s.mu.Unlock()
		return err
	}
	s.into.skip.Store(int32(max(nth, 0)))
	s.into.target.Store(&function)
	s.mu.Unlock()
	sf.SetStepFilter(s.into.filter)
	if err := s.Resume(StepInto); err != nil {
		s.into.target.Store(nil)
		return err
	}
	return nil
}

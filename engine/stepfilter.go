package engine

// StepFilter says which functions a step into passes over as if stepped over (gdb's
// skip): by the function's name and its source file. Nil passes over none.
type StepFilter func(function, file string) bool

// StepFilterer is implemented by targets whose step into can pass over functions.
type StepFilterer interface {
	SetStepFilter(StepFilter)
}

// SetStepFilter makes f the functions step into passes over from now on; false when the
// target cannot.
func (s *Session) SetStepFilter(f StepFilter) bool {
	sf, ok := s.t.(StepFilterer)
	if !ok {
		return false
	}
	if f == nil {
		s.into.user.Store(nil)
	} else {
		s.into.user.Store(&f)
	}
	if s.into.target.Load() != nil { // a step into a call runs: its filter stays
		return true
	}
	sf.SetStepFilter(f)
	return true
}

package engine

// StaticInspector is implemented by targets that can evaluate expressions over the
// program's file before it runs, as gdb's print does before run: constants, sizes, types,
// and globals with the values the file gives them.
type StaticInspector interface {
	InspectsBeforeStart() bool
}

// inspectsBeforeStart says Evaluate and ReadMemory may be asked of the debuggee while it is
// not started yet.
func (s *Session) inspectsBeforeStart() bool {
	si, ok := s.t.(StaticInspector)
	return ok && si.InspectsBeforeStart()
}

// checkInspectable is checkStopped for what a StaticInspector answers before its start.
func (s *Session) checkInspectable(what string) error {
	if s.State() == Initialized && s.inspectsBeforeStart() {
		return nil
	}
	return s.checkStopped(what)
}

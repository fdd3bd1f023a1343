package engine

// LoadWarner is implemented by targets that read a program's files and can say what they
// found wrong there and left out (a supplementary debug file not found): a front end tells
// its user once, as gdb does when it reads the program.
type LoadWarner interface {
	LoadWarnings() []string
}

// LoadWarnings are the debuggee's LoadWarner's warnings (none when the target has none).
func (s *Session) LoadWarnings() []string {
	if w, ok := s.t.(LoadWarner); ok {
		return w.LoadWarnings()
	}
	return nil
}

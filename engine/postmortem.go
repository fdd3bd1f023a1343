package engine

// PostMortem is implemented by targets whose program ended before the session began (a
// core dump): it is inspected where it stopped, and never run.
type PostMortem interface {
	PostMortem() bool
	CoreArgs() string // the dumped program's command line, as the dump keeps it
}

// PostMortem reports whether the debuggee is the memory of a program that has ended (a
// core dump) rather than a program.
func (s *Session) PostMortem() bool {
	p, ok := s.t.(PostMortem)
	return ok && p.PostMortem()
}

// CoreArgs is the command line of a core dump's program ("" for a live debuggee).
func (s *Session) CoreArgs() string {
	if p, ok := s.t.(PostMortem); ok {
		return p.CoreArgs()
	}
	return ""
}

package engine

// PrintLimits are gdb's print elements and print repeats: how many elements of an array
// (characters of a string) a value's text shows, and from how long a run of one element
// it shows as "<repeats N times>"; 0 is unlimited. ArrayIndexes (print array-indexes)
// shows each element's index, NullStop (print null-stop) a char array up to its first NUL.
// Raw (print raw-values, print/r) shows values as they are laid out, without the
// library's printers (a std::vector's members, not its elements).
type PrintLimits struct {
	Elements, Repeats           int
	ArrayIndexes, NullStop, Raw bool
	// HideAddresses (print address off) leaves pointers' and functions' addresses out,
	// HideSymbols (print symbol off) the symbol a data pointer points into, HideUnions
	// (print union off) the members of a union inside a struct or union ({...}).
	HideAddresses, HideSymbols, HideUnions bool
	// Object (print object on) shows a C++ object by the class its vtable says, and finds
	// the members named through a pointer to one in that class (p base->derived_member).
	Object bool
}

// PrintLimiter is implemented by targets whose values' texts follow PrintLimits.
type PrintLimiter interface {
	SetPrintLimits(PrintLimits)
}

// SetPrintLimits sets how the target shortens values from now on; false when it does not
// take limits.
func (s *Session) SetPrintLimits(l PrintLimits) bool {
	s.mu.Lock()
	s.limits = l // for FormatValue's arrays
	s.mu.Unlock()
	p, ok := s.t.(PrintLimiter)
	if ok {
		p.SetPrintLimits(l)
	}
	return ok
}

package engine

// Exception catchpoints: gdb's catch throw, catch rethrow and catch catch, stops where a
// C++ program throws, rethrows or catches an exception. The target names the place (the
// C++ runtime's probe or function, once its library is loaded); the engine keeps a trap
// there and reports a stop at it as the catchpoint's, with ReasonException.

import (
	"fmt"
	"regexp"
	"slices"
)

// The exceptions a catchpoint stops at (Catchpoint.Exception).
const (
	ExceptionThrow   = "throw"
	ExceptionRethrow = "rethrow"
	ExceptionCatch   = "catch"
)

// exceptionWords say, in gdb's words, what a stop at each event is.
var exceptionWords = map[string]string{
	ExceptionThrow: "exception thrown", ExceptionRethrow: "exception rethrown", ExceptionCatch: "exception caught",
}

// ExceptionSites is implemented by targets whose programs can throw exceptions (C++).
type ExceptionSites interface {
	// ExceptionSite is where the program's runtime throws, rethrows or catches an
	// exception (event is one of ExceptionThrow, ExceptionRethrow, ExceptionCatch); an
	// error while the runtime is not loaded yet.
	ExceptionSite(event string) (Location, error)
}

// CatchExceptions adds a catchpoint on the exceptions thrown, rethrown or caught (event)
// and returns it. Until the runtime is loaded it waits, as gdb's does.
func (s *Session) CatchExceptions(event string) (Catchpoint, error) {
	return s.CatchExceptionsMatching(event, "")
}

// CatchExceptionsMatching is CatchExceptions for the exceptions whose type matches the
// regular expression match (gdb's catch throw REGEX); every one with "".
func (s *Session) CatchExceptionsMatching(event, match string) (Catchpoint, error) {
	if _, ok := exceptionWords[event]; !ok {
		return Catchpoint{}, fmt.Errorf("catch %s: not an exception event", event)
	}
	if _, ok := s.t.(ExceptionSites); !ok {
		return Catchpoint{}, fmt.Errorf("catch %s: %w", event, ErrUnsupported)
	}
	if _, err := regexp.Compile(match); err != nil {
		return Catchpoint{}, fmt.Errorf("Invalid regexp: %v", err)
	}
	c := s.addCatchpoint(Catchpoint{Exception: event, Match: match})
	return c, s.armCatchpoints()
}

// armExceptions sets a trap at the site of each enabled exception catchpoint whose site
// the target can name now, and takes away those of the disabled and deleted ones.
func (s *Session) armExceptions() error {
	es, ok := s.t.(ExceptionSites)
	if !ok {
		return nil
	}
	s.mu.Lock()
	want := map[string]bool{}
	for _, c := range s.catches {
		if c.Exception != "" && !c.Disabled {
			want[c.Exception] = true
		}
	}
	var drop []Location
	for event, loc := range s.exceptionTraps {
		if !want[event] {
			delete(s.exceptionTraps, event)
			if len(s.byKey[locationKey(loc)]) == 0 {
				drop = append(drop, loc)
			}
		}
	}
	var add []string
	for event := range want {
		if _, armed := s.exceptionTraps[event]; !armed {
			add = append(add, event)
		}
	}
	s.mu.Unlock()
	for _, loc := range drop {
		if err := s.t.SetTrap(loc, false); err != nil {
			return err
		}
	}
	slices.Sort(add)
	for _, event := range add {
		loc, err := es.ExceptionSite(event)
		if err != nil {
			continue // the runtime is not loaded yet: LibrariesLoaded arms it
		}
		if err := s.t.SetTrap(loc, true); err != nil {
			return err
		}
		s.mu.Lock()
		if s.exceptionTraps == nil {
			s.exceptionTraps = map[string]Location{}
		}
		s.exceptionTraps[event] = loc
		s.mu.Unlock()
	}
	return nil
}

// exceptionCaughtBy is the stop of the exception catchpoint whose site loc is, with its
// hit counted; nil when loc is no such site.
func (s *Session) exceptionCaughtBy(loc Location) *Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	for event, at := range s.exceptionTraps {
		if locationKey(at) != locationKey(loc) {
			continue
		}
		var matching *Catchpoint // one that stops only for some types: decided once stopped (decideExceptionStop)
		for i := range s.catches {
			c := &s.catches[i]
			switch {
			case c.Exception != event || c.Disabled:
			case c.Match == "":
				c.Hits++
				return &Stop{Reason: ReasonException, Location: loc, BreakpointID: c.ID, Text: exceptionWords[event]}
			case matching == nil:
				matching = c
			}
		}
		if matching != nil {
			return &Stop{Reason: ReasonException, Location: loc, BreakpointID: matching.ID, Text: exceptionWords[event]}
		}
	}
	return nil
}

// ExceptionDescriber is implemented by targets that can say, at a stop where an exception
// is thrown or caught, which exception it is.
type ExceptionDescriber interface {
	// DescribeException is the exception's type (std::runtime_error) and, with message
	// and where the language has one, its message (what(): the program's code runs).
	DescribeException(message bool) (typeName, text string, err error)
}

// DescribeException says which exception the debuggee is stopped at (see
// ExceptionDescriber); an error when it is not stopped at one an exception catchpoint
// caught.
func (s *Session) DescribeException() (typeName, message string, err error) {
	st := s.LastStop()
	ed, ok := s.t.(ExceptionDescriber)
	if st == nil || st.Reason != ReasonException || st.BreakpointID == 0 || st.Signal != "" || !ok {
		return "", "", fmt.Errorf("not stopped at a caught exception: %w", ErrUnsupported)
	}
	return ed.DescribeException(true)
}

// ExceptionText is what a stop says to a person or an agent: for a caught C++ exception
// the event, its type and what() ("exception thrown: std::runtime_error: too big") when
// the target can tell them; st.Text otherwise.
func (s *Session) ExceptionText(st *Stop) string {
	typ, msg, err := s.DescribeException()
	if st == nil || err != nil || typ == "" {
		if st == nil {
			return ""
		}
		return st.Text
	}
	text := st.Text + ": " + typ
	if msg != "" {
		text += ": " + msg
	}
	return text
}

// exceptionMatch is the regular expression the catchpoint of an exception stop asks the
// exception's type to match, "" for none (under s.mu).
func (s *Session) exceptionMatch(stop Stop) string {
	if stop.Reason != ReasonException || stop.BreakpointID == 0 || stop.Signal != "" {
		return ""
	}
	for _, c := range s.catches {
		if c.ID == stop.BreakpointID && c.Exception != "" {
			return c.Match
		}
	}
	return ""
}

// decideExceptionStop stops at an exception whose type matches its catchpoint's regular
// expression, counting the hit, and lets the program go on past any other (as gdb's
// catch throw REGEX). It runs once the target waits for its resume.
func (h handler) decideExceptionStop(stop Stop, match string) {
	s := h.s
	typ := ""
	if ed, ok := s.t.(ExceptionDescriber); ok {
		typ, _, _ = ed.DescribeException(false) // (its what() is not run: nothing of the program)
	}
	if ok, _ := regexp.MatchString(match, typ); !ok {
		if err := s.t.Resume(Continue); err == nil {
			return
		}
	}
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return
	}
	for i := range s.catches {
		if s.catches[i].ID == stop.BreakpointID {
			s.catches[i].Hits++
		}
	}
	h.publishStop(stop)
}

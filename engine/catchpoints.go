package engine

import (
	"fmt"
	"slices"
)

// Catchpoints: the program stops when it enters or returns from one of the system calls
// asked for (gdb's catch syscall), on targets that can catch them (a GDB stub's
// QCatchSyscalls: gdbserver).

// ReasonSyscall is the stop at a caught system call: Stop.Syscall says which and whether
// it is its return, Stop.BreakpointID the catchpoint.
const ReasonSyscall StopReason = "syscall"

// Catchpoint is one catch syscall: the calls it stops at (every one when All). ID is the
// session's, unique among all breakpoints.
type Catchpoint struct {
	ID       int
	Calls    []int
	Names    []string // the calls' names, as Calls ("" for a number the target cannot name)
	All      bool
	Disabled bool // kept, but not stopped at (gdb's disable)
	Hits     int  // the stops it made (filled by the session)
}

// SyscallCatcher is implemented by targets that stop at system calls.
type SyscallCatcher interface {
	// SyscallNumber is the number of a system call named ("write") or given by number.
	SyscallNumber(name string) (int, error)
	// SyscallName is the name of system call n, "" when it is not known.
	SyscallName(n int) string
	// CatchSyscalls makes the next continues stop at the entry and return of the calls
	// (of every one with all, of none without either), reported with ReasonSyscall.
	CatchSyscalls(calls []int, all bool) error
}

// CatchSyscalls adds a catchpoint on the system calls named (by name or number; every one
// without any) and returns it.
func (s *Session) CatchSyscalls(names []string) (Catchpoint, error) {
	sc, ok := s.t.(SyscallCatcher)
	if !ok {
		return Catchpoint{}, fmt.Errorf("catch syscall: %w", ErrUnsupported)
	}
	c := Catchpoint{All: len(names) == 0}
	for _, name := range names {
		n, err := sc.SyscallNumber(name)
		if err != nil {
			return Catchpoint{}, err
		}
		c.Calls, c.Names = append(c.Calls, n), append(c.Names, sc.SyscallName(n))
	}
	s.mu.Lock()
	s.nextID++
	c.ID = s.nextID
	s.catches = append(s.catches, c)
	s.mu.Unlock()
	if err := s.armCatchpoints(); err != nil {
		_ = s.RemoveCatchpoint(c.ID)
		return Catchpoint{}, err
	}
	return c, nil
}

// RestoreCatchpoints sets the catchpoints of an earlier session under their numbers
// (a run after the program ended).
func (s *Session) RestoreCatchpoints(cs []Catchpoint) error {
	if len(cs) == 0 {
		return nil
	}
	s.mu.Lock()
	for _, c := range cs {
		c.Hits = 0
		s.catches = append(s.catches, c)
		s.nextID = max(s.nextID, c.ID)
	}
	s.mu.Unlock()
	return s.armCatchpoints()
}

// Catchpoints returns the catchpoints in the order they were set.
func (s *Session) Catchpoints() []Catchpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.catches)
}

// RemoveCatchpoint deletes the catchpoint with this id; an error when there is none.
func (s *Session) RemoveCatchpoint(id int) error {
	s.mu.Lock()
	i := slices.IndexFunc(s.catches, func(c Catchpoint) bool { return c.ID == id })
	if i >= 0 {
		s.catches = slices.Delete(s.catches, i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		return fmt.Errorf("No catchpoint number %d.", id)
	}
	return s.armCatchpoints()
}

// EnableCatchpoint enables or disables (gdb's enable, disable) the catchpoint with this
// id; an error when there is none.
func (s *Session) EnableCatchpoint(id int, on bool) error {
	s.mu.Lock()
	i := slices.IndexFunc(s.catches, func(c Catchpoint) bool { return c.ID == id })
	if i >= 0 {
		s.catches[i].Disabled = !on
	}
	s.mu.Unlock()
	if i < 0 {
		return fmt.Errorf("No catchpoint number %d.", id)
	}
	return s.armCatchpoints()
}

// armCatchpoints tells the target every call the catchpoints stop at.
func (s *Session) armCatchpoints() error {
	sc, ok := s.t.(SyscallCatcher)
	if !ok {
		return nil
	}
	s.mu.Lock()
	var calls []int
	all := false
	for _, c := range s.catches {
		if !c.Disabled {
			calls, all = append(calls, c.Calls...), all || c.All
		}
	}
	s.mu.Unlock()
	slices.Sort(calls)
	return sc.CatchSyscalls(slices.Compact(calls), all)
}

// caughtBy numbers a system call stop by the first catchpoint that stops at its call and
// counts its hit (under s.mu).
func (s *Session) caughtBy(stop *Stop) {
	for i := range s.catches {
		if c := &s.catches[i]; !c.Disabled && stop.Syscall != nil && (c.All || slices.Contains(c.Calls, stop.Syscall.Num)) {
			c.Hits++
			stop.BreakpointID = c.ID
			return
		}
	}
}

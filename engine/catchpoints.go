package engine

import (
	"fmt"
	"slices"
)

// Catchpoints: the program stops when it enters or returns from one of the system calls
// asked for (gdb's catch syscall), on targets that can catch them (a GDB stub's
// QCatchSyscalls: gdbserver); and the stops of the signals asked for are numbered by
// their catchpoint (gdb's catch signal).

// ReasonSyscall is the stop at a caught system call: Stop.Syscall says which and whether
// it is its return, Stop.BreakpointID the catchpoint.
const ReasonSyscall StopReason = "syscall"

// Catchpoint is one catch syscall: the calls it stops at (every one when All); or, with
// Signals set, one catch signal: the signal stops it numbers. ID is the session's, unique
// among all breakpoints.
type Catchpoint struct {
	ID       int
	Calls    []int
	Names    []string // the calls' names, as Calls ("" for a number the target cannot name)
	All      bool
	Disabled bool // kept, but not stopped at (gdb's disable)
	Hits     int  // the stops it made (filled by the session)
	// OnSignals makes it a signal catchpoint: the signals it numbers are Signals
	// ("SIGUSR1"), or with AnySignal every one; neither is gdb's standard signals (all but
	// SIGTRAP and SIGINT, which the debugger uses).
	OnSignals bool
	Signals   []string
	AnySignal bool
	// OnFork makes it a fork catchpoint (gdb's catch fork), of vforks with Vfork (catch
	// vfork); Child is the process the last fork it caught made.
	OnFork bool
	Vfork  bool
	Child  int
	// OnExec makes it an exec catchpoint (gdb's catch exec); Program is the program the
	// last exec it caught ran.
	OnExec  bool
	Program string
	// OnLibrary makes it a catchpoint on the libraries the program loads (gdb's catch
	// load), or with Unload unloads (catch unload); Match, when set, the regular expression
	// their paths must match (libraries.go).
	OnLibrary bool
	Unload    bool
	// Exception makes it an exception catchpoint (gdb's catch throw, rethrow, catch): one
	// of ExceptionThrow, ExceptionRethrow, ExceptionCatch (exceptions.go); Match, when
	// set, the regular expression the exception's type must match.
	Exception string
	Match     string
}

// catchesSyscalls reports whether c is a system call catchpoint.
func (c Catchpoint) catchesSyscalls() bool {
	return !c.OnSignals && !c.OnFork && !c.OnExec && !c.OnLibrary && c.Exception == ""
}

// ReasonFork is the stop at a fork a catchpoint caught: Stop.Fork says which child it made,
// Stop.BreakpointID the catchpoint.
const ReasonFork StopReason = "fork"

// ForkStop is the fork of a ReasonFork stop.
type ForkStop struct {
	Child int  // the new process, let go already (gdb's detach-on-fork)
	Vfork bool // made by vfork, sharing the program's memory until it execs or ends
}

// ForkCatcher is implemented by targets that can stop where the program forks.
type ForkCatcher interface {
	// CatchForks makes the next continues stop (ReasonFork) after each fork (forks) and
	// each vfork (vforks), or not.
	CatchForks(forks, vforks bool) error
}

// CatchForks adds a catchpoint on the program's forks (gdb's catch fork), or on its
// vforks (catch vfork), and returns it.
func (s *Session) CatchForks(vfork bool) (Catchpoint, error) {
	if _, ok := s.t.(ForkCatcher); !ok {
		what := "catch fork"
		if vfork {
			what = "catch vfork"
		}
		return Catchpoint{}, fmt.Errorf("%s: %w", what, ErrUnsupported)
	}
	c := Catchpoint{OnFork: true, Vfork: vfork}
	c = s.addCatchpoint(c)
	return c, s.armCatchpoints()
}

// CatchSignals adds a catchpoint on the signal stops of the signals named (gdb's catch
// signal: without names the standard ones, with all every one) and returns it. A signal
// the program is not stopped by (handle nostop) is not caught.
func (s *Session) CatchSignals(names []string, all bool) (Catchpoint, error) {
	sh, ok := s.t.(SignalHandler)
	if !ok {
		return Catchpoint{}, fmt.Errorf("catch signal: %w", ErrUnsupported)
	}
	for _, name := range names {
		if _, err := sh.SignalHandling(name); err != nil {
			return Catchpoint{}, err
		}
	}
	c := Catchpoint{OnSignals: true, Signals: names, AnySignal: all}
	c = s.addCatchpoint(c)
	return c, nil
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
	c = s.addCatchpoint(c)
	if err := s.armCatchpoints(); err != nil {
		_ = s.RemoveCatchpoint(c.ID)
		return Catchpoint{}, err
	}
	return c, nil
}

// addCatchpoint numbers c and keeps it.
func (s *Session) addCatchpoint(c Catchpoint) Catchpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	c.ID = s.nextID
	s.catches = append(s.catches, c)
	return c
}

// RestoreCatchpoints sets the catchpoints of an earlier session under their numbers
// (a run after the program ended).
func (s *Session) RestoreCatchpoints(cs []Catchpoint) error {
	if len(cs) == 0 {
		return nil
	}
	s.mu.Lock()
	for _, c := range cs { // hits kept, as RestoreBreakpoints keeps them
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
	s.mu.Lock()
	var calls []int
	all, forks, vforks := false, false, false
	for _, c := range s.catches {
		if !c.Disabled && c.catchesSyscalls() {
			calls, all = append(calls, c.Calls...), all || c.All
		}
		forks = forks || !c.Disabled && c.OnFork && !c.Vfork
		vforks = vforks || !c.Disabled && c.OnFork && c.Vfork
	}
	libraries := s.catchesLibraries()
	s.mu.Unlock()
	if lc, ok := s.t.(LibraryCatcher); ok {
		if err := lc.CatchLibraries(libraries); err != nil {
			return err
		}
	}
	if err := s.armExceptions(); err != nil {
		return err
	}
	if fc, ok := s.t.(ForkCatcher); ok {
		if err := fc.CatchForks(forks, vforks); err != nil {
			return err
		}
	}
	sc, ok := s.t.(SyscallCatcher)
	if !ok {
		return nil
	}
	slices.Sort(calls)
	return sc.CatchSyscalls(slices.Compact(calls), all)
}

// caughtBy numbers a system call stop by the first catchpoint that stops at its call and
// counts its hit (under s.mu).
func (s *Session) caughtBy(stop *Stop) {
	for i := range s.catches {
		if c := &s.catches[i]; !c.Disabled && c.catchesSyscalls() && stop.Syscall != nil && (c.All || slices.Contains(c.Calls, stop.Syscall.Num)) {
			c.Hits++
			stop.BreakpointID = c.ID
			return
		}
	}
}

// signalCaughtBy numbers a signal stop by the first signal catchpoint that catches its
// signal and counts its hit (under s.mu).
func (s *Session) signalCaughtBy(stop *Stop) {
	for i := range s.catches {
		c := &s.catches[i]
		if c.Disabled || !c.OnSignals {
			continue
		}
		standard := len(c.Signals) == 0 && !c.AnySignal && stop.Signal != "SIGTRAP" && stop.Signal != "SIGINT"
		if c.AnySignal || standard || slices.Contains(c.Signals, stop.Signal) {
			c.Hits++
			stop.BreakpointID = c.ID
			return
		}
	}
}

// forkCaughtBy numbers a fork stop by the first catchpoint of its kind (fork or vfork),
// counts its hit and keeps the child it made (under s.mu).
func (s *Session) forkCaughtBy(stop *Stop) {
	for i := range s.catches {
		if c := &s.catches[i]; !c.Disabled && c.OnFork && stop.Fork != nil && c.Vfork == stop.Fork.Vfork {
			c.Hits++
			c.Child = stop.Fork.Child
			stop.BreakpointID = c.ID
			return
		}
	}
}

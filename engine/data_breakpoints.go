package engine

import (
	"errors"
	"fmt"
	"slices"
)

// Data breakpoints (watchpoints): the program stops when it writes, reads or accesses a
// piece of memory, on targets with watchpoints (a GDB stub's Z2/Z3/Z4: gdbserver, QEMU).

// ReasonData is the stop at a data breakpoint: Stop.BreakpointID names it and Stop.Text
// says what happened ("counter: 0 -> 5" for a write whose old value was known).
const ReasonData StopReason = "data breakpoint"

// DataAccess is what a data breakpoint watches for.
type DataAccess string

const (
	DataWrite     DataAccess = "write" // a write that changes the value (gdb's watch)
	DataRead      DataAccess = "read"
	DataReadWrite DataAccess = "readWrite"
)

// Watchpoint is one data breakpoint: Size bytes at Addr, watched for Access. Name is what
// the user asked for ("counter"); ID is the session's, unique among all breakpoints.
type Watchpoint struct {
	ID     int
	Name   string
	Addr   uint64
	Size   int
	Access DataAccess
	// Verified is false when the target could not arm it; Message then says why.
	Verified bool
	Message  string
	Hits     int // the stops it made (filled by the session)
	// Condition, when set, is evaluated in the stopped program at each hit: the program
	// stops only where it is true (or cannot be evaluated), as gdb's watch EXPR if COND.
	Condition string
}

// Watchpointer is implemented by targets with watchpoints.
type Watchpointer interface {
	// DataTarget says where the value of expr in frame lives (Name, Addr, Size) and the
	// accesses it can be watched for; an error when it is not in memory or too big.
	DataTarget(frame int, expr string) (Watchpoint, []DataAccess, error)
	// SetWatchpoints replaces the armed watchpoints with ws (in any state: a running
	// target is interrupted for it) and returns them with Verified and Message set. A
	// watchpoint hit is reported as a stop with ReasonData and its ID.
	SetWatchpoints(ws []Watchpoint) []Watchpoint
	// Watchpoints returns the watchpoints set last.
	Watchpoints() []Watchpoint
}

// DataBreakpointInfo says what expr in frame would watch (Watchpointer), on a stopped
// debuggee; ErrUnsupported for targets without watchpoints.
func (s *Session) DataBreakpointInfo(frame int, expr string) (Watchpoint, []DataAccess, error) {
	w, ok := s.t.(Watchpointer)
	if !ok {
		return Watchpoint{}, nil, fmt.Errorf("data breakpoints: %w", ErrUnsupported)
	}
	if err := s.checkStopped("find a variable's address"); err != nil {
		return Watchpoint{}, nil, err
	}
	return w.DataTarget(frame, expr)
}

// SetDataBreakpoints replaces the data breakpoints with ws (DAP semantics): one that is
// unchanged (same address, size and access) keeps its ID, the others get new IDs from the
// breakpoints' sequence. It returns them as armed.
func (s *Session) SetDataBreakpoints(ws []Watchpoint) ([]Watchpoint, error) {
	w, ok := s.t.(Watchpointer)
	if !ok {
		return nil, fmt.Errorf("data breakpoints: %w", ErrUnsupported)
	}
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return nil, fmt.Errorf("cannot set data breakpoints: %w", ErrEnded)
	}
	old := w.Watchpoints()
	out := make([]Watchpoint, len(ws))
	for i, nw := range ws {
		nw.ID = 0
		for _, o := range old {
			if o.Addr == nw.Addr && o.Size == nw.Size && o.Access == nw.Access {
				nw.ID = o.ID
			}
		}
		if nw.ID == 0 {
			s.nextID++
			nw.ID = s.nextID
		}
		out[i] = nw
	}
	s.mu.Unlock()
	return w.SetWatchpoints(out), nil
}

// DataBreakpoints returns the data breakpoints set last, as armed (none on targets without
// watchpoints).
func (s *Session) DataBreakpoints() []Watchpoint {
	w, ok := s.t.(Watchpointer)
	if !ok {
		return nil
	}
	ws := w.Watchpoints()
	s.mu.Lock()
	for i := range ws {
		ws[i].Hits = s.watchHits[ws[i].ID]
	}
	s.mu.Unlock()
	return ws
}

// Watch adds a data breakpoint on what expr names in frame, for access, to those set (gdb's
// watch, rwatch and awatch). The error says why it cannot be (no watchpoints on this target,
// expr is no place, the access is not offered, the target refused it); the others are then
// left as they were.
func (s *Session) Watch(frame int, expr string, access DataAccess) (Watchpoint, error) {
	return s.WatchNamed(frame, expr, "", access)
}

// WatchNamed is Watch with the name the watchpoint is told by ("" for expr's own): gdb's
// watch -location EXPR is told as "-location EXPR".
func (s *Session) WatchNamed(frame int, expr, name string, access DataAccess) (Watchpoint, error) {
	w, can, err := s.DataBreakpointInfo(frame, expr)
	if err != nil {
		return Watchpoint{}, err
	}
	if name != "" {
		w.Name = name
	}
	if !slices.Contains(can, access) {
		return Watchpoint{}, fmt.Errorf("no %s watchpoints for it on this target", access)
	}
	w.Access = access
	old := s.DataBreakpoints()
	set, err := s.SetDataBreakpoints(append(slices.Clone(old), w))
	if err != nil {
		return Watchpoint{}, err
	}
	nw := set[len(set)-1]
	if !nw.Verified {
		_, _ = s.SetDataBreakpoints(old)
		return Watchpoint{}, errors.New(nw.Message)
	}
	return nw, nil
}

// Unwatch removes data breakpoint id; false when there is none.
func (s *Session) Unwatch(id int) bool {
	ws := s.DataBreakpoints()
	i := slices.IndexFunc(ws, func(w Watchpoint) bool { return w.ID == id })
	if i < 0 {
		return false
	}
	_, err := s.SetDataBreakpoints(slices.Delete(slices.Clone(ws), i, i+1))
	return err == nil
}

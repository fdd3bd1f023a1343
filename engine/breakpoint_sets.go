package engine

import (
	"cmp"
	"errors"
	"path/filepath"
)

// SetBreakpoints replaces the line breakpoints of one source file with specs, as DAP's
// setBreakpoints does, and returns one Breakpoint per spec, in order. A breakpoint asked
// for again on the same line keeps its id and hit count (with its options updated); lines
// no longer asked for lose theirs. A spec that cannot be set comes back unverified with a
// Message and is not kept, unless a shared library the program loads later may bring its
// file or function: then it is kept, pending, and placed when the library is loaded
// (LibrariesLoaded), a change event saying so. A condition that does not compile still gives a breakpoint,
// which stops at every hit and says why (its Message says it too): a typo in a condition
// must not silently skip the stop. Temporary breakpoints are not part of any set.
func (s *Session) SetBreakpoints(file string, specs []BreakpointSpec) []Breakpoint {
	file = filepath.Clean(file)
	for i := range specs {
		specs[i].Kind, specs[i].File = LineBreakpoint, file
	}
	return s.replaceSet(func(sp BreakpointSpec) bool {
		return sp.Kind == LineBreakpoint && filepath.Clean(sp.File) == file
	}, specs)
}

// SetFunctionBreakpoints replaces every function breakpoint with specs (DAP's
// setFunctionBreakpoints).
func (s *Session) SetFunctionBreakpoints(specs []BreakpointSpec) []Breakpoint {
	for i := range specs {
		specs[i].Kind = FunctionBreakpoint
	}
	return s.replaceSet(func(sp BreakpointSpec) bool { return sp.Kind == FunctionBreakpoint }, specs)
}

// SetInstructionBreakpoints replaces every instruction breakpoint with specs (DAP's
// setInstructionBreakpoints).
func (s *Session) SetInstructionBreakpoints(specs []BreakpointSpec) []Breakpoint {
	for i := range specs {
		specs[i].Kind = InstructionBreakpoint
	}
	return s.replaceSet(func(sp BreakpointSpec) bool { return sp.Kind == InstructionBreakpoint }, specs)
}

// place is what identifies a breakpoint within its set: where it was asked for.
type place struct {
	kind BreakpointKind
	file string
	line int
	fn   string
	pc   uint64
}

func placeOf(sp BreakpointSpec) place {
	return place{sp.Kind, filepath.Clean(sp.File), sp.Line, sp.Function, sp.PC}
}

// replaceSet makes the breakpoints whose spec is in the set exactly specs.
func (s *Session) replaceSet(inSet func(BreakpointSpec) bool, specs []BreakpointSpec) []Breakpoint {
	old := map[place][]Breakpoint{}
	for _, bp := range s.Breakpoints() {
		if !bp.Spec.Temporary && inSet(bp.Spec) {
			p := placeOf(bp.Spec)
			old[p] = append(old[p], bp)
		}
	}
	out := make([]Breakpoint, len(specs))
	for i, sp := range specs {
		p := placeOf(sp)
		id := 0
		if prev := old[p]; len(prev) > 0 {
			old[p] = prev[1:]
			if prev[0].Spec == sp {
				out[i] = prev[0] // unchanged
				continue
			}
			id = prev[0].ID
			_ = s.RemoveBreakpoint(id)
		}
		bp, err := s.addBreakpoint(sp, id, true)
		if err != nil && mayComeWithLibrary(err) {
			bp = s.keepUnplaced(sp, cmp.Or(id, s.newID()), err) // pending: placed when a library brings it
		} else if err != nil {
			bp = Breakpoint{ID: id, Spec: sp, Message: err.Error()}
		}
		out[i] = bp
	}
	for _, rest := range old {
		for _, bp := range rest {
			_ = s.RemoveBreakpoint(bp.ID)
		}
	}
	return out
}

// RestoreBreakpoints sets the breakpoints of an earlier session of the same program (a
// restart) with their ids, so that a client's ids stay valid, and their hit counts (as gdb
// keeps them until the next run starts: ClearHitCounts). One
// the program has no place for is kept without one (Verified false, Message saying why),
// as an exec leaves one: enabling it places it again.
func (s *Session) RestoreBreakpoints(bps []Breakpoint) []Breakpoint {
	out := make([]Breakpoint, 0, len(bps))
	for _, old := range bps {
		bp, err := s.addBreakpoint(old.Spec, old.ID, true)
		if err == nil && old.Hits > 0 {
			bp.Hits = s.setHits(bp.ID, old.Hits)
		}
		if err != nil {
			bp = s.keepUnplaced(old.Spec, old.ID, err)
			if bp.Pending && old.Verified {
				s.showWhere(bp.ID, old.Location) // as gdb shows a library's breakpoint between runs
				bp.Hits = s.setHits(bp.ID, old.Hits)
			}
		}
		out = append(out, bp)
	}
	return out
}

// keepUnplaced keeps a breakpoint under id with no place in the program, for err.
func (s *Session) keepUnplaced(spec BreakpointSpec, id int, err error) Breakpoint {
	b := &bpState{bp: Breakpoint{ID: id, Spec: spec, Message: err.Error(), Pending: mayComeWithLibrary(err)}}
	b.hit, _ = parseHitCondition(spec.HitCondition)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bps[id] != nil || id == 0 {
		return b.bp
	}
	s.nextID = max(s.nextID, id)
	s.bps[id] = b
	bp := b.bp
	s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp, Created: true})
	return bp
}

// setHits sets the hit count of breakpoint id to n, and returns it.
func (s *Session) setHits(id, n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.bps[id]; b != nil {
		b.bp.Hits = n
	}
	return n
}

// ClearHitCounts starts every breakpoint's and catchpoint's count of hits again (gdb's run
// does).
func (s *Session) ClearHitCounts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.bps {
		b.bp.Hits = 0
	}
	for i := range s.catches {
		s.catches[i].Hits = 0
	}
	s.watchHits = nil
}

// showWhere gives the pending breakpoint id the location it had in an earlier run, to be
// shown until it is placed again.
func (s *Session) showWhere(id int, loc Location) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.bps[id]; b != nil && b.bp.Pending {
		b.bp.Location = loc
	}
}

// SetBreakpointOrPending sets a breakpoint as SetBreakpoint does, but one a shared library
// the program loads later may have a place for (its file or function unknown so far) is
// kept, pending, and returned unverified with why, to be placed when the library is
// loaded, as SetBreakpoints keeps it.
func (s *Session) SetBreakpointOrPending(spec BreakpointSpec) (Breakpoint, error) {
	bp, err := s.SetBreakpoint(spec)
	if err != nil && mayComeWithLibrary(err) {
		return s.keepUnplaced(spec, s.newID(), err), nil
	}
	return bp, err
}

// newID is a breakpoint number not given yet.
func (s *Session) newID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return s.nextID
}

// mayComeWithLibrary says whether err, a breakpoint's failure to resolve, is one a shared
// library loaded later may undo: its source file or function unknown so far.
func mayComeWithLibrary(err error) bool {
	var file NoSourceFileError
	var fn NoFunctionError
	return errors.As(err, &file) && file.Libraries || errors.As(err, &fn) && fn.Libraries
}

// LastBreakpointID is the highest number given to a breakpoint or watchpoint so far.
func (s *Session) LastBreakpointID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nextID
}

// NumberBreakpointsAfter makes the next breakpoint's number greater than last, so that a
// session that follows another never gives a number again (gdb's numbering of a run).
func (s *Session) NumberBreakpointsAfter(last int) {
	s.mu.Lock()
	s.nextID = max(s.nextID, last)
	s.mu.Unlock()
}

package engine

// Breakpoints on library functions set before the program runs: the target binds them to a
// stand-in (the program's PLT entry for the function) and, once the dynamic linker has
// loaded the libraries, the engine binds them again to the function itself, as gdb moves
// "break puts" from puts@plt to libc's puts when the program starts.

import "sort"

// LibraryLoads is implemented by the engine's Handler: a target calls LibrariesLoaded,
// stopped, when the program's shared libraries have been loaded (a native program at its
// entry point), so that breakpoints bound to a StandIn are resolved again.
type LibraryLoads interface {
	LibrariesLoaded()
}

// LibrariesLoaded implements LibraryLoads.
func (h handler) LibrariesLoaded() {
	h.s.rebindStandIns()
	h.s.placePending()
	_ = h.s.armExceptions() // catch throw: the C++ runtime is loaded now
}

// rebindStandIns resolves each function breakpoint bound to a stand-in again and moves it
// where it now binds (a function no library defines stays on its stand-in).
func (s *Session) rebindStandIns() {
	s.mu.Lock()
	var moving []*bpState
	for _, b := range s.bps {
		if b.bp.Location.StandIn && b.bp.Spec.Kind == FunctionBreakpoint {
			moving = append(moving, b)
		}
	}
	s.mu.Unlock()
	sort.Slice(moving, func(i, j int) bool { return moving[i].bp.ID < moving[j].bp.ID })
	for _, b := range moving {
		loc, err := s.t.ResolveFunction(b.bp.Spec.Function)
		if err != nil || loc.StandIn {
			continue
		}
		s.moveBreakpoint(b, loc)
	}
}

// placePending places each breakpoint kept without a place (pending, not disabled) where
// its spec now resolves: one the libraries just loaded brought.
func (s *Session) placePending() {
	s.mu.Lock()
	var pending []*bpState
	for _, b := range s.bps {
		if b.bp.Pending && !b.bp.Spec.Disabled {
			pending = append(pending, b)
		}
	}
	s.mu.Unlock()
	sort.Slice(pending, func(i, j int) bool { return pending[i].bp.ID < pending[j].bp.ID })
	for _, b := range pending {
		_ = s.placeAgain(b)
	}
}

// moveBreakpoint binds b to loc instead of where it is: its trap follows (the old one goes
// when no other enabled breakpoint is there), and subscribers see the change.
func (s *Session) moveBreakpoint(b *bpState, loc Location) {
	nb := &bpState{bp: b.bp, hit: b.hit, log: append([]logPart(nil), b.log...)}
	if s.compileAt(nb, loc, true) != nil {
		return // a log message that does not compile there: it stays where it works
	}
	s.mu.Lock()
	if s.bps[b.bp.ID] != b {
		s.mu.Unlock()
		return
	}
	last := s.unlistLocked(b)
	first := !nb.bp.Spec.Disabled
	for _, x := range s.byKey[nb.key] {
		first = first && x.bp.Spec.Disabled
	}
	s.bps[nb.bp.ID] = nb
	s.byKey[nb.key] = append(append([]*bpState(nil), s.byKey[nb.key]...), nb)
	bp := nb.bp
	s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp})
	s.mu.Unlock()
	if last {
		_ = s.t.SetTrap(b.bp.Location, false)
	} else {
		s.syncConditions(b.key, b.bp.Location)
	}
	if first {
		_ = s.t.SetTrap(loc, true)
	}
	s.syncConditions(nb.key, loc)
}

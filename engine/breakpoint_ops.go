package engine

import (
	"errors"
	"fmt"
	"sort"
)

// SetBreakpoint resolves and sets a breakpoint. A line with no code binds to the next line
// that has code; the returned Breakpoint says where. It works in every state.
func (s *Session) SetBreakpoint(spec BreakpointSpec) (Breakpoint, error) {
	return s.addBreakpoint(spec, 0, false)
}

// addBreakpoint sets a breakpoint with the given id, or a new one when id is 0. With
// keepBadCondition, a condition that does not compile still gives a breakpoint: it stops at
// every hit and says why (Stop.Text), and its Message carries the error.
func (s *Session) addBreakpoint(spec BreakpointSpec, id int, keepBadCondition bool) (Breakpoint, error) {
	b := &bpState{bp: Breakpoint{Spec: spec}}
	var err error
	if b.hit, err = parseHitCondition(spec.HitCondition); err != nil {
		return Breakpoint{}, err
	}
	switch {
	case spec.LogFormat != "":
		if b.log, err = printfCall(spec.LogFormat); err != nil {
			return Breakpoint{}, err
		}
	case spec.LogMessage != "":
		if b.log, err = parseLogMessage(spec.LogMessage); err != nil {
			return Breakpoint{}, err
		}
	}
	if b.log == nil && (spec.LogFormat != "" || spec.LogMessage != "") {
		b.log = []logPart{}
	}
	loc, err := s.resolveSpec(spec)
	if err != nil {
		return Breakpoint{}, err
	}
	if err := s.compileAt(b, loc, keepBadCondition); err != nil {
		return Breakpoint{}, err
	}

	s.mu.Lock()
	first := !spec.Disabled
	for _, x := range s.byKey[b.key] {
		first = first && x.bp.Spec.Disabled // no enabled breakpoint traps there yet
	}
	s.mu.Unlock()
	if first {
		if err := s.t.SetTrap(loc, true); err != nil {
			return Breakpoint{}, err
		}
	}
	s.mu.Lock()
	if id == 0 || s.bps[id] != nil {
		s.nextID++
		id = s.nextID
	} else if id > s.nextID {
		s.nextID = id
	}
	b.bp.ID = id
	s.bps[b.bp.ID] = b
	s.byKey[b.key] = append(s.byKey[b.key], b)
	bp := b.bp
	s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp, Created: true})
	s.mu.Unlock()
	s.syncConditions(b.key, loc)
	return bp, nil
}

// resolveSpec is where a breakpoint's spec places it in the program.
func (s *Session) resolveSpec(spec BreakpointSpec) (Location, error) {
	switch spec.Kind {
	case LineBreakpoint:
		if spec.Line <= 0 {
			return Location{}, fmt.Errorf("invalid line %d", spec.Line)
		}
		return s.t.ResolveLine(spec.File, spec.Line)
	case FunctionBreakpoint:
		return s.t.ResolveFunction(spec.Function)
	case InstructionBreakpoint:
		r, ok := s.t.(InstructionResolver)
		if !ok {
			return Location{}, fmt.Errorf("this target has no instruction breakpoints")
		}
		return r.ResolvePC(spec.PC)
	}
	return Location{}, fmt.Errorf("unknown breakpoint kind %d", spec.Kind)
}

// compileAt binds b to loc: its condition and the expressions of its log message are
// compiled there. With keepBadCondition a condition that does not compile is kept as
// b's error (see addBreakpoint).
func (s *Session) compileAt(b *bpState, loc Location, keepBadCondition bool) error {
	var err error
	for i := range b.log {
		if p := b.log[i]; p.expr && !(p.verb != 0 && quotedArgument(p.text)) { // a dprintf's string literal is its own value
			if b.log[i].cond, err = s.t.CompileCondition(loc, b.log[i].text); err != nil {
				return fmt.Errorf("log message ${%s}: %w", b.log[i].text, err)
			}
		}
	}
	b.cond, b.condErr, b.bp.Message = nil, "", ""
	if spec := b.bp.Spec; spec.Condition != "" {
		if b.cond, err = s.t.CompileCondition(loc, spec.Condition); err != nil {
			err = ConditionError{Condition: spec.Condition, Err: err}
			if !keepBadCondition {
				return err
			}
			b.condErr, b.bp.Message = err.Error(), err.Error()
		}
	}
	b.bp.Location, b.bp.Verified, b.key = loc, true, locationKey(loc)
	return nil
}

// syncConditions hands the conditions at a location to a target that evaluates them
// itself (see TrapConditioner).
func (s *Session) syncConditions(key locKey, loc Location) {
	tc, ok := s.t.(TrapConditioner)
	if !ok {
		return
	}
	s.mu.Lock()
	list := s.byKey[key]
	var conds []Condition
	enabled := 0
	for _, b := range list {
		if b.bp.Spec.Disabled {
			continue
		}
		enabled++
		if b.cond == nil {
			conds = nil
			break
		}
		conds = append(conds, b.cond)
	}
	s.mu.Unlock()
	if enabled == 0 {
		return
	}
	_ = tc.SetTrapConditions(loc, conds) // on error the trap stays unconditional
}

// RemoveBreakpoint deletes the breakpoint with this id.
func (s *Session) RemoveBreakpoint(id int) error {
	s.mu.Lock()
	b, ok := s.bps[id]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("no breakpoint %d", id)
	}
	delete(s.bps, id)
	gone := b.bp
	s.emit(Event{Kind: EventBreakpointRemoved, Breakpoint: &gone})
	last := s.unlistLocked(b) && b.bp.Verified // (one without a place has no trap)
	s.mu.Unlock()
	if last {
		return s.t.SetTrap(b.bp.Location, false)
	}
	s.syncConditions(b.key, b.bp.Location)
	return nil
}

// unlistLocked takes b out of the list of its location; it reports whether b was the last
// enabled breakpoint there, whose trap goes with it. s.mu is held.
func (s *Session) unlistLocked(b *bpState) (last bool) {
	list := s.byKey[b.key]
	for i, x := range list {
		if x == b {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(s.byKey, b.key)
	} else {
		s.byKey[b.key] = list
	}
	last = !b.bp.Spec.Disabled
	for _, x := range list {
		last = last && x.bp.Spec.Disabled
	}
	return last
}

// ClearBreakpoints deletes every breakpoint.
func (s *Session) ClearBreakpoints() {
	for _, bp := range s.Breakpoints() {
		_ = s.RemoveBreakpoint(bp.ID)
	}
}

// Breakpoints lists the breakpoints in id order.
func (s *Session) Breakpoints() []Breakpoint {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Breakpoint, 0, len(s.bps))
	for _, b := range s.bps {
		out = append(out, b.bp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SetCondition replaces a breakpoint's condition ("" removes it).
func (s *Session) SetCondition(id int, cond string) error {
	s.mu.Lock()
	b, ok := s.bps[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("no breakpoint %d", id)
	}
	var c Condition
	if cond != "" {
		var err error
		if c, err = s.t.CompileCondition(b.bp.Location, cond); err != nil {
			return ConditionError{Condition: cond, Err: err}
		}
	}
	nb := &bpState{bp: b.bp, key: b.key, cond: c, hit: b.hit, log: b.log}
	nb.bp.Spec.Condition, nb.bp.Message = cond, ""
	if !s.replaceState(b, nb) {
		return fmt.Errorf("no breakpoint %d", id)
	}
	s.syncConditions(b.key, b.bp.Location)
	return nil
}

// replaceState puts nb in place of b (the lists are copy-on-write, read without the lock by
// Trap); false when b is no longer there.
func (s *Session) replaceState(b, nb *bpState) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bps[b.bp.ID] != b {
		return false
	}
	s.bps[b.bp.ID] = nb
	list := append([]*bpState(nil), s.byKey[b.key]...)
	for i, x := range list {
		if x == b {
			list[i] = nb
		}
	}
	s.byKey[b.key] = list
	bp := nb.bp
	s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp})
	return true
}

// EnableBreakpoint enables or disables (gdb's enable, disable) the breakpoint with this id.
// A disabled breakpoint stays in the table, with its hits; it is not reached, and a
// location with no enabled breakpoint left is not trapped.
func (s *Session) EnableBreakpoint(id int, on bool) error {
	s.mu.Lock()
	b, ok := s.bps[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("No breakpoint number %d.", id)
	}
	if b.bp.Spec.Disabled == !on {
		return nil
	}
	if on && !b.bp.Verified { // left without a place by an exec: placed again, if it can be
		return s.placeAgain(b)
	}
	if !b.bp.Verified { // disabled, with no trap to take out
		nb := *b
		nb.bp.Spec.Disabled = true
		s.replaceState(b, &nb)
		return nil
	}
	nb := *b
	nb.bp.Spec.Disabled = !on
	if !s.replaceState(b, &nb) {
		return fmt.Errorf("No breakpoint number %d.", id)
	}
	s.mu.Lock()
	armed := false
	for _, x := range s.byKey[b.key] {
		armed = armed || !x.bp.Spec.Disabled
	}
	s.mu.Unlock()
	if err := s.t.SetTrap(b.bp.Location, armed); err != nil {
		return err
	}
	s.syncConditions(b.key, b.bp.Location)
	return nil
}

// IgnoreBreakpoint makes the breakpoint with this id go on for its next count hits (gdb's
// ignore): its hit condition becomes "> hits + count"; 0 stops at the next hit again.
func (s *Session) IgnoreBreakpoint(id, count int) error {
	return s.changeState(id, func(nb *bpState) error {
		nb.bp.Spec.HitCondition = ""
		nb.hit = nil
		if count > 0 {
			nb.bp.Spec.HitCondition = fmt.Sprintf("> %d", nb.bp.Hits+count)
			var err error
			nb.hit, err = parseHitCondition(nb.bp.Spec.HitCondition)
			return err
		}
		return nil
	})
}

// changeState puts a copy of the breakpoint with this id, changed by change, in its place.
func (s *Session) changeState(id int, change func(nb *bpState) error) error {
	s.mu.Lock()
	b, ok := s.bps[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("No breakpoint number %d.", id)
	}
	nb := *b
	if err := change(&nb); err != nil {
		return err
	}
	if !s.replaceState(b, &nb) {
		return fmt.Errorf("No breakpoint number %d.", id)
	}
	return nil
}

// EnableFor enables the breakpoint with this id for its next count stops, after which it
// disables itself (gdb's enable once, count 1, and enable count).
func (s *Session) EnableFor(id, count int) error {
	if count < 1 {
		return fmt.Errorf("Bad count %d (a positive number is needed).", count)
	}
	return s.respecAndEnable(id, func(spec *BreakpointSpec) { // a disposition instead of another (a tbreak's)
		spec.Counted, spec.StopsLeft, spec.Temporary = true, count, false
	})
}

// EnableTemporary enables the breakpoint with this id and deletes it after its next stop
// (gdb's enable delete: a tbreak made of it).
func (s *Session) EnableTemporary(id int) error {
	return s.respecAndEnable(id, func(spec *BreakpointSpec) { spec.Temporary, spec.Counted, spec.StopsLeft = true, false, 0 })
}

// respecAndEnable changes the spec of the breakpoint with this id, then enables it.
func (s *Session) respecAndEnable(id int, change func(*BreakpointSpec)) error {
	if err := s.changeState(id, func(nb *bpState) error { change(&nb.bp.Spec); return nil }); err != nil {
		return err
	}
	return s.EnableBreakpoint(id, true)
}

// countStop counts a stop against a breakpoint enabled for a number of stops, and disables
// it at the last one.
func (s *Session) countStop(id int) {
	last := false
	_ = s.changeState(id, func(nb *bpState) error {
		if !nb.bp.Spec.Counted || nb.bp.Spec.StopsLeft <= 0 {
			return errNoChange
		}
		nb.bp.Spec.StopsLeft--
		last = nb.bp.Spec.StopsLeft == 0
		return nil
	})
	if last {
		_ = s.EnableBreakpoint(id, false)
	}
}

// errNoChange leaves a breakpoint as it is (changeState).
var errNoChange = errors.New("no change")

// ConditionError is a breakpoint's condition that does not compile where the breakpoint
// is (a syntax error, an operation its types do not allow).
type ConditionError struct {
	Condition string
	Err       error
}

func (e ConditionError) Error() string { return fmt.Sprintf("condition %q: %v", e.Condition, e.Err) }

func (e ConditionError) Unwrap() error { return e.Err }

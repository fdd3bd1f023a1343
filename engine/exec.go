package engine

// A process that runs a new program (exec): its breakpoints are placed again in the new
// program, as gdb re-sets them, those that have no place there disabled; the
// run goes on unless an exec catchpoint (gdb's catch exec) stops it.

import (
	"errors"
	"fmt"
	"sort"
)

// ReasonExec is the stop where the process ran a new program: Stop.Text is its path,
// Stop.BreakpointID the catchpoint that caught it.
const ReasonExec StopReason = "exec"

// ExecCatcher is implemented by targets that report the program's execs.
type ExecCatcher interface {
	// ReportsExecs says whether the target reports execs (ReasonExec), with the program
	// they run loaded in place of the old.
	ReportsExecs() bool
}

// CatchExecs adds a catchpoint on the program's execs (gdb's catch exec) and returns it.
func (s *Session) CatchExecs() (Catchpoint, error) {
	if ec, ok := s.t.(ExecCatcher); !ok || !ec.ReportsExecs() {
		return Catchpoint{}, fmt.Errorf("catch exec: %w", ErrUnsupported)
	}
	return s.addCatchpoint(Catchpoint{OnExec: true}), nil
}

// ExecedProgram is the program the last exec ran in the session's process, "" when it
// ran none: what a run from the beginning starts, as gdb's.
func (s *Session) ExecedProgram() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.execed
}

// followExec places the breakpoints in the program the process now runs, then stops when
// an exec catchpoint is enabled, and otherwise resumes (a step in the old program has no
// place to end: the new one runs, as under gdb).
func (h handler) followExec(stop Stop) {
	s := h.s
	s.mu.Lock()
	s.execed = stop.Text
	s.mu.Unlock()
	s.placeAllAgain()
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return
	}
	for i := range s.catches {
		if c := &s.catches[i]; !c.Disabled && c.OnExec {
			c.Hits++
			c.Program = stop.Text
			stop.BreakpointID = c.ID
			h.publishStop(stop)
			return
		}
	}
	s.mu.Unlock()
	_ = s.t.Resume(Continue)
}

// placeAllAgain places every breakpoint by its spec in the program the target now runs:
// one trap per place, the conditions compiled there again. One that has no place there is
// disabled and left without one (Verified false, Message saying why), as its change event
// tells.
func (s *Session) placeAllAgain() {
	s.mu.Lock()
	olds := make([]*bpState, 0, len(s.bps))
	for _, b := range s.bps {
		olds = append(olds, b)
	}
	s.mu.Unlock()
	sort.Slice(olds, func(i, j int) bool { return olds[i].bp.ID < olds[j].bp.ID })
	byKey := map[locKey][]*bpState{}
	placed := map[int]*bpState{}
	for _, b := range olds {
		nb := &bpState{bp: b.bp, hit: b.hit, log: append([]logPart(nil), b.log...)}
		loc, err := s.resolveSpec(b.bp.Spec)
		if err == nil {
			err = s.compileAt(nb, loc, true)
		}
		if err != nil {
			nb.bp.Location, nb.bp.Verified, nb.key = Location{}, false, locKey{}
			nb.bp.Spec.Disabled, nb.bp.Message = true, err.Error()
		} else {
			byKey[nb.key] = append(byKey[nb.key], nb)
		}
		placed[nb.bp.ID] = nb
	}
	for key, list := range byKey {
		for _, b := range list {
			if !b.bp.Spec.Disabled {
				_ = s.t.SetTrap(b.bp.Location, true)
				break
			}
		}
		s.syncConditions(key, list[0].bp.Location)
	}
	s.mu.Lock()
	for id, nb := range placed {
		if s.bps[id] != nil {
			s.bps[id] = nb
		}
	}
	s.byKey = byKey
	for _, b := range olds {
		bp := placed[b.bp.ID].bp
		s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp})
	}
	s.mu.Unlock()
}

// placeAgain enables a breakpoint an exec left without a place, where its spec places it
// in the program now.
func (s *Session) placeAgain(b *bpState) error {
	loc, err := s.resolveSpec(b.bp.Spec)
	if err != nil {
		return err
	}
	nb := &bpState{bp: b.bp, hit: b.hit, log: append([]logPart(nil), b.log...)}
	nb.bp.Spec.Disabled, nb.bp.Pending = false, false
	if err := s.compileAt(nb, loc, true); err != nil {
		return err
	}
	s.mu.Lock()
	if s.bps[b.bp.ID] != b {
		s.mu.Unlock()
		return errors.New("the breakpoint changed meanwhile")
	}
	first := true
	for _, x := range s.byKey[nb.key] {
		first = first && x.bp.Spec.Disabled
	}
	s.bps[nb.bp.ID] = nb
	s.byKey[nb.key] = append(s.byKey[nb.key], nb)
	bp := nb.bp
	s.emit(Event{Kind: EventBreakpointChanged, Breakpoint: &bp})
	s.mu.Unlock()
	if first {
		if err := s.t.SetTrap(loc, true); err != nil {
			return err
		}
	}
	s.syncConditions(nb.key, loc)
	return nil
}

package engine

import (
	"fmt"
	"sort"
)

// Watch is an expression shown at every stop (a debugger's display or watch list).
type Watch struct {
	ID     int
	Expr   string
	Format byte // a print format its value is shown in (FormatValue: x, d, u, o, t, c); 0 natural
}

// WatchValue is a watch evaluated at one stop: its value, or why it has none.
type WatchValue struct {
	Watch
	Value Variable
	Err   string
}

// watchSnap is the watches' values at one stop.
type watchSnap struct {
	seq    uint64
	values []WatchValue
}

// AddWatch adds an expression evaluated (purely, in the innermost frame) at every stop.
func (s *Session) AddWatch(expr string) Watch { return s.AddWatchFormat(expr, 0) }

// AddWatchFormat adds a watch whose value is shown in a print format (gdb's display/x).
func (s *Session) AddWatchFormat(expr string, format byte) Watch {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextWatch++
	w := Watch{ID: s.nextWatch, Expr: expr, Format: format}
	s.watches = append(s.watches, w)
	s.snap = watchSnap{}
	return w
}

// RestoreWatches replaces every watch with ws, ids included: a front end that starts a new
// session for another run keeps its displays under the numbers the user knows.
func (s *Session) RestoreWatches(ws []Watch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watches, s.snap = append([]Watch(nil), ws...), watchSnap{}
	for _, w := range ws {
		s.nextWatch = max(s.nextWatch, w.ID)
	}
}

// RemoveWatch deletes the watch with this id.
func (s *Session) RemoveWatch(id int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, w := range s.watches {
		if w.ID == id {
			s.watches = append(s.watches[:i:i], s.watches[i+1:]...)
			s.snap = watchSnap{}
			return nil
		}
	}
	return fmt.Errorf("no watch %d", id)
}

// SetWatches replaces every watch with exprs, in order.
func (s *Session) SetWatches(exprs []string) []Watch {
	s.mu.Lock()
	s.watches, s.snap = nil, watchSnap{}
	s.mu.Unlock()
	out := make([]Watch, len(exprs))
	for i, e := range exprs {
		out[i] = s.AddWatch(e)
	}
	return out
}

// Watches lists the watches in the order they were added.
func (s *Session) Watches() []Watch {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]Watch(nil), s.watches...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// WatchValues returns the watches as evaluated at the stop whose event is numbered seq
// (Halt.Seq or Event.Seq). They are evaluated once per stop, when first asked for or at the
// latest before the debuggee resumes, so a front end that reads them late still gets the
// values of that stop. An error says the stop is over and its values were not taken.
func (s *Session) WatchValues(seq uint64) ([]WatchValue, error) {
	s.mu.Lock()
	if s.snap.seq == seq && s.snap.values != nil {
		v := s.snap.values
		s.mu.Unlock()
		return v, nil
	}
	if s.state != Stopped || s.halt.Seq != seq {
		s.mu.Unlock()
		return nil, fmt.Errorf("the stop %d is over: %w", seq, ErrNotStopped)
	}
	s.mu.Unlock()
	s.takeWatches()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap.seq != seq {
		return nil, fmt.Errorf("the stop %d is over: %w", seq, ErrNotStopped)
	}
	return s.snap.values, nil
}

// takeWatches evaluates the watches at the current stop unless it has been done.
func (s *Session) takeWatches() {
	s.mu.Lock()
	seq, ws := s.halt.Seq, s.watches
	if s.state != Stopped || s.snap.seq == seq && s.snap.values != nil {
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	values := make([]WatchValue, len(ws))
	for i, w := range ws {
		values[i].Watch = w
		v, err := s.t.Evaluate(0, w.Expr, EvalMode{Pure: true})
		if err != nil {
			values[i].Err = err.Error()
			continue
		}
		if w.Format != 0 {
			v.Value = s.FormatValue(v, w.Format)
		}
		values[i].Value = v
	}
	s.mu.Lock()
	if s.state == Stopped && s.halt.Seq == seq {
		s.snap = watchSnap{seq: seq, values: values}
	}
	s.mu.Unlock()
}

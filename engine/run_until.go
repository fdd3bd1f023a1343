package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Until says how far RunUntil steps: to a location, until a condition holds, or until a
// breakpoint, an exception or the end stops it — within a step and a time budget.
type Until struct {
	Into      bool      // step into calls (default: over them)
	Location  string    // "FILE:LINE", "LINE" or a function name
	Condition string    // a pure expression, checked after every step
	Watch     []string  // expressions whose changes the trace records
	MaxSteps  int       // 0: 200
	Deadline  time.Time // zero: 5 s from now
}

// TraceStep is one run of steps on a line: where, how many times in a row, and the
// watched values that changed there.
type TraceStep struct {
	Location Location
	Times    int
	Changed  map[string]string
}

// UntilResult is what RunUntil did and where it ended. Reached is "location",
// "condition", "breakpoint", "exception", "ended", "steps" or "time" (a budget spent).
type UntilResult struct {
	Reached string
	Steps   int
	Trace   []TraceStep // the latest MaxTrace entries
	Omitted int         // older entries left out
	Halt    Halt        // the last halt; Halted is false when the program was left running
	Halted  bool
}

// MaxTrace bounds the trace RunUntil keeps.
const MaxTrace = 100

// RunUntil steps a stopped program until u is met, recording a compact trace, so that a
// client learns in one call what many steps did. A program still running when the time
// is spent is paused.
func (s *Session) RunUntil(ctx context.Context, u Until) (UntilResult, error) {
	if st := s.State(); st != Stopped {
		return UntilResult{}, fmt.Errorf("run until: %w (it is %s)", ErrNotStopped, st)
	}
	steps := u.MaxSteps
	if steps <= 0 {
		steps = 200
	}
	deadline := u.Deadline
	if deadline.IsZero() {
		deadline = time.Now().Add(5 * time.Second)
	}
	mode := StepOver
	if u.Into {
		mode = StepInto
	}
	at, err := s.locationTest(u.Location)
	if err != nil {
		return UntilResult{}, err
	}
	r := UntilResult{Halt: s.LastHalt(), Halted: true}
	prev := s.watchTexts(u.Watch)
	for r.Reached == "" {
		if r.Steps >= steps {
			r.Reached = "steps"
			break
		}
		if time.Now().After(deadline) {
			r.Reached = "time"
			break
		}
		seq := s.Seq()
		if err := s.Resume(mode); err != nil {
			return r, err
		}
		wctx, cancel := context.WithDeadline(ctx, deadline.Add(time.Second))
		h, err := s.WaitStop(wctx, seq)
		cancel()
		r.Steps++
		if err != nil {
			r.Reached, r.Halted = "time", false
			break
		}
		r.Halt = h
		if h.State.Ended() {
			r.Reached = "ended"
			break
		}
		loc := h.Stop.Location
		cur := s.watchTexts(u.Watch)
		r.record(loc, changedTexts(prev, cur))
		prev = cur
		switch {
		case h.Stop.Reason == ReasonBreakpoint:
			r.Reached = "breakpoint"
		case h.Stop.Reason == ReasonException:
			r.Reached = "exception"
		case at != nil && at(loc):
			r.Reached = "location"
		case u.Condition != "" && s.holds(u.Condition):
			r.Reached = "condition"
		}
	}
	if seq := s.Seq(); !r.Halted && s.State() == Running { // the number first: a stop just after the check is not missed
		_ = s.Pause()
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		h, err := s.WaitStop(wctx, seq)
		cancel()
		r.Halt, r.Halted = h, err == nil
	}
	return r, nil
}

// record appends a location to the trace, folding repeats of the same line.
func (r *UntilResult) record(loc Location, changed map[string]string) {
	if n := len(r.Trace); n > 0 && len(changed) == 0 {
		last := &r.Trace[n-1]
		if last.Location.Line == loc.Line && last.Location.Func == loc.Func && len(last.Changed) == 0 {
			last.Times = max(last.Times, 1) + 1
			return
		}
	}
	r.Trace = append(r.Trace, TraceStep{Location: loc, Changed: changed})
	if len(r.Trace) > MaxTrace {
		r.Trace = append(r.Trace[:0], r.Trace[1:]...)
		r.Omitted++
	}
}

// locationTest turns "FILE:LINE", "LINE" or a function name into a test of a location.
func (s *Session) locationTest(where string) (func(Location) bool, error) {
	where = strings.TrimSpace(where)
	if where == "" {
		return nil, nil
	}
	file, lineText := "", where
	if i := strings.LastIndexByte(where, ':'); i > 0 {
		file, lineText = where[:i], where[i+1:]
	}
	line, err := strconv.Atoi(lineText)
	if err != nil {
		if file != "" {
			return nil, fmt.Errorf("location %q: want FILE:LINE, LINE or a function name", where)
		}
		return func(l Location) bool { return l.Func == where }, nil
	}
	if file != "" {
		if abs, err := filepath.Abs(file); err == nil {
			if r, err := s.t.ResolveLine(abs, line); err == nil && r.Line > 0 {
				line = r.Line
			}
		}
	}
	return func(l Location) bool {
		return l.Line == line && (file == "" || filepath.Base(l.File) == filepath.Base(file))
	}, nil
}

// watchTexts evaluates exprs (purely, in the innermost frame), each clipped to 80 bytes.
func (s *Session) watchTexts(exprs []string) map[string]string {
	if len(exprs) == 0 {
		return nil
	}
	m := make(map[string]string, len(exprs))
	for _, e := range exprs {
		v, err := s.Evaluate(0, e, EvalMode{Pure: true})
		if err != nil {
			m[e] = "<" + err.Error() + ">"
			continue
		}
		m[e] = ClipValue(v.Value, 80)
	}
	return m
}

func changedTexts(prev, cur map[string]string) map[string]string {
	var out map[string]string
	for k, v := range cur {
		if old, ok := prev[k]; !ok || old != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// holds reports whether cond is true in the innermost frame: evaluated purely, a value
// other than false, zero, nil or empty (a condition that fails is not true).
func (s *Session) holds(cond string) bool {
	v, err := s.Evaluate(0, cond, EvalMode{Pure: true})
	if err != nil {
		return false
	}
	switch v.Value {
	case "", "0", "0.0", "false", "nil", "none", "null", `""`, "[]", "{}":
		return false
	}
	return true
}

package engine

// Conditions on watchpoints (gdb's watch EXPR if COND, DAP's data breakpoint condition):
// the target stops at every change of the place; the session evaluates the condition in
// the stopped program and either makes the stop its own or lets the program go on, without
// a hit counted or an event sent.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// watchCondition is the condition of the watchpoint a data stop is for, "" when it has
// none (or the stop is another kind). s.mu is held.
func (s *Session) watchCondition(stop Stop) string {
	if stop.Reason != ReasonData || stop.BreakpointID == 0 {
		return ""
	}
	w, ok := s.t.(Watchpointer)
	if !ok {
		return ""
	}
	for _, x := range w.Watchpoints() {
		if x.ID == stop.BreakpointID {
			return x.Condition
		}
	}
	return ""
}

// decideWatchStop evaluates cond where the program stopped: true (or an error, said in the
// stop) makes the stop the session's; false resumes the program as it ran.
func (h handler) decideWatchStop(stop Stop, cond string) {
	s := h.s
	v, err := s.t.Evaluate(0, cond, EvalMode{Pure: true})
	if truth, ok := Truth(v.Value); err == nil && ok && !truth { // a value that is no number stops, as an error does
		if rerr := s.t.Resume(Continue); rerr == nil {
			return
		}
	}
	if err != nil {
		stop.Text += fmt.Sprintf("\nError in testing condition for watchpoint %d: %v", stop.BreakpointID, err)
	}
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return
	}
	h.publishStop(stop)
}

// Truth is C's truth of a value's text: a number other than 0, or true; ok is false for a
// text that is neither (a struct, a string).
func Truth(text string) (truth, ok bool) {
	switch text = strings.TrimSpace(text); {
	case text == "true" || text == "false":
		return text == "true", true
	}
	if n, isInt := IntegerOf(text); isInt {
		return n != 0, true
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return f != 0, true
	}
	return false, false
}

// SetWatchCondition sets the condition of watchpoint id ("" removes it); false when there
// is no such watchpoint.
func (s *Session) SetWatchCondition(id int, cond string) (bool, error) {
	ws := s.DataBreakpoints()
	i := slices.IndexFunc(ws, func(w Watchpoint) bool { return w.ID == id })
	if i < 0 {
		return false, nil
	}
	ws[i].Condition = strings.TrimSpace(cond)
	_, err := s.SetDataBreakpoints(ws)
	return true, err
}

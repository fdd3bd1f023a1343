package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// ValueHistory numbers the values a person printed, as gdb's $1, $2..., so that later
// expressions can refer to them, and keeps gdb's convenience variables ($i, set with
// set $i = 0). It outlives a run (gdb keeps both across runs), so a front end holds one
// beside its sessions. The zero value is an empty history.
type ValueHistory struct {
	// mu guards the history against a target reading it (HistoryUser) while a front end
	// records.
	mu     sync.Mutex
	values []Variable
	conv   map[string]Variable
	// objects are the C++ objects recorded by their dynamic class as well (RecordObject),
	// by number.
	objects map[int]HistoryObject
}

// HistoryObject is a C++ object a history value holds, as its dynamic class shows it (gdb's
// set print object on): the class and the object read as one.
type HistoryObject struct {
	Class string
	Value Variable
}

// RecordObject is Record of a C++ object's value by its static type, kept with the object
// read by its dynamic class: printed again, the history value shows whichever print object
// asks for, as gdb's does.
func (h *ValueHistory) RecordObject(static Variable, object HistoryObject) int {
	n := h.Record(static)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.objects == nil {
		h.objects = map[int]HistoryObject{}
	}
	h.objects[n] = object
	return n
}

// LookupObject is the dynamic object recorded for the history value expr names ($, $N...);
// ok is false when it names none or none was recorded.
func (h *ValueHistory) LookupObject(expr string) (HistoryObject, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n, ok := h.number(expr)
	if !ok {
		return HistoryObject{}, false
	}
	o, ok := h.objects[n]
	return o, ok
}

// SetConvenience sets convenience variable $name.
func (h *ValueHistory) SetConvenience(name string, v Variable) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.conv == nil {
		h.conv = map[string]Variable{}
	}
	v.Name = "$" + name
	h.conv[name] = v
}

// Convenience is convenience variable $name, if it was set.
func (h *ValueHistory) Convenience(name string) (Variable, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.conv[name]
	return v, ok
}

// Record adds a value and returns its number (1 for the first).
func (h *ValueHistory) Record(v Variable) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.values = append(h.values, v)
	return len(h.values)
}

// Values lists the history, $1 first.
func (h *ValueHistory) Values() []Variable {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.values)
}

// Substitute replaces the history references in expr by the values they name, in
// parentheses: `$` (the last value), `$$` (the one before), `$$N` (N back), `$N` (value
// N) and `$name` when it is a convenience variable. Any other `$name` (a register) and text
// inside quotes are left alone. A value the target keeps whole (Variable.Kept) is left
// for the target to read (HistoryUser), as $N by its number or $name.
func (h *ValueHistory) Substitute(expr string) (string, error) {
	if !strings.Contains(expr, "$") {
		return expr, nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var b strings.Builder
	for i := 0; i < len(expr); {
		c := expr[i]
		if c == '"' || c == '\'' { // a quoted string or char is copied as it is
			j := QuotedEnd(expr, i)
			b.WriteString(expr[i:j])
			i = j
			continue
		}
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		back := j < len(expr) && expr[j] == '$'
		if back {
			j++
		}
		k := j
		for k < len(expr) && expr[k] >= '0' && expr[k] <= '9' {
			k++
		}
		if !back && k == j && k < len(expr) && isNameByte(expr[k]) { // $rax, $pc, $i
			e := k
			for e < len(expr) && isNameByte(expr[e]) {
				e++
			}
			if v, ok := h.conv[expr[k:e]]; ok && v.Kept == nil {
				b.WriteString("(" + asExpression(v) + ")")
				i = e
				continue
			}
			b.WriteString(expr[i:e])
			i = e
			continue
		}
		n := -1
		if k > j {
			n, _ = strconv.Atoi(expr[j:k])
		}
		v, err := h.value(back, n)
		if err != nil {
			return "", err
		}
		if v.Kept != nil {
			b.WriteString("$" + strconv.Itoa(h.index(back, n)))
		} else {
			b.WriteString("(" + asExpression(v) + ")")
		}
		i = k
	}
	return b.String(), nil
}

// Kept is the target's own value (Variable.Kept) of the history value or convenience
// variable ref names ($N, $name; as Substitute leaves them), when it has one.
func (h *ValueHistory) Kept(ref string) (any, bool) {
	name, ok := strings.CutPrefix(ref, "$")
	if !ok || name == "" {
		return nil, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n, err := strconv.Atoi(name); err == nil && name[0] != '+' && name[0] != '-' {
		if n < 1 || n > len(h.values) || h.values[n-1].Kept == nil {
			return nil, false
		}
		return h.values[n-1].Kept, true
	}
	v, ok := h.conv[name]
	return v.Kept, ok && v.Kept != nil
}

// HistoryUser is a Target whose expressions may name the values a front end keeps whole
// (Variable.Kept) by the references Substitute leaves: it is given the history to read
// them from.
type HistoryUser interface {
	UseHistory(h *ValueHistory)
}

// UseHistory gives the target h to read the values expressions name ($1.x, $v[2]), when it
// keeps values whole (HistoryUser).
func (s *Session) UseHistory(h *ValueHistory) {
	if u, ok := s.t.(HistoryUser); ok {
		u.UseHistory(h)
	}
}

// Lookup is the history value expr names when it is nothing else: $, $$, $N or $$N (ok
// false for any other expression); err says why there is none ("History is empty.").
func (h *ValueHistory) Lookup(expr string) (v Variable, ok bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	expr = strings.TrimSpace(expr)
	rest, isRef := strings.CutPrefix(expr, "$")
	if !isRef {
		return Variable{}, false, nil
	}
	rest, back := strings.CutPrefix(rest, "$")
	n := -1
	if rest != "" {
		var err error
		if n, err = strconv.Atoi(rest); err != nil || n < 0 || rest[0] == '+' || rest[0] == '-' {
			return Variable{}, false, nil
		}
	}
	v, err = h.value(back, n)
	return v, true, err
}

// asExpression is a history value written back as an expression: its text, but a
// pointer's address cast to its type (without the string or symbol shown after it) and a
// character's number ("65 'A'" is 65).
func asExpression(v Variable) string {
	t := strings.TrimSpace(v.Type)
	if strings.HasPrefix(v.Value, "0x") && (strings.HasSuffix(t, "*") || strings.Contains(t, "(*)")) {
		addr, _, _ := strings.Cut(v.Value, " ")
		return "(" + t + ") " + addr
	}
	if n, _, ok := strings.Cut(v.Value, " '"); ok {
		if _, err := strconv.ParseInt(n, 10, 64); err == nil {
			return n
		}
	}
	return v.Value
}

// number is the number of the history value expr names ($, $$, $N, $$N), when it is one
// that exists.
func (h *ValueHistory) number(expr string) (int, bool) {
	rest, isRef := strings.CutPrefix(strings.TrimSpace(expr), "$")
	if !isRef {
		return 0, false
	}
	rest, back := strings.CutPrefix(rest, "$")
	n := -1
	if rest != "" {
		var err error
		if n, err = strconv.Atoi(rest); err != nil || n < 0 || rest[0] == '+' || rest[0] == '-' {
			return 0, false
		}
	}
	idx := h.index(back, n)
	return idx, idx >= 1 && idx <= len(h.values)
}

// index is the number $N (back false, n >= 1), $ (n < 0), $$ (back, n < 0) or $$N names.
func (h *ValueHistory) index(back bool, n int) int {
	last := len(h.values)
	switch {
	case !back && n < 0:
		return last
	case back && n < 0:
		return last - 1
	case back:
		return last - n
	}
	return n
}

// value finds $N (back false, n >= 1), $ (n < 0), $$ (back, n < 0) or $$N.
func (h *ValueHistory) value(back bool, n int) (Variable, error) {
	last, idx := len(h.values), h.index(back, n)
	switch { // in gdb's words
	case !back && n < 0 && last == 0:
		return Variable{}, fmt.Errorf("The history is empty.")
	case back && idx < 1:
		return Variable{}, fmt.Errorf("History does not go back to $$%d.", max(n, 1))
	case idx > last || idx < 1:
		return Variable{}, fmt.Errorf("History has not yet reached $%d.", idx)
	}
	return h.values[idx-1], nil
}

package engine

import (
	"slices"
	"strings"
)

// ScopedVariable is a variable with the scope it was found in ("local", "global"...).
type ScopedVariable struct {
	Scope string
	Variable
}

// FrameLister is implemented by targets that list every variable of a frame in one call,
// scope by scope as FrameVariables returns them: a front end that snapshots the variables
// at every stop (to report what a step changed) then pays one call, not one per scope.
type FrameLister interface {
	AppendFrameVariables(dst []ScopedVariable, frame int) ([]ScopedVariable, error)
}

// FrameVariables returns every variable of a frame, scope by scope in the target's order
// (locals, then globals for Kite), each scope named in the singular and lower case.
func (s *Session) FrameVariables(frame int) ([]ScopedVariable, error) {
	return s.AppendFrameVariables([]ScopedVariable{}, frame)
}

// AppendFrameVariables is FrameVariables appending to dst, so that a front end reuses one
// buffer from stop to stop. On error dst is returned as it was.
func (s *Session) AppendFrameVariables(dst []ScopedVariable, frame int) ([]ScopedVariable, error) {
	if err := s.checkStopped("get variables"); err != nil {
		return dst, err
	}
	if fl, ok := s.t.(FrameLister); ok {
		return fl.AppendFrameVariables(dst, frame)
	}
	scopes, err := s.t.Scopes(frame)
	if err != nil {
		return dst, err
	}
	out := dst
	for _, sc := range scopes {
		vs, err := s.t.Variables(sc.Ref)
		if err != nil {
			return dst, err
		}
		out = slices.Grow(out, len(vs))
		scope := ScopeName(sc.Name)
		for _, v := range vs {
			out = append(out, ScopedVariable{Scope: scope, Variable: v})
		}
	}
	return out, nil
}

// ScopeName is a scope's name as ScopedVariable.Scope has it, in the singular and lower
// case ("Locals": "local"), without an allocation for the usual names (a stepping front end
// asks at every stop).
func ScopeName(name string) string {
	switch name {
	case "Locals":
		return "local"
	case "Globals":
		return "global"
	}
	return strings.ToLower(strings.TrimSuffix(name, "s"))
}

// ChangedVariables returns the variables of after that before did not have, or had with
// another value or type, in after's order: what a step changed. Variables are matched by
// scope and name, and by occurrence for a name declared again in an inner block.
func ChangedVariables(before, after []ScopedVariable) []ScopedVariable {
	if out, ok := changedInPlace(before, after); ok {
		return out
	}
	changes, _ := DiffVariables(before, after)
	var out []ScopedVariable
	for i, c := range changes {
		if c != VarSame {
			out = append(out, after[i])
		}
	}
	return out
}

// VarChange is how a variable differs from an earlier snapshot of its frame.
type VarChange uint8

const (
	VarSame    VarChange = iota // in the snapshot, with the same value and type
	VarNew                      // not in the snapshot
	VarChanged                  // in the snapshot, with another value or type
)

// String is "", "new" or "changed".
func (c VarChange) String() string {
	switch c {
	case VarNew:
		return "new"
	case VarChanged:
		return "changed"
	}
	return ""
}

// DiffVariables compares a frame's variables, after, with an earlier snapshot, before,
// matched as ChangedVariables matches them: how each of after's variables changed, in
// after's order, and before's variables that after no longer has.
func DiffVariables(before, after []ScopedVariable) (changes []VarChange, gone []ScopedVariable) {
	type key struct {
		scope, name string
		n           int // the occurrence of scope and name in its list
	}
	keyOf := func(count map[key]int, v ScopedVariable) key {
		k := key{v.Scope, v.Name, 0}
		k.n = count[k]
		count[k]++
		return k
	}
	at := make(map[key]int, len(before)) // where each of before's variables is
	count := map[key]int{}
	for i, v := range before {
		at[keyOf(count, v)] = i
	}
	changes, found := make([]VarChange, len(after)), make([]bool, len(before))
	clear(count)
	for i, v := range after {
		j, ok := at[keyOf(count, v)]
		switch {
		case !ok:
			changes[i] = VarNew
		case before[j].Value != v.Value || before[j].Type != v.Type:
			changes[i] = VarChanged
		}
		if ok {
			found[j] = true
		}
	}
	for j, v := range before {
		if !found[j] {
			gone = append(gone, v)
		}
	}
	return changes, gone
}

// changedInPlace is ChangedVariables for the usual step, which stays among the same
// variables in the same order: compared pair by pair, without maps. ok is false when the
// lists differ in their names, for ChangedVariables to match them.
func changedInPlace(before, after []ScopedVariable) (out []ScopedVariable, ok bool) {
	if len(before) != len(after) {
		return nil, false
	}
	for i := range after {
		if before[i].Scope != after[i].Scope || before[i].Name != after[i].Name {
			return nil, false
		}
	}
	for i, v := range after {
		if old := before[i]; old.Value != v.Value || old.Type != v.Type {
			out = append(out, v)
		}
	}
	return out, true
}

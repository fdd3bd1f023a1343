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
		scope := scopeName(sc.Name)
		for _, v := range vs {
			out = append(out, ScopedVariable{Scope: scope, Variable: v})
		}
	}
	return out, nil
}

// scopeName is a scope's name in the singular and lower case ("Locals": "local"), without
// an allocation for the usual names (a stepping front end asks at every stop).
func scopeName(name string) string {
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
	type key struct {
		scope, name string
		n           int
	}
	keys := func(list []ScopedVariable, each func(key, ScopedVariable)) {
		count := map[key]int{}
		for _, v := range list {
			k := key{v.Scope, v.Name, 0}
			n := count[k]
			count[k]++
			k.n = n
			each(k, v)
		}
	}
	seen := make(map[key]ScopedVariable, len(before))
	keys(before, func(k key, v ScopedVariable) { seen[k] = v })
	var out []ScopedVariable
	keys(after, func(k key, v ScopedVariable) {
		if old, ok := seen[k]; !ok || old.Value != v.Value || old.Type != v.Type {
			out = append(out, v)
		}
	})
	return out
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

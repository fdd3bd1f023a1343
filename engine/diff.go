package engine

import "strings"

// ScopedVariable is a variable with the scope it was found in ("local", "global"...).
type ScopedVariable struct {
	Scope string
	Variable
}

// FrameVariables returns every variable of a frame, scope by scope in the target's order
// (locals, then globals for Kite), each scope named in the singular and lower case.
func (s *Session) FrameVariables(frame int) ([]ScopedVariable, error) {
	scopes, err := s.Scopes(frame)
	if err != nil {
		return nil, err
	}
	out := []ScopedVariable{}
	for _, sc := range scopes {
		vs, err := s.Variables(sc.Ref)
		if err != nil {
			return nil, err
		}
		scope := strings.ToLower(strings.TrimSuffix(sc.Name, "s"))
		for _, v := range vs {
			out = append(out, ScopedVariable{Scope: scope, Variable: v})
		}
	}
	return out, nil
}

// ChangedVariables returns the variables of after that before did not have, or had with
// another value or type, in after's order: what a step changed. Variables are matched by
// scope and name, and by occurrence for a name declared again in an inner block.
func ChangedVariables(before, after []ScopedVariable) []ScopedVariable {
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

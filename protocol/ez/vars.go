package ez

// snapshot returns frame 0's variables (locals, then globals) of the stopped program.
func (ss *session) snapshot() ([]variable, bool) {
	vs, err := ss.frameVars(0)
	return vs, err == nil
}

// changed returns the variables of after that before did not have, or had with another
// value or type, in after's order. Variables are matched by scope and name (and by
// occurrence, for a name declared again in an inner block).
func changed(before, after []variable) []variable {
	type key struct {
		scope, name string
		n           int
	}
	seen := make(map[key]variable, len(before))
	count := map[key]int{}
	for _, v := range before {
		k := key{v.Scope, v.Name, 0}
		k.n = count[k]
		count[key{v.Scope, v.Name, 0}]++
		seen[k] = v
	}
	clear(count)
	var out []variable
	for _, v := range after {
		k := key{v.Scope, v.Name, 0}
		k.n = count[k]
		count[key{v.Scope, v.Name, 0}]++
		if old, ok := seen[k]; !ok || old.Value != v.Value || old.Type != v.Type {
			out = append(out, v)
		}
	}
	return out
}

package engine

import (
	"slices"
	"testing"
)

func scoped(scope, name, value string) ScopedVariable {
	return ScopedVariable{Scope: scope, Variable: Variable{Name: name, Value: value, Type: "int"}}
}

// A step that stays among the same variables is compared pair by pair, with at most the
// result allocated; a step among other variables (a call, a new declaration, a name shadowed
// again) is matched by scope, name and occurrence.
func TestChangedVariables(t *testing.T) {
	names := func(vs []ScopedVariable) (out []string) {
		for _, v := range vs {
			out = append(out, v.Scope+":"+v.Name+"="+v.Value)
		}
		return out
	}
	before := []ScopedVariable{scoped("local", "x", "1"), scoped("local", "x", "2"), scoped("global", "i", "0")}
	after := []ScopedVariable{scoped("local", "x", "1"), scoped("local", "x", "3"), scoped("global", "i", "1")}
	if got := names(ChangedVariables(before, after)); !slices.Equal(got, []string{"local:x=3", "global:i=1"}) {
		t.Fatalf("same variables: %v", got)
	}
	if got := ChangedVariables(after, after); len(got) != 0 {
		t.Fatalf("nothing changed: %v", got)
	}
	moved := []ScopedVariable{scoped("local", "y", "5"), scoped("global", "i", "1"), scoped("local", "x", "1"), scoped("local", "x", "3")}
	if got := names(ChangedVariables(after, moved)); !slices.Equal(got, []string{"local:y=5"}) {
		t.Fatalf("other variables: %v", got)
	}
	if n := testing.AllocsPerRun(100, func() { ChangedVariables(before, after) }); n > 2 { // the result, growing to two
		t.Errorf("same variables: %v allocations, want at most 2", n)
	}
	if n := testing.AllocsPerRun(100, func() { _ = ScopeName("Locals") + ScopeName("Globals") }); n > 0 {
		t.Errorf("scope names: %v allocations", n)
	}
}

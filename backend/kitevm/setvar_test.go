package kitevm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
)

const setSrc = `let g = 1
const K = 5
fn work(n) {
    let xs = [1, 2, 3]
    let m = {"a": 1, b: {"c": 2}}
    let c = 10
    let f = fn() { return c }
    print(n, g, xs, m, c, f())
}
work(4)
`

// scopeVars returns the variables of a frame's named scope and its reference.
func scopeVars(t *testing.T, s *engine.Session, frame int, name string) (int, map[string]engine.Variable) {
	t.Helper()
	scopes, err := s.Scopes(frame)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scopes {
		if sc.Name == name {
			vs, err := s.Variables(sc.Ref)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]engine.Variable{}
			for _, v := range vs {
				out[v.Name] = v
			}
			return sc.Ref, out
		}
	}
	t.Fatalf("no scope %s", name)
	return 0, nil
}

func TestSetVariableEverywhere(t *testing.T) {
	h := start(t, setSrc, func(h *harness) { h.line(8) }, false)
	h.stop(engine.ReasonBreakpoint, 8)
	s := h.s
	locals, vars := scopeVars(t, s, 0, "Locals")
	if !vars["n"].Arg || vars["xs"].Arg {
		t.Fatalf("parameter flags: n %+v, xs %+v", vars["n"], vars["xs"])
	}
	set := func(ref int, name, value, want string) {
		t.Helper()
		v, err := s.SetVariable(0, ref, name, value)
		if err != nil || v.Value != want {
			t.Fatalf("set %s = %s: %+v, %v", name, value, v, err)
		}
	}
	set(locals, "n", "n * 10 + len(xs)", "43")
	globals, _ := scopeVars(t, s, 0, "Globals")
	set(globals, "g", `"two"`, `"two"`)
	set(locals, "xs", "[7, 8, 9]", "[7, 8, 9]")
	_, vars = scopeVars(t, s, 0, "Locals")
	set(vars["xs"].Ref, "1", "80", "80")
	set(vars["m"].Ref, `"a"`, "true", "true")
	mvars, err := s.Variables(vars["m"].Ref)
	h.do(err)
	set(mvars[1].Ref, `"c"`, "2.5", "2.5")
	set(vars["f"].Ref, "c", "11", "11") // the closure's captured variable
	set(0, `m.b["c"]`, "m.b.c * 2", "5.0")
	set(0, "xs[2]", "-9", "-9")
	if got := h.eval("c"); got != "11" {
		t.Fatalf("the captured variable is shared with the frame: c = %s", got)
	}
	for _, bad := range []struct {
		ref               int
		name, value, want string
	}{
		{0, "K", "6", "constant"},
		{locals, "nope", "1", "no variable"},
		{0, "xs[5]", "1", "out of range"},
		{0, "len(xs)", "1", "cannot assign"},
		{0, "n", "1 +", ""},
		{vars["xs"].Ref, "x", "1", "not an index"},
		{9999, "n", "1", ""},
	} {
		if _, err := s.SetVariable(0, bad.ref, bad.name, bad.value); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("set %s = %s: %v, want an error with %q", bad.name, bad.value, err, bad.want)
		}
	}
	if _, err := s.SetVariable(0, 9999, "n", "1"); !errors.Is(err, engine.ErrNoVariable) {
		t.Errorf("unknown reference: %v", err)
	}
	h.do(s.Continue())
	h.exit(0)
	want := `43 two [7, 80, -9] {"a": true, "b": {"c": 5.0}} 11 11`
	if strings.TrimSpace(h.output.String()) != want {
		t.Fatalf("the program printed %q, want %q", h.output.String(), want)
	}
}

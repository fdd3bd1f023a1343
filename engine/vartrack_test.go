package engine

import (
	"slices"
	"strconv"
	"testing"
)

// varsFake is fakeTarget whose frame also has tmp on lines 2 (7) and 3 (8): a variable
// that is new at line 2, changed at line 3 and gone at line 4.
type varsFake struct{ *fakeTarget }

func (f varsFake) Variables(ref int) ([]Variable, error) {
	vs, err := f.fakeTarget.Variables(ref)
	if err == nil && (f.line == 2 || f.line == 3) {
		vs = append(vs, Variable{Name: "tmp", Value: strconv.Itoa(f.line + 5), Type: "int"})
	}
	return vs, err
}

func changeList(vs []ScopedVariable, changes []VarChange) (out []string) {
	for i, v := range vs {
		out = append(out, v.Name+"="+v.Value+":"+changes[i].String())
	}
	return out
}

func varList(vs []ScopedVariable) (out []string) {
	for _, v := range vs {
		out = append(out, v.Scope+":"+v.Name+"="+v.Value)
	}
	return out
}

// Stepping through varsFake, the tracker reports what each step made new or changed, and
// DiffVariables says which of them is new and what is gone; a reset (a continue) or a
// snapshot that could not be read leaves nothing to compare with.
func TestVarTracker(t *testing.T) {
	s := NewSession(varsFake{newFake(4, 1<<30)})
	t.Cleanup(func() { _ = s.Close() })
	var vt VarTracker
	vt.Snapshot(s, 0) // not started: nothing to read
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, 0) // entry, line 1 of round 0
	if got := vt.Update(s, 0); got != nil {
		t.Fatalf("with no snapshot: %v", varList(got))
	}
	vt.Snapshot(s, 0) // held since Update: kept
	before, _ := s.FrameVariables(0)
	step := func() []ScopedVariable {
		t.Helper()
		if err := s.Resume(StepInto); err != nil {
			t.Fatal(err)
		}
		h = wait(t, s, h.Seq)
		return vt.Update(s, 0)
	}
	for _, tc := range []struct {
		changed, diff, gone []string
	}{
		{changed: []string{"local:line=2", "local:tmp=7"}, diff: []string{"i=0:", "line=2:changed", "tmp=7:new"}},
		{changed: []string{"local:line=3", "local:tmp=8"}, diff: []string{"i=0:", "line=3:changed", "tmp=8:changed"}},
		{changed: []string{"local:line=4"}, diff: []string{"i=0:", "line=4:changed"}, gone: []string{"local:tmp=8"}},
		{changed: []string{"local:i=1", "local:line=1"}, diff: []string{"i=1:changed", "line=1:changed"}},
	} {
		changed := step()
		after, _ := s.FrameVariables(0)
		changes, gone := DiffVariables(before, after)
		if got := varList(changed); !slices.Equal(got, tc.changed) {
			t.Errorf("at line %d: Update reported %v, want %v", h.Stop.Location.Line, got, tc.changed)
		}
		if got := changeList(after, changes); !slices.Equal(got, tc.diff) {
			t.Errorf("at line %d: DiffVariables %v, want %v", h.Stop.Location.Line, got, tc.diff)
		}
		if got := varList(gone); !slices.Equal(got, tc.gone) {
			t.Errorf("at line %d: gone %v, want %v", h.Stop.Location.Line, got, tc.gone)
		}
		vt.Snapshot(s, 0) // held since Update: kept
		before = after
	}
	vt.Reset()
	if got := step(); got != nil {
		t.Errorf("after a reset: %v", varList(got))
	}
	if got := step(); !slices.Equal(varList(got), []string{"local:line=3", "local:tmp=8"}) {
		t.Errorf("the stop's Update left no snapshot: %v", varList(got))
	}
}

// DiffVariables matches variables by scope, name and occurrence: a name declared again in an
// inner block is its own variable, new when it appears and gone when its block ends.
func TestDiffVariables(t *testing.T) {
	outer := []ScopedVariable{scoped("local", "x", "1"), scoped("global", "x", "9")}
	inner := []ScopedVariable{scoped("local", "x", "1"), scoped("local", "x", "2"), scoped("global", "x", "9")}
	changes, gone := DiffVariables(outer, inner)
	if got := changeList(inner, changes); !slices.Equal(got, []string{"x=1:", "x=2:new", "x=9:"}) || gone != nil {
		t.Errorf("a name declared again: %v, gone %v", got, varList(gone))
	}
	changes, gone = DiffVariables(inner, outer)
	if got := changeList(outer, changes); !slices.Equal(got, []string{"x=1:", "x=9:"}) || !slices.Equal(varList(gone), []string{"local:x=2"}) {
		t.Errorf("its block ended: %v, gone %v", got, varList(gone))
	}
	retyped := []ScopedVariable{scoped("local", "x", "1"), scoped("global", "x", "9")}
	retyped[1].Type = "float"
	changes, gone = DiffVariables(outer, retyped)
	if got := changeList(retyped, changes); !slices.Equal(got, []string{"x=1:", "x=9:changed"}) || gone != nil {
		t.Errorf("another type: %v, gone %v", got, varList(gone))
	}
	changes, gone = DiffVariables(nil, outer)
	if got := changeList(outer, changes); !slices.Equal(got, []string{"x=1:new", "x=9:new"}) || gone != nil {
		t.Errorf("from nothing: %v, gone %v", got, varList(gone))
	}
}

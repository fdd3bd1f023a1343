package engine

import (
	"strings"
	"testing"
)

// execFake is the fake program, reporting its exec.
type execFake struct{ *fakeTarget }

func (execFake) ReportsExecs() bool { return true }

// At an exec the breakpoints are placed again in the new program: one its spec places
// there traps again and is reached, one it does not is disabled, left without a place
// (Verified false, with the reason) and told to subscribers; the run goes on by itself.
// Enabling that one fails while it has no place.
func TestExecPlacesBreakpointsAgain(t *testing.T) {
	s, f := fakeSession(t, 4, 3)
	f.execAt = 2
	sub := s.Subscribe()
	main, err := s.SetBreakpoint(BreakpointSpec{Kind: FunctionBreakpoint, Function: "main"})
	if err != nil {
		t.Fatal(err)
	}
	line3, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 3})
	if err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.Stop.BreakpointID != main.ID || h.Stop.Location.File != "/prog.fake" {
		t.Fatalf("first stop: %+v", h.Stop)
	}
	seq = s.Seq()
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, seq) // the exec is not a stop: line 3's trap went with the old program
	if h.Stop.BreakpointID != main.ID || h.Stop.Location.File != "/new.fake" || h.Stop.Location.Line != 1 {
		t.Fatalf("after the exec: %+v", h.Stop)
	}
	for _, b := range s.Breakpoints() {
		switch b.ID {
		case main.ID:
			if !b.Verified || b.Location.File != "/new.fake" || b.Spec.Disabled {
				t.Errorf("main's breakpoint after the exec: %+v", b)
			}
		case line3.ID:
			if b.Verified || !b.Spec.Disabled || !strings.Contains(b.Message, "no code at /prog.fake:3") {
				t.Errorf("the old file's line after the exec: %+v", b)
			}
		}
	}
	told := false
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		told = told || e.Kind == EventBreakpointChanged && e.Breakpoint.ID == line3.ID && !e.Breakpoint.Verified
	}
	if !told {
		t.Error("no event said the line's breakpoint lost its place")
	}
	if err := s.EnableBreakpoint(line3.ID, true); err == nil {
		t.Error("a breakpoint without a place enabled")
	}
}

// catch exec stops at the exec, numbered by its catchpoint, which keeps the program.
func TestCatchExec(t *testing.T) {
	f := newFake(4, 2)
	f.execAt = 2
	s := NewSession(execFake{f})
	t.Cleanup(func() { _ = s.Close() })
	if _, err := NewSession(f).CatchExecs(); err == nil {
		t.Error("catch exec on a target that reports no execs")
	}
	c, err := s.CatchExecs()
	if err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, seq)
	if h.Stop.Reason != ReasonExec || h.Stop.BreakpointID != c.ID || h.Stop.Text != "/new.fake" {
		t.Fatalf("stop: %+v", h.Stop)
	}
	if cs := s.Catchpoints(); cs[0].Hits != 1 || cs[0].Program != "/new.fake" {
		t.Errorf("catchpoint %+v", cs[0])
	}
}

// A breakpoint without a place (an exec's, or a restart's in a program that has no place
// for it) is kept under its number, disabled and deleted without a trap to take out.
func TestUnplacedBreakpoints(t *testing.T) {
	s, f := fakeSession(t, 4, 1)
	bps := s.RestoreBreakpoints([]Breakpoint{{ID: 3, Spec: BreakpointSpec{Kind: FunctionBreakpoint, Function: "nosuch"}},
		{ID: 4, Spec: BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 2}}})
	if bps[0].Verified || bps[0].Message == "" || !bps[1].Verified {
		t.Fatalf("restored %+v", bps)
	}
	if got := s.Breakpoints(); len(got) != 2 || got[0].ID != 3 || got[0].Verified {
		t.Fatalf("kept %+v", got)
	}
	if next, _ := s.SetBreakpoint(BreakpointSpec{Kind: FunctionBreakpoint, Function: "main"}); next.ID != 5 {
		t.Errorf("a breakpoint after them is %d, want 5", next.ID)
	}
	if err := s.EnableBreakpoint(3, false); err != nil {
		t.Errorf("disable: %v", err)
	}
	if err := s.EnableBreakpoint(3, true); err == nil {
		t.Error("a breakpoint without a place enabled")
	}
	if err := s.RemoveBreakpoint(3); err != nil || len(s.Breakpoints()) != 2 {
		t.Errorf("delete: %v, %d left", err, len(s.Breakpoints()))
	}
}

package engine

import "testing"

// A function breakpoint bound to a stand-in before the program runs (a PLT entry) moves to
// the function when the target says its libraries are loaded: its trap follows (the
// stand-in's stays for a line breakpoint that shares its place), its condition is compiled
// again there, subscribers see the change, and it then stops where it was moved.
func TestStandInMovesWhenLibrariesLoad(t *testing.T) {
	s, f := fakeSession(t, 4, 3)
	f.libLine = 3
	sub := s.Subscribe()
	lib, err := s.SetBreakpoint(BreakpointSpec{Kind: FunctionBreakpoint, Function: "lib", Condition: "i == 1"})
	if err != nil {
		t.Fatal(err)
	}
	if !lib.Location.StandIn || lib.Location.Line != 1 || lib.Location.Func != "lib@plt" {
		t.Fatalf("before the start: %+v", lib.Location)
	}
	line, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 1, Condition: "i == 2"})
	if err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, seq)
	if h.State != Stopped || h.Stop.BreakpointID != lib.ID || h.Stop.Location.Line != 3 {
		t.Fatalf("first stop: %+v", h.Stop)
	}
	if v, _ := s.Evaluate(0, "i", EvalMode{}); v.Value != "1" {
		t.Fatalf("stopped in round %s, want the condition's 1", v.Value)
	}
	for _, b := range s.Breakpoints() {
		if b.ID == lib.ID && (b.Location.StandIn || b.Location.Line != 3 || b.Location.Func != "lib") {
			t.Errorf("moved: %+v", b.Location)
		}
	}
	f.mu.Lock()
	on1, on3 := f.traps[1], f.traps[3]
	f.mu.Unlock()
	if !on1 || !on3 {
		t.Errorf("traps at the stand-in's line %v (the line breakpoint's), at the function's %v", on1, on3)
	}
	changed := false
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		if e.Kind == EventBreakpointChanged && !e.Created && e.Breakpoint.ID == lib.ID && e.Breakpoint.Location.Line == 3 {
			changed = true
		}
	}
	if !changed {
		t.Error("no event for the move")
	}
	seq = s.Seq()
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.Stop == nil || h.Stop.BreakpointID != line.ID {
		t.Fatalf("second stop: %+v", h)
	}
}

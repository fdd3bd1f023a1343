package engine

import "testing"

// siteFake is fakeTarget where function main also has a copy at line 4 (as an inlined
// copy): its trap covers lines 1 and 4, and a hit at 4 is reported as a hit of line 1.
type siteFake struct{ *fakeTarget }

type siteHandler struct{ Handler }

func (s siteFake) Start(h Handler, stopOnEntry bool) error {
	return s.fakeTarget.Start(siteHandler{h}, stopOnEntry)
}

func (s siteFake) SetTrap(loc Location, on bool) error {
	if loc.Line == 1 {
		s.mu.Lock()
		s.traps[4] = on
		s.mu.Unlock()
	}
	return s.fakeTarget.SetTrap(loc, on)
}

func (s siteFake) TrapSites(loc Location) []Location {
	if loc.Line == 1 {
		return []Location{loc, s.loc(4)}
	}
	return []Location{loc}
}

func (h siteHandler) Trap(loc Location) *Stop {
	if loc.Line != 4 {
		return h.Handler.Trap(loc)
	}
	st := h.Handler.Trap(Location{File: loc.File, Line: 1, Func: "main", PC: 1, HasPC: true})
	if st != nil {
		st.Location = loc
	}
	return st
}

func TestOneBreakpointAtSeveralSites(t *testing.T) {
	f := newFake(5, 3)
	s := NewSession(siteFake{f})
	t.Cleanup(func() { _ = s.Close() })
	bp, err := s.SetBreakpoint(BreakpointSpec{Kind: FunctionBreakpoint, Function: "main"})
	if err != nil {
		t.Fatal(err)
	}
	sites, err := s.BreakpointSites(bp.ID)
	if err != nil || len(sites) != 2 || sites[0].Line != 1 || sites[1].Line != 4 {
		t.Fatalf("sites %+v, %v", sites, err)
	}
	if _, err := s.BreakpointSites(bp.ID + 1); err == nil {
		t.Error("sites of a breakpoint that does not exist")
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for {
		h := wait(t, s, seq)
		if h.State != Stopped {
			break
		}
		if h.Stop.BreakpointID != bp.ID {
			t.Fatalf("stop %+v, want breakpoint %d", h.Stop, bp.ID)
		}
		lines = append(lines, h.Stop.Location.Line)
		seq = h.Seq
		if err := s.Resume(Continue); err != nil {
			t.Fatal(err)
		}
	}
	if len(lines) != 6 || lines[0] != 1 || lines[1] != 4 {
		t.Fatalf("stopped at %v, want 1 and 4 in each of 3 rounds", lines)
	}
	if got := s.Breakpoints()[0].Hits; got != 6 {
		t.Errorf("hits %d, want 6", got)
	}
	// a target without sites: the breakpoint's own location
	s2, _ := fakeSession(t, 5, 1)
	bp2, _ := s2.SetBreakpoint(BreakpointSpec{Kind: FunctionBreakpoint, Function: "main"})
	if sites, err := s2.BreakpointSites(bp2.ID); err != nil || len(sites) != 1 || sites[0].Line != 1 {
		t.Errorf("sites %+v, %v", sites, err)
	}
}

package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// moreFake is fakeTarget with a frame that can be moved (Jumper), watchpoints and detach.
type moreFake struct {
	*fakeTarget
	jumped   []Location
	watches  []Watchpoint
	detached bool
}

func (m *moreFake) JumpTargets(file string, line int) ([]Location, error) {
	return []Location{m.loc(line)}, nil
}

func (m *moreFake) Jump(loc Location) error {
	m.jumped = append(m.jumped, loc)
	return nil
}

func (m *moreFake) DataTarget(frame int, expr string) (Watchpoint, []DataAccess, error) {
	return Watchpoint{Name: expr, Addr: 0x1000, Size: 4}, []DataAccess{DataWrite}, nil
}

func (m *moreFake) SetWatchpoints(ws []Watchpoint) []Watchpoint {
	for i := range ws {
		ws[i].Verified = true
	}
	m.watches = ws
	return ws
}

func (m *moreFake) Watchpoints() []Watchpoint { return m.watches }

func (m *moreFake) Detach() error {
	m.detached = true
	return m.Terminate()
}

func stoppedMore(t *testing.T) (*Session, *moreFake) {
	t.Helper()
	m := &moreFake{fakeTarget: newFake(5, 1<<30)} // runs on until closed: a test may find it running
	s := NewSession(m)
	t.Cleanup(func() { _ = s.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq := s.Seq()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitStop(ctx, seq); err != nil {
		t.Fatal(err)
	}
	return s, m
}

// Goto moves the frame and reports a new stop (reason goto) that WaitStop and every
// subscriber see; it is refused while running and by targets that cannot.
func TestGotoIsANewStop(t *testing.T) {
	s, m := stoppedMore(t)
	sub := s.Subscribe()
	seq := s.Seq()
	locs, err := s.GotoTargets(m.file, 3)
	if err != nil || len(locs) != 1 {
		t.Fatalf("targets %v, %v", locs, err)
	}
	if err := s.Goto(locs[0]); err != nil {
		t.Fatal(err)
	}
	h, err := s.WaitStop(context.Background(), seq)
	if err != nil || h.Stop.Reason != ReasonGoto || h.Stop.Location.Line != 3 || len(m.jumped) != 1 {
		t.Fatalf("halt %+v, %v (jumped %v)", h, err, m.jumped)
	}
	if e, ok, _ := sub.TryNext(); !ok || e.Kind != EventStopped || e.Stop.Reason != ReasonGoto {
		t.Fatalf("event %+v %v", e, ok)
	}
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	if err := s.Goto(locs[0]); !errors.Is(err, ErrRunning) {
		t.Fatalf("goto while running: %v", err)
	}
	plain := NewSession(newFake(3, 1))
	if _, err := plain.GotoTargets("/prog.fake", 1); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("goto on a target without it: %v", err)
	}
}

// Data breakpoints get ids from the breakpoints' sequence; an unchanged one keeps its id.
func TestDataBreakpointIDs(t *testing.T) {
	s, _ := stoppedMore(t)
	bp, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: "/prog.fake", Line: 2})
	if err != nil {
		t.Fatal(err)
	}
	w, access, err := s.DataBreakpointInfo(0, "x")
	if err != nil || w.Addr != 0x1000 || len(access) != 1 {
		t.Fatalf("info %+v %v %v", w, access, err)
	}
	w.Access = DataWrite
	first, err := s.SetDataBreakpoints([]Watchpoint{w})
	if err != nil || len(first) != 1 || !first[0].Verified || first[0].ID == bp.ID {
		t.Fatalf("set %+v %v (line breakpoint %d)", first, err, bp.ID)
	}
	other := w
	other.Addr = 0x2000
	again, err := s.SetDataBreakpoints([]Watchpoint{other, w})
	if err != nil || again[1].ID != first[0].ID || again[0].ID == first[0].ID {
		t.Fatalf("again %+v %v", again, err)
	}
}

// Detach lets the target go and ends the session as terminated.
func TestDetachEndsTheSession(t *testing.T) {
	s, m := stoppedMore(t)
	if err := s.Detach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !m.detached || s.State() != Terminated {
		t.Fatalf("detached %v, state %v", m.detached, s.State())
	}
	plain := NewSession(newFake(3, 1))
	if err := plain.Detach(context.Background()); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("detach on a target without it: %v", err)
	}
}

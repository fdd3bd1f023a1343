package engine

import (
	"context"
	"errors"
	"testing"
)

// popFake is moreFake whose frames can be made to return (FramePopper).
type popFake struct {
	*moreFake
	popped []string // "frame value" per PopFrames
}

func (p *popFake) PopFrames(frame int, value string) (Location, error) {
	if frame > 2 {
		return Location{}, ErrNoFrame
	}
	p.popped = append(p.popped, string(rune('0'+frame))+" "+value)
	return p.loc(4), nil
}

// Return pops frames through the target and reports a new stop (reason return) in the
// caller that WaitStop and every subscriber see; the target's refusal comes back as it
// is, and it is refused while running and by targets that cannot.
func TestReturnIsANewStop(t *testing.T) {
	p := &popFake{moreFake: &moreFake{fakeTarget: newFake(5, 1<<30)}}
	s := NewSession(p)
	t.Cleanup(func() { _ = s.Close() })
	seq := s.Seq()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitStop(context.Background(), seq); err != nil {
		t.Fatal(err)
	}
	sub := s.Subscribe()
	seq = s.Seq()
	if err := s.Return(1, "42"); err != nil {
		t.Fatal(err)
	}
	h, err := s.WaitStop(context.Background(), seq)
	if err != nil || h.Stop.Reason != ReasonReturn || h.Stop.Location.Line != 4 || len(p.popped) != 1 || p.popped[0] != "1 42" {
		t.Fatalf("halt %+v, %v (popped %q)", h, err, p.popped)
	}
	if st := s.LastStop(); st == nil || st.Reason != ReasonReturn {
		t.Fatalf("last stop %+v", st)
	}
	if e, ok, _ := sub.TryNext(); !ok || e.Kind != EventStopped || e.Stop.Reason != ReasonReturn {
		t.Fatalf("event %+v %v", e, ok)
	}
	if err := s.Return(7, ""); !errors.Is(err, ErrNoFrame) {
		t.Fatalf("return from frame 7: %v", err)
	}
	if err := s.Return(-1, ""); !errors.Is(err, ErrNoFrame) {
		t.Fatalf("return from frame -1: %v", err)
	}
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	if err := s.Return(0, ""); !errors.Is(err, ErrRunning) {
		t.Fatalf("return while running: %v", err)
	}
	plain := NewSession(newFake(3, 1))
	if err := plain.Return(0, ""); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("return on a target without it: %v", err)
	}
}

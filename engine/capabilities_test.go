package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// resetFake is fakeTarget with a reset that stops at line 1 (its "reset vector").
type resetFake struct{ *fakeTarget }

func (r resetFake) Reset(halt bool) error {
	r.h.Stopped(Stop{Reason: ReasonReset, Location: r.loc(1)})
	return nil
}

func TestResetReachesEverySubscriber(t *testing.T) {
	f := newFake(4, 1000000)
	s := NewSession(resetFake{f})
	t.Cleanup(func() { _ = s.Close() })
	a, b := s.Subscribe(), s.Subscribe()
	seq := s.Seq()
	if err := s.Start(false); err != nil { // running: Reset pauses first
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := s.Reset(ctx, true)
	if err != nil || h.State != Stopped || h.Stop.Reason != ReasonReset || h.Stop.Location.Line != 1 || h.Seq <= seq {
		t.Fatalf("Reset = %+v, %v", h, err)
	}
	if ls := s.LastHalt(); ls.Seq != h.Seq || s.State() != Stopped {
		t.Fatalf("last halt %+v, state %v", ls, s.State())
	}
	for name, sub := range map[string]*Subscription{"first": a, "second": b} {
		var kinds []EventKind
		for len(kinds) == 0 || kinds[len(kinds)-1] != EventStopped || kinds[len(kinds)-2] != EventReset {
			e, err := sub.Next(ctx)
			if err != nil {
				t.Fatalf("%s subscriber: %v after %v", name, err, kinds)
			}
			kinds = append(kinds, e.Kind)
			if e.Kind == EventStopped && len(kinds) >= 2 && kinds[len(kinds)-2] == EventReset && e.Stop.Reason != ReasonReset {
				t.Fatalf("%s subscriber: stop after reset is %+v", name, e.Stop)
			}
		}
		if kinds[0] != EventStarted || kinds[1] != EventStopped { // the pause, then the reset
			t.Errorf("%s subscriber saw %v", name, kinds)
		}
	}
}

func TestResetNeedsTheCapability(t *testing.T) {
	s, _ := fakeSession(t, 4, 10)
	if _, err := s.Reset(context.Background(), true); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("Reset on a target without it: %v", err)
	}
}

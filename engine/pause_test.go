package engine

import (
	"context"
	"errors"
	"testing"
)

// PauseAndWait: not started, the state's error; running, the pause's stop; stopped, the
// last halt at once; ended, the state's error.
func TestPauseAndWait(t *testing.T) {
	s, _ := fakeSession(t, 4, 1<<40)
	ctx := context.Background()
	if _, err := s.PauseAndWait(ctx); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("before start: %v", err)
	}
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h, err := s.PauseAndWait(ctx)
	if err != nil || h.State != Stopped || h.Stop.Reason != ReasonPause {
		t.Fatalf("running: %+v %v", h, err)
	}
	if again, err := s.PauseAndWait(ctx); err != nil || again.Seq != h.Seq {
		t.Fatalf("stopped: %+v %v, want the halt numbered %d again", again, err, h.Seq)
	}
	seq := s.Seq()
	if err := s.Terminate(); err != nil {
		t.Fatal(err)
	}
	wait(t, s, seq)
	if _, err := s.PauseAndWait(ctx); !errors.Is(err, ErrEnded) {
		t.Fatalf("ended: %v", err)
	}
}

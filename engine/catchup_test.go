package engine

import (
	"testing"
	"time"
)

// CatchUp takes the events up to the session's Seq at its call; with toHalt, also those up
// to a stop that came meanwhile (here, one made while it handles its first event), in
// order and without a gap. Caught up, it returns at once; after the end, it reports it.
func TestCatchUpDrainsToTheLastHalt(t *testing.T) {
	s, f := fakeSession(t, 3, 1<<40) // prints at every round, never ends on its own
	f.printAt = 2
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	running := func() { // until some output is queued
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); s.Seq() < s.LastHalt().Seq+4; {
			if time.Now().After(deadline) {
				t.Fatal("no output")
			}
			time.Sleep(time.Millisecond)
		}
	}
	var got []Event
	handle := func(e Event) {
		if n := len(got); n > 0 && e.Seq != got[n-1].Seq+1 || n == 0 && e.Seq != 1 {
			t.Fatalf("event %d after %v", e.Seq, got)
		}
		got = append(got, e)
	}
	pauseOnFirst := func(e Event) { // the stop comes after CatchUp took Seq
		first := len(got) == 0 || got[len(got)-1].Kind == EventContinued
		handle(e)
		if first {
			seq := s.Seq()
			if err := s.Pause(); err != nil {
				t.Fatal(err)
			}
			wait(t, s, seq)
		}
	}

	running()
	last, ended := sub.CatchUp(s, 0, true, pauseOnFirst)
	halt := s.LastHalt()
	if ended || halt.State != Stopped || last != halt.Seq || got[len(got)-1].Kind != EventStopped {
		t.Fatalf("caught up to %d (ended %v), want the stop numbered %d", last, ended, halt.Seq)
	}

	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	running()
	if last, _ = sub.CatchUp(s, last, false, pauseOnFirst); last >= s.LastHalt().Seq {
		t.Fatalf("without toHalt: drained to %d, past the Seq it began at, to the stop", last)
	}
	if last, _ = sub.CatchUp(s, last, true, handle); last != s.LastHalt().Seq {
		t.Fatalf("with toHalt: drained to %d, want the stop numbered %d", last, s.LastHalt().Seq)
	}
	done := make(chan [2]any, 1) // caught up already: at once, though halted (a spin would hang)
	go func() {
		again, ended := sub.CatchUp(s, last, true, func(Event) {})
		done <- [2]any{again, ended}
	}()
	select {
	case r := <-done:
		if r != [2]any{last, false} {
			t.Fatalf("caught up already: %v, want [%d false]", r, last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("caught up already, it does not return")
	}

	if err := s.Terminate(); err != nil {
		t.Fatal(err)
	}
	wait(t, s, last)
	for !ended {
		last, ended = sub.CatchUp(s, last, true, handle)
	}
	if k := got[len(got)-1].Kind; k != EventTerminated || last != s.LastHalt().Seq {
		t.Fatalf("ended at %d (%s), want the end numbered %d", last, k, s.LastHalt().Seq)
	}
}

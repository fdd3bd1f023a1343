package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// threadEvents reads sub until a stop and returns its thread events as "started 11".
func threadEvents(t *testing.T, sub *Subscription) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []string
	last := uint64(0)
	for {
		e, err := sub.Next(ctx)
		if err != nil {
			t.Fatalf("events: %v (so far %v)", err, out)
		}
		if e.Seq <= last {
			t.Fatalf("event %d after %d: out of order", e.Seq, last)
		}
		last = e.Seq
		switch e.Kind {
		case EventThread:
			out = append(out, fmt.Sprint(e.Thread.Reason, " ", e.Thread.Thread.ID))
		case EventStopped:
			return out
		}
	}
}

// Threads a target reports while the program runs reach every subscriber at once, in
// order; ThreadChanges, fed the same events, reports at the next stop only what they did
// not say, and never a thread twice.
func TestLiveThreadEvents(t *testing.T) {
	f := &threadedFake{fakeTarget: newFake(6, 1<<40), ids: []uint64{10}}
	s := NewSession(f)
	defer s.Close()
	a, b := s.Subscribe(), s.Subscribe()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if !ReportThread(f.h, ThreadStarted, Thread{ID: 11, Name: "w1"}) {
		t.Fatal("the session's handler does not take thread events")
	}
	ReportThread(f.h, ThreadStarted, Thread{ID: 12})
	ReportThread(f.h, ThreadExited, Thread{ID: 11})
	_ = s.Pause()
	want := []string{"started 11", "started 12", "exited 11"}
	var tc ThreadChanges
	for i, sub := range []*Subscription{a, b} {
		if got := threadEvents(t, sub); !slices.Equal(got, want) {
			t.Fatalf("subscriber %d: %v, want %v", i, got, want)
		}
	}
	for _, e := range []Event{
		{Kind: EventThread, Thread: &ThreadChange{ThreadStarted, Thread{ID: 11}}},
		{Kind: EventThread, Thread: &ThreadChange{ThreadStarted, Thread{ID: 12}}},
		{Kind: EventThread, Thread: &ThreadChange{ThreadExited, Thread{ID: 11}}},
	} {
		if !tc.Note(e) {
			t.Fatalf("%v %d: not news", e.Thread.Reason, e.Thread.Thread.ID)
		}
	}
	f.ids = []uint64{10, 12, 13}
	st, en, err := tc.Update(context.Background(), s)
	if err != nil || !slices.Equal(ids(st), []uint64{10, 13}) || len(en) != 0 {
		t.Fatalf("update after live events: started %v ended %v (%v); want 10 and 13 started", st, en, err)
	}
	for _, c := range []struct {
		reason string
		id     uint64
		news   bool
	}{
		{ThreadStarted, 13, false}, // seen at the stop already
		{ThreadExited, 13, true},
		{ThreadExited, 13, false},
		{ThreadExited, 99, false}, // never seen
		{ThreadStarted, 14, true},
	} {
		if got := tc.Note(Event{Kind: EventThread, Thread: &ThreadChange{c.reason, Thread{ID: c.id}}}); got != c.news {
			t.Fatalf("%s %d: news %v, want %v", c.reason, c.id, got, c.news)
		}
	}
	f.ids = []uint64{10, 12, 14}
	if st, en, _ = tc.Update(context.Background(), s); len(st) != 0 || len(en) != 0 {
		t.Fatalf("nothing new at the stop: %v %v", st, en)
	}
	_ = s.Terminate()
	<-s.Done()
	seq := s.Seq()
	ReportThread(f.h, ThreadStarted, Thread{ID: 15})
	if s.Seq() != seq {
		t.Fatal("a thread event after the end was emitted")
	}
}

package engine

import "testing"

// Ready is signalled while events wait and not once a reader has taken them all, so a
// second goroutine waiting on it (a front end's pump) is not woken for events the
// request handler already took.
func TestReadyTakenBackWhenDrained(t *testing.T) {
	s := newSubscription(SubscribeOptions{})
	ready := func() bool {
		select {
		case <-s.Ready():
			signal(s.ready) // put it back: only looking
			return true
		default:
			return false
		}
	}
	if ready() {
		t.Fatal("ready before any event")
	}
	s.push(Event{Kind: EventContinued})
	s.push(Event{Kind: EventStopped})
	if !ready() {
		t.Fatal("not ready with two events queued")
	}
	if _, ok, _ := s.TryNext(); !ok || !ready() {
		t.Fatal("not ready with one event left")
	}
	if _, ok, _ := s.TryNext(); !ok {
		t.Fatal("second event missing")
	}
	if ready() {
		t.Error("still ready after the queue was drained")
	}
	s.push(Event{Kind: EventOutput})
	if !ready() {
		t.Error("not ready after a new event")
	}
	s.finish()
	s.TryNext()
	if !ready() {
		t.Error("an ended subscription must stay ready, for its reader to learn of the end")
	}
}

// A held subscription does not signal Ready for what its holder drains itself (a step's
// events, taken by the command handler), and Release announces what was left.
func TestHoldKeepsReadyQuiet(t *testing.T) {
	s := newSubscription(SubscribeOptions{})
	ready := func() bool {
		select {
		case <-s.Ready():
			signal(s.ready)
			return true
		default:
			return false
		}
	}
	s.Hold()
	s.push(Event{Kind: EventContinued})
	s.push(Event{Kind: EventStopped})
	if ready() {
		t.Fatal("ready while held")
	}
	if _, ok, _ := s.TryNext(); !ok || ready() {
		t.Fatal("taking one of two signalled while held")
	}
	s.Release()
	if !ready() {
		t.Fatal("the event left was not announced by Release")
	}
	s.TryNext()
	s.Hold()
	s.Hold() // nested
	s.push(Event{Kind: EventOutput})
	s.Release()
	if ready() {
		t.Fatal("ready while still held once")
	}
	s.TryNext()
	s.Release()
	if ready() {
		t.Error("ready after a held command drained everything")
	}
	var none *Subscription
	none.Hold() // a front end with no program yet
	none.Release()
}

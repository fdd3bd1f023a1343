package aether

import (
	"sync"

	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// hub fans events out to the subscribed agents. Publishing never blocks: each subscriber
// has a bounded queue, and what does not fit is counted and reported to that subscriber
// alone, in a LaggedEvent at the point where they were lost.
type hub struct {
	mu    sync.Mutex
	subs  map[*subscriber]struct{}
	bound int
}

type subscriber struct {
	mu     sync.Mutex
	q      []*pb.DebugEvent
	missed uint64
	wake   chan struct{}
	bound  int
}

func newHub(bound int) *hub {
	return &hub{subs: map[*subscriber]struct{}{}, bound: bound}
}

// subscribe adds a subscriber, or returns nil when there are max already.
func (h *hub) subscribe(max int) *subscriber {
	s := &subscriber{wake: make(chan struct{}, 1), bound: h.bound}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.subs) >= max {
		return nil
	}
	h.subs[s] = struct{}{}
	return s
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

func (h *hub) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}

func (h *hub) publish(e *pb.DebugEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		s.push(e)
	}
}

func (s *subscriber) push(e *pb.DebugEvent) {
	s.mu.Lock()
	if len(s.q) >= s.bound {
		s.missed++
	} else {
		s.q = append(s.q, e)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// take returns the queued events, followed by a LaggedEvent when later ones were dropped.
func (s *subscriber) take() []*pb.DebugEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.q
	s.q = nil
	if s.missed > 0 {
		// the dropped events came after the queued ones
		q = append(q, &pb.DebugEvent{Event: &pb.DebugEvent_Lagged{Lagged: &pb.LaggedEvent{Missed: s.missed}}})
		s.missed = 0
	}
	return q
}

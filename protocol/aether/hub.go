package aether

import (
	"github.com/polydbg/polydbg/internal/wire"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// hub fans events out to the subscribed agents (wire.Fanout). Publishing never blocks:
// each subscriber has a bounded queue, and what does not fit is counted and reported to
// that subscriber alone, in a LaggedEvent at the point where they were lost.
type hub struct {
	wire.Fanout[*pb.DebugEvent]
	bound int
}

type subscriber struct{ *wire.Queue[*pb.DebugEvent] }

func newHub(bound int) *hub { return &hub{bound: bound} }

// subscribe adds a subscriber, or returns nil when there are max already.
func (h *hub) subscribe(max int) *subscriber {
	if q := h.Subscribe(h.bound, max); q != nil {
		return &subscriber{q}
	}
	return nil
}

func (h *hub) unsubscribe(s *subscriber)    { h.Unsubscribe(s.Queue) }
func (h *hub) count() int                   { return h.Len() }
func (h *hub) publish(e *pb.DebugEvent)     { h.Publish(e) }
func (s *subscriber) wake() <-chan struct{} { return s.Wait() }

// take returns the queued events, followed by a LaggedEvent when later ones were dropped.
func (s *subscriber) take() []*pb.DebugEvent {
	q, missed, _ := s.Take()
	if missed > 0 { // the dropped events came after the queued ones
		q = append(q, &pb.DebugEvent{Event: &pb.DebugEvent_Lagged{Lagged: &pb.LaggedEvent{Missed: missed}}})
	}
	return q
}

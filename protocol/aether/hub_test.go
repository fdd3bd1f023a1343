package aether

import (
	"testing"

	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

func plot(v float64) *pb.DebugEvent {
	return &pb.DebugEvent{Event: &pb.DebugEvent_Plot{Plot: &pb.PlotEvent{Name: "x", Value: v}}}
}

// A subscriber that does not keep up loses what does not fit and is told how much, after
// what it kept; the others get everything; publishing never blocks.
func TestHubBoundsAndLag(t *testing.T) {
	h := newHub(4)
	slow, fast := h.subscribe(2), h.subscribe(2)
	if h.subscribe(2) != nil {
		t.Fatal("a third subscriber was accepted with a limit of 2")
	}
	var got []*pb.DebugEvent
	for i := range 10 {
		h.publish(plot(float64(i)))
		got = append(got, fast.take()...)
	}
	if len(got) != 10 {
		t.Errorf("the fast subscriber got %d events", len(got))
	}
	q := slow.take()
	if len(q) != 5 || q[3].GetPlot().GetValue() != 3 || q[4].GetLagged().GetMissed() != 6 {
		t.Fatalf("slow subscriber: %v", q)
	}
	if q := slow.take(); len(q) != 0 {
		t.Errorf("after take: %v", q)
	}
	h.publish(plot(99))
	if q := slow.take(); len(q) != 1 || q[0].GetPlot().GetValue() != 99 {
		t.Errorf("after catching up: %v", q)
	}
	h.unsubscribe(slow)
	if h.count() != 1 || h.subscribe(2) == nil {
		t.Error("unsubscribe did not free a place")
	}
}

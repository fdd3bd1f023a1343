package kitevm_test

import (
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// A step of a Kite program under the engine, from Resume to its stop event and frame 0's
// variables (what a stepping front end takes at every stop), allocates a bounded, small
// number of objects: a regression on the step's hot path fails here.
func TestStepAllocations(t *testing.T) {
	h := start(t, "let i = 0\nlet total = 0\nwhile true {\n    i += 1\n    total += i\n}\n", nil, true)
	h.stop(engine.ReasonEntry, 1)
	sub := h.s.SubscribeWith(engine.SubscribeOptions{MaxQueued: 64})
	timeout := time.After(time.Minute)
	step := func() {
		if err := h.s.Step(engine.StepInto); err != nil {
			t.Fatal(err)
		}
		for {
			e, ok, _ := sub.TryNext()
			if ok && e.Kind == engine.EventStopped {
				break
			}
			if !ok {
				select {
				case <-sub.Ready():
				case <-timeout:
					t.Fatal("no stop")
				}
			}
		}
		if _, err := h.s.FrameVariables(0); err != nil {
			t.Fatal(err)
		}
	}
	step()
	// Measured: 10 (the stop, its halt channel, the variables and their values).
	n := testing.AllocsPerRun(200, step)
	t.Logf("%v allocations a step", n)
	if n > 12 {
		t.Errorf("a step allocates %v objects, want at most 12", n)
	}
}

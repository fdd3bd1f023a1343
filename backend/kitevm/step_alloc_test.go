package kitevm_test

import (
	"strings"
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
	var vars []engine.ScopedVariable // reused, as a stepping front end does
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
		var err error
		if vars, err = h.s.AppendFrameVariables(vars[:0], 0); err != nil {
			t.Fatal(err)
		}
	}
	step()
	// Measured: 1 or 2 (the stop; the text of a value past 99); 10 before the variables were
	// listed in one call into a reused buffer and the halt channel made only for a waiter.
	n := testing.AllocsPerRun(200, step)
	t.Logf("%v allocations a step", n)
	if n > 3 {
		t.Errorf("a step allocates %v objects, want at most 3", n)
	}
}

// The variables of a frame listed in one call (engine.FrameLister) are those its scopes list
// one by one: parameters, locals, captured variables, then globals.
func TestFrameVariablesInOneCall(t *testing.T) {
	src := "let g = [1, 2]\nfn outer(a) {\n    let c = a * 2\n    fn inner(b) {\n        let d = b + c\n        return d\n    }\n    return inner(a)\n}\nprint(outer(3))\n"
	h := start(t, src, func(h *harness) {
		if _, err := h.s.SetBreakpoint(engine.BreakpointSpec{Line: 6}); err != nil {
			t.Fatal(err)
		}
	}, false)
	h.stop(engine.ReasonBreakpoint, 6)
	for frame := range 3 {
		got, err := h.s.AppendFrameVariables(nil, frame)
		if err != nil {
			t.Fatal(err)
		}
		var want []engine.ScopedVariable
		scopes, err := h.s.Scopes(frame)
		if err != nil {
			t.Fatal(err)
		}
		for _, sc := range scopes {
			vs, err := h.s.Variables(sc.Ref)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vs {
				want = append(want, engine.ScopedVariable{Scope: strings.ToLower(strings.TrimSuffix(sc.Name, "s")), Variable: v})
			}
		}
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("frame %d: %d variables in one call, %d by scope", frame, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			g.Ref, w.Ref = 0, 0 // references are numbered as they are made
			if g != w {
				t.Errorf("frame %d, #%d: %+v in one call, %+v by scope", frame, i, g, w)
			}
		}
	}
	if _, err := h.s.AppendFrameVariables(nil, 3); err == nil {
		t.Error("no error for a frame that does not exist")
	}
}

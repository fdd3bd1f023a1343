package kitevm_test

import (
	"testing"

	"github.com/polydbg/polydbg/engine"
)

// A goto inside a for loop keeps the loop's iterator: the loop goes on where it was; a
// goto into a loop from outside, or from a runtime error, is refused.
func TestGotoInsideLoopsAndRefusals(t *testing.T) {
	src := `let n = 0
for i in range(0, 3) {
    n += 1
    n += 100
}
print(n)
let xs = [1]
let y = xs[5]
`
	var bp engine.Breakpoint
	h := start(t, src, func(h *harness) { bp = h.line(4) }, false)
	h.stop(engine.ReasonBreakpoint, 4)
	if got := h.eval("n"); got != "1" {
		t.Fatalf("n = %s", got)
	}
	outside, err := h.s.GotoTargets("prog.kite", 6)
	h.do(err)
	if len(outside) != 0 {
		t.Fatalf("line 6 is outside the loop, yet targets %v", outside)
	}
	locs, err := h.s.GotoTargets("prog.kite", 3)
	h.do(err)
	if len(locs) != 1 || locs[0].Line != 3 {
		t.Fatalf("targets of line 3: %v", locs)
	}
	h.do(h.s.Goto(locs[0]))
	st := h.stop(engine.ReasonGoto, 3)
	if st.Location.PC != locs[0].PC {
		t.Fatalf("goto stop at pc %d, want %d", st.Location.PC, locs[0].PC)
	}
	h.do(h.s.Step(engine.StepOver))
	h.stop(engine.ReasonBreakpoint, 4) // its breakpoint, reached again
	if got := h.eval("n"); got != "2" {
		t.Fatalf("after line 3 ran again n = %s", got)
	}
	if got := h.eval("i"); got != "0" {
		t.Fatalf("the loop lost its place: i = %s", got)
	}
	h.do(h.s.RemoveBreakpoint(bp.ID))
	h.do(h.s.Continue())
	h.stop(engine.ReasonException, 8)
	if out := h.output.String(); out != "304\n" {
		t.Fatalf("output %q, want the loop's three turns with line 3 once more: 304", out)
	}
	if _, err := h.s.GotoTargets("prog.kite", 7); err == nil {
		t.Fatal("goto targets offered from a runtime error")
	}
	h.do(h.s.Terminate())
}

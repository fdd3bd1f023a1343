package kitevm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
)

const callsSrc = `fn sq(x) {
    return x * x
}
fn add(a, b) {
    return a + b
}
let x = add(sq(2), sq(3))
print(len("ab"), sq(x))
let y = x + 1
print(y)
`

// calls lists the calls the statement where h stopped makes, as "name@line:col".
func (h *harness) calls() string {
	h.t.Helper()
	cs, err := h.s.StatementCalls()
	h.do(err)
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s@%d:%d", c.Function, c.Line, c.Column))
	}
	return strings.Join(out, ",")
}

// Calls are listed in the order they run, arguments first, with the column of each
// callee; builtins are left out, and a line without calls lists none.
func TestStatementCallsInOrder(t *testing.T) {
	h := start(t, callsSrc, func(h *harness) { h.line(7) }, false)
	h.stop(engine.ReasonBreakpoint, 7)
	if got, want := h.calls(), "sq@7:13,sq@7:20,add@7:9"; got != want {
		t.Fatalf("line 7 calls %s, want %s", got, want)
	}
	h.do(h.s.Step(engine.StepOver))
	h.stop(engine.ReasonStep, 8)
	if got, want := h.calls(), "sq@8:18"; got != want {
		t.Fatalf("line 8 calls %s, want %s (print and len are builtins)", got, want)
	}
	h.do(h.s.Step(engine.StepOver))
	h.stop(engine.ReasonStep, 9)
	if got := h.calls(); got != "" {
		t.Fatalf("line 9 calls %s", got)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

// A callee held in a variable is the function the variable holds now: a parameter and a
// local captured by a closure (cells), a plain local, and in the closure its captured
// variables. An anonymous function is left out: no name to step into it by.
func TestStatementCallsThroughVariables(t *testing.T) {
	src := `fn sq(x) {
    return x * x
}
fn twice(x) {
    return x + x
}
fn run(f) {
    let g = twice
    let p = sq
    let inner = fn(x) {
        return g(x) + f(x)
    }
    return g(f(2)) + inner(p(1))
}
print(run(sq))
`
	h := start(t, src, func(h *harness) { h.line(11); h.line(13) }, false)
	h.stop(engine.ReasonBreakpoint, 13)
	if got, want := h.calls(), "sq@13:14,twice@13:12,sq@13:28"; got != want {
		t.Fatalf("line 13 calls %s, want %s", got, want)
	}
	h.do(h.s.Continue())
	h.stop(engine.ReasonBreakpoint, 11)
	if got, want := h.calls(), "twice@11:16,sq@11:23"; got != want {
		t.Fatalf("line 11 calls %s, want %s", got, want)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

// A step into a call the line makes enters that one, passing over the calls before it; a
// step into a function the line does not call passes over them all. Calls already made
// are no longer listed.
func TestStepIntoTarget(t *testing.T) {
	h := start(t, callsSrc, func(h *harness) { h.line(7) }, false)
	h.stop(engine.ReasonBreakpoint, 7)
	if got := h.calls(); !strings.Contains(got, "add@") {
		t.Fatalf("line 7 calls %s", got)
	}
	h.do(h.s.StepIntoTarget("add", 0))
	st := h.stop(engine.ReasonStep, 5)
	frames, err := h.s.Stack()
	h.do(err)
	if st.Location.Func != "add" || frames[0].Func != "add" || len(frames) != 2 {
		t.Fatalf("stepped into %s, frames %v", st.Location.Func, frames)
	}
	if got := h.eval("a"); got != "4" {
		t.Fatalf("in add a = %s: sq(2) was not run first", got)
	}
	h.do(h.s.Step(engine.StepOut))
	h.stop(engine.ReasonStep, 7)
	if got := h.calls(); got != "" {
		t.Fatalf("after add returned, line 7 still calls %s", got)
	}
	h.do(h.s.Step(engine.StepOver))
	h.stop(engine.ReasonStep, 8)
	h.do(h.s.StepIntoTarget("add", 0))
	st = h.stop(engine.ReasonStep, 9)
	if st.Location.Func != "main" {
		t.Fatalf("a step into add, which line 8 does not call, stopped in %s", st.Location.Func)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

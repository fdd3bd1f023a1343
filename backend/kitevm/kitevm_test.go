package kitevm_test

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
)

// harness runs one Kite program under a session and collects its events.
type harness struct {
	t      *testing.T
	s      *engine.Session
	sub    *engine.Subscription
	output strings.Builder
}

func start(t *testing.T, src string, setup func(h *harness), stopOnEntry bool) *harness {
	t.Helper()
	prog, err := kite.Compile("prog.kite", []byte(src), nil)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	tg, err := kitevm.New(prog, kitevm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: engine.NewSession(tg)}
	h.sub = h.s.Subscribe()
	t.Cleanup(func() { h.s.Close() })
	if setup != nil {
		setup(h)
	}
	if err := h.s.Start(stopOnEntry); err != nil {
		t.Fatal(err)
	}
	return h
}

// next returns the next stop or end event, collecting output on the way.
func (h *harness) next() engine.Event {
	h.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-h.sub.Events():
			if !ok {
				h.t.Fatal("event stream ended")
			}
			switch e.Kind {
			case engine.EventOutput:
				h.output.WriteString(e.Text)
			case engine.EventStopped, engine.EventExited, engine.EventTerminated:
				return e
			}
		case <-timeout:
			h.t.Fatal("timed out waiting for an event")
		}
	}
}

func (h *harness) stop(reason engine.StopReason, line int) *engine.Stop {
	h.t.Helper()
	e := h.next()
	if e.Kind != engine.EventStopped {
		h.t.Fatalf("got %s (exit %d), want stop %s at line %d; output %q", e.Kind, e.ExitCode, reason, line, h.output.String())
	}
	if e.Stop.Reason != reason || (line > 0 && e.Stop.Location.Line != line) {
		h.t.Fatalf("stopped %s at line %d, want %s at %d (%s)", e.Stop.Reason, e.Stop.Location.Line, reason, line, e.Stop.Text)
	}
	return e.Stop
}

func (h *harness) exit(code int) {
	h.t.Helper()
	e := h.next()
	if e.Kind != engine.EventExited || e.ExitCode != code {
		h.t.Fatalf("got %s code %d, want exit %d", e.Kind, e.ExitCode, code)
	}
}

func (h *harness) eval(expr string) string {
	h.t.Helper()
	v, err := h.s.Evaluate(0, expr, engine.EvalMode{Pure: true})
	if err != nil {
		h.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v.Value
}

func (h *harness) do(err error) {
	h.t.Helper()
	if err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) line(n int, opts ...func(*engine.BreakpointSpec)) engine.Breakpoint {
	h.t.Helper()
	spec := engine.BreakpointSpec{Kind: engine.LineBreakpoint, Line: n}
	for _, o := range opts {
		o(&spec)
	}
	bp, err := h.s.SetBreakpoint(spec)
	if err != nil {
		h.t.Fatal(err)
	}
	return bp
}

const fibSrc = `fn fib(n) {
    if n < 2 {
        return n
    }
    let a = fib(n - 1)
    let b = fib(n - 2)
    return a + b
}

let total = 0

for i in range(0, 6) {
    total += fib(i)
}
print("total", total)
`

func TestLineBreakpointAdjustedAndHit(t *testing.T) {
	var bp engine.Breakpoint
	h := start(t, fibSrc, func(h *harness) { bp = h.line(9) }, false) // blank line 9 moves to 10
	if bp.Location.Line != 10 || bp.ID != 1 {
		t.Fatalf("breakpoint bound at line %d id %d, want 10 id 1", bp.Location.Line, bp.ID)
	}
	st := h.stop(engine.ReasonBreakpoint, 10)
	if st.BreakpointID != 1 {
		t.Fatalf("breakpoint id %d", st.BreakpointID)
	}
	h.do(h.s.Continue())
	h.exit(0)
	if got := h.output.String(); got != "total 12\n" {
		t.Fatalf("output %q", got)
	}
}

func TestConditionAndHitCondition(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(2, func(s *engine.BreakpointSpec) { s.Condition = "n == 3" })
	}, false)
	h.stop(engine.ReasonBreakpoint, 2)
	if v := h.eval("n"); v != "3" {
		t.Fatalf("n = %s", v)
	}
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	h.exit(0)

	h = start(t, fibSrc, func(h *harness) {
		h.line(13, func(s *engine.BreakpointSpec) { s.HitCondition = "% 2" })
	}, false)
	for _, want := range []string{"1", "3", "5"} {
		h.stop(engine.ReasonBreakpoint, 13)
		if v := h.eval("i"); v != want {
			t.Fatalf("i = %s, want %s", v, want)
		}
		h.do(h.s.Continue())
	}
	h.exit(0)
}

func TestLogpointDoesNotStop(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(13, func(s *engine.BreakpointSpec) { s.LogMessage = "i=${i} total=${total}" })
	}, false)
	h.exit(0)
	if !strings.Contains(h.output.String(), "i=3 total=2\n") {
		t.Fatalf("output %q", h.output.String())
	}
}

func TestStepsByCallDepth(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(5, func(s *engine.BreakpointSpec) { s.Condition = "n == 3" })
	}, false)
	h.stop(engine.ReasonBreakpoint, 5)
	h.s.ClearBreakpoints()
	depth := func() int {
		fr, err := h.s.Stack()
		h.do(err)
		return len(fr)
	}
	d0 := depth()
	h.do(h.s.Step(engine.StepOver)) // over a recursive call: same activation
	h.stop(engine.ReasonStep, 6)
	if depth() != d0 || h.eval("n") != "3" || h.eval("a") != "1" {
		t.Fatalf("after step over: depth %d (want %d), n=%s a=%s", depth(), d0, h.eval("n"), h.eval("a"))
	}
	h.do(h.s.Step(engine.StepInto))
	h.stop(engine.ReasonStep, 2)
	if depth() != d0+1 || h.eval("n") != "1" {
		t.Fatalf("after step into: depth %d n=%s", depth(), h.eval("n"))
	}
	h.do(h.s.Step(engine.StepOut)) // back in the caller right after the call, mid-line
	st := h.stop(engine.ReasonStep, 6)
	if depth() != d0 || st.ReturnValue == nil || st.ReturnValue.Value != "1" || st.Location.Col <= 5 {
		t.Fatalf("after step out: depth %d (want %d), stop %+v", depth(), d0, st)
	}
	h.do(h.s.Step(engine.StepOver)) // the rest of the line: b is assigned
	h.stop(engine.ReasonStep, 7)
	if depth() != d0 || h.eval("b") != "1" {
		t.Fatalf("after the line: depth %d b=%s", depth(), h.eval("b"))
	}
	h.do(h.s.Step(engine.StepInstruction))
	h.stop(engine.ReasonStep, 7)
	h.do(h.s.Continue())
	h.exit(0)
}

func TestPauseInTightLoopAndTerminate(t *testing.T) {
	h := start(t, "let i = 0\nwhile true {\n    i += 1\n}\n", nil, false)
	time.Sleep(20 * time.Millisecond)
	h.do(h.s.Pause())
	st := h.stop(engine.ReasonPause, 0)
	if st.Location.Line != 2 && st.Location.Line != 3 {
		t.Fatalf("paused at line %d", st.Location.Line)
	}
	h.do(h.s.Continue())
	h.do(h.s.Terminate())
	if e := h.next(); e.Kind != engine.EventTerminated {
		t.Fatalf("got %s", e.Kind)
	}
}

func TestExceptionStopsBeforeExit(t *testing.T) {
	h := start(t, "fn f(x) {\n    return 10 / x\n}\nprint(f(0))\n", nil, false)
	st := h.stop(engine.ReasonException, 2)
	if st.Text != "division by zero" {
		t.Fatalf("text %q", st.Text)
	}
	if h.eval("x") != "0" {
		t.Fatal("x")
	}
	h.do(h.s.Continue())
	h.exit(1)
	if !strings.Contains(h.output.String(), "prog.kite:2:") {
		t.Fatalf("stderr %q", h.output.String())
	}
}

func TestPureEvaluationRefusesEffects(t *testing.T) {
	src := "let xs = [1]\nlet n = 0\nfn bump() {\n    n += 1\n    return n\n}\nprint(xs, n)\n"
	h := start(t, src, func(h *harness) { h.line(7) }, false)
	h.stop(engine.ReasonBreakpoint, 7)
	for _, expr := range []string{"append(xs, 2)", "bump()", "print(1)", "fn() { return 1 }", "pop(xs)"} {
		if _, err := h.s.Evaluate(0, expr, engine.EvalMode{Pure: true}); err == nil {
			t.Errorf("pure %s: no error", expr)
		}
	}
	if _, err := h.s.Evaluate(0, "range(0, 100000000)", engine.EvalMode{Pure: true}); err == nil {
		t.Error("a huge range should exceed the evaluation budget")
	}
	if got := h.eval("len(xs) + n"); got != "1" {
		t.Fatalf("len(xs) + n = %s", got)
	}
	// The REPL mode may call functions.
	v, err := h.s.Evaluate(0, "bump()", engine.EvalMode{})
	if err != nil || v.Value != "1" {
		t.Fatalf("repl bump() = %v, %v", v.Value, err)
	}
	h.do(h.s.Continue())
	h.exit(0)
	if got := h.output.String(); got != "[1] 1\n" {
		t.Fatalf("output %q", got)
	}
}

const factSrc = `fn fact(n) {
    if n <= 1 { return 1 }
    return n * fact(n - 1)
}
print(fact(5))
`

// A step out of a recursion ends one activation up, in the caller right after the call
// returned, never further: the fact(5) scenario.
func TestStepOutOfRecursionLandsInCaller(t *testing.T) {
	h := start(t, factSrc, func(h *harness) { h.line(2, func(s *engine.BreakpointSpec) { s.Condition = "n == 1" }) }, false)
	h.stop(engine.ReasonBreakpoint, 2)
	h.s.ClearBreakpoints()
	fr, err := h.s.Stack()
	h.do(err)
	if len(fr) != 6 { // fact(5..1) and the top level
		t.Fatalf("at the base case: %d frames", len(fr))
	}
	for _, mode := range []engine.ResumeMode{engine.StepOut, engine.StepOver} {
		h.do(h.s.Step(mode))
		st := h.stop(engine.ReasonStep, 3)
		fr, err = h.s.Stack()
		h.do(err)
		if len(fr) != 5 || fr[0].Func != "fact" || h.eval("n") != "2" {
			t.Fatalf("after %v: %d frames, innermost %s n=%s", mode, len(fr), fr[0].Func, h.eval("n"))
		}
		if st.ReturnValue == nil || st.ReturnValue.Value != "1" {
			t.Fatalf("after %v: returned %+v", mode, st.ReturnValue)
		}
		if mode == engine.StepOut {
			// Step over from the middle of the line runs the multiplication and the return:
			// it leaves fact(2) and lands in fact(3) with 2 returned.
			h.do(h.s.Step(engine.StepOver))
			st = h.stop(engine.ReasonStep, 3)
			if h.eval("n") != "3" || st.ReturnValue == nil || st.ReturnValue.Value != "2" {
				t.Fatalf("step over the rest of fact(2): n=%s returned %+v", h.eval("n"), st.ReturnValue)
			}
			break
		}
	}
	h.do(h.s.Continue())
	h.exit(0)
}

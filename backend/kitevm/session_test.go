package kitevm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

func TestCommandsInWrongStateAreErrors(t *testing.T) {
	h := start(t, "let i = 0\nwhile i < 3 {\n    i += 1\n}\n", func(h *harness) {
		if _, err := h.s.Stack(); !errors.Is(err, engine.ErrNotStarted) {
			t.Errorf("stack before start: %v", err)
		}
		if err := h.s.Continue(); !errors.Is(err, engine.ErrNotStarted) {
			t.Errorf("continue before start: %v", err)
		}
		if err := h.s.Pause(); !errors.Is(err, engine.ErrNotStarted) {
			t.Errorf("pause before start: %v", err)
		}
	}, false)
	h.exit(0)
	if err := h.s.Step(engine.StepInto); !errors.Is(err, engine.ErrEnded) {
		t.Errorf("step after exit: %v", err)
	}
	if _, err := h.s.Evaluate(0, "i", engine.EvalMode{}); !errors.Is(err, engine.ErrEnded) {
		t.Errorf("evaluate after exit: %v", err)
	}
	if err := h.s.Terminate(); err != nil {
		t.Errorf("terminate after exit: %v", err)
	}
	if err := h.s.Start(false); err == nil {
		t.Error("second start accepted")
	}
}

func TestTwoSubscribersSeeEverything(t *testing.T) {
	var other *engine.Subscription
	h := start(t, fibSrc, func(h *harness) { h.line(15); other = h.s.Subscribe() }, false)
	h.stop(engine.ReasonBreakpoint, 15)
	h.do(h.s.Continue())
	h.exit(0)
	var kinds []string
	for e := range other.Events() {
		kinds = append(kinds, string(e.Kind))
	}
	got := strings.Join(kinds, ",")
	if got != "started,stopped,continued,output,exited" {
		t.Fatalf("second subscriber saw %s", got)
	}
}

func TestBreakpointKindsAndTemporary(t *testing.T) {
	var fnBP, pcBP, tmp engine.Breakpoint
	h := start(t, fibSrc, func(h *harness) {
		var err error
		fnBP, err = h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "fib", HitCondition: "== 2"})
		h.do(err)
		tmp, err = h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, Line: 15, Temporary: true})
		h.do(err)
		if _, err := h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "nope"}); err == nil {
			t.Error("breakpoint on a missing function accepted")
		}
		if _, err := h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, Line: 99}); err == nil {
			t.Error("breakpoint past the end accepted")
		}
		if _, err := h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "/elsewhere.kite", Line: 2}); err == nil {
			t.Error("breakpoint in another file accepted")
		}
	}, false)
	if fnBP.Location.Line != 2 {
		t.Fatalf("function breakpoint at line %d", fnBP.Location.Line)
	}
	st := h.stop(engine.ReasonBreakpoint, 2)
	if st.BreakpointID != fnBP.ID || h.eval("n") != "1" {
		t.Fatalf("stop %+v n=%s", st, h.eval("n"))
	}
	pc := st.Location.PC
	h.s.ClearBreakpoints()
	var err error
	pcBP, err = h.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.InstructionBreakpoint, PC: pc, Condition: "n == 4"})
	h.do(err)
	h.do(h.s.Continue())
	st = h.stop(engine.ReasonBreakpoint, 2)
	if st.BreakpointID != pcBP.ID || h.eval("n") != "4" {
		t.Fatalf("pc breakpoint: %+v n=%s", st, h.eval("n"))
	}
	_ = tmp
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	h.exit(0)
}

func TestTemporaryBreakpointIsDeleted(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(13, func(s *engine.BreakpointSpec) { s.Temporary = true })
	}, false)
	h.stop(engine.ReasonBreakpoint, 13)
	deadline := time.Now().Add(2 * time.Second)
	for len(h.s.Breakpoints()) != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := len(h.s.Breakpoints()); n != 0 {
		t.Fatalf("%d breakpoints left", n)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

func TestFailingConditionStopsAndSaysWhy(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(2, func(s *engine.BreakpointSpec) { s.Condition = `n + "x"` })
	}, false)
	st := h.stop(engine.ReasonBreakpoint, 2)
	if !strings.Contains(st.Text, "bad operand types") {
		t.Fatalf("text %q", st.Text)
	}
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	h.exit(0)
}

func TestBreakpointSetWhileRunning(t *testing.T) {
	h := start(t, "let i = 0\nwhile true {\n    i += 1\n}\n", nil, false)
	time.Sleep(10 * time.Millisecond)
	h.line(3, func(s *engine.BreakpointSpec) { s.Condition = "i > 1000" })
	h.stop(engine.ReasonBreakpoint, 3)
	if v := h.eval("i > 1000"); v != "true" {
		t.Fatalf("i = %s", h.eval("i"))
	}
	h.do(h.s.Terminate())
	if e := h.next(); e.Kind != engine.EventTerminated {
		t.Fatalf("got %s", e.Kind)
	}
}

func TestScopesAndExpandableValues(t *testing.T) {
	src := "fn mk(k) {\n    let n = 0\n    return fn() {\n        n += k\n        return n\n    }\n}\nlet f = mk(2)\nlet xs = [1, [2, 3], {\"a\": true}]\nprint(f(), xs)\n"
	h := start(t, src, func(h *harness) { h.line(10) }, false)
	h.stop(engine.ReasonBreakpoint, 10)
	scopes, err := h.s.Scopes(0)
	h.do(err)
	if len(scopes) != 2 || scopes[0].Name != "Locals" || scopes[1].Name != "Globals" {
		t.Fatalf("scopes %+v", scopes)
	}
	globals, err := h.s.Variables(scopes[1].Ref)
	h.do(err)
	if len(globals) != 3 || globals[0].Name != "mk" || globals[1].Name != "f" || globals[2].Name != "xs" {
		t.Fatalf("globals %+v", globals)
	}
	xs := globals[2]
	if xs.Value != `[1, [2, 3], {"a": true}]` || xs.Type != "list" || xs.Ref == 0 || xs.Len != 3 {
		t.Fatalf("xs %+v", xs)
	}
	items, err := h.s.Variables(xs.Ref)
	h.do(err)
	if len(items) != 3 || items[1].Value != "[2, 3]" || items[1].Ref == 0 || items[2].Type != "map" {
		t.Fatalf("items %+v", items)
	}
	m, err := h.s.Variables(items[2].Ref)
	h.do(err)
	if len(m) != 1 || m[0].Name != `"a"` || m[0].Value != "true" {
		t.Fatalf("map %+v", m)
	}
	captured, err := h.s.Variables(globals[1].Ref)
	h.do(err)
	if len(captured) != 2 || captured[0].Name != "n" || captured[1].Name != "k" || captured[1].Value != "2" {
		t.Fatalf("closure %+v", captured)
	}
	if _, err := h.s.Variables(9999); !errors.Is(err, engine.ErrNoVariable) {
		t.Fatalf("bad ref: %v", err)
	}
	if _, err := h.s.Scopes(5); !errors.Is(err, engine.ErrNoFrame) {
		t.Fatalf("bad frame: %v", err)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

func TestEvaluateInOuterFrame(t *testing.T) {
	h := start(t, fibSrc, func(h *harness) {
		h.line(3, func(s *engine.BreakpointSpec) { s.Condition = "n == 0"; s.HitCondition = "== 2" })
	}, false)
	h.stop(engine.ReasonBreakpoint, 3)
	frames, err := h.s.Stack()
	h.do(err)
	if len(frames) < 3 {
		t.Fatalf("%d frames", len(frames))
	}
	v0, err := h.s.Evaluate(0, "n", engine.EvalMode{Pure: true})
	h.do(err)
	v1, err := h.s.Evaluate(1, "n", engine.EvalMode{Pure: true})
	h.do(err)
	if v0.Value != "0" || v1.Value != "2" {
		t.Fatalf("n in frame 0 = %s, frame 1 = %s", v0.Value, v1.Value)
	}
	if _, err := h.s.Evaluate(2, "n", engine.EvalMode{Pure: true}); err == nil {
		t.Fatal("n is not visible at the top level")
	}
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	h.exit(0)
}

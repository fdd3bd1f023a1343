package launch_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch"
)

// The engine's conformance suite: one scenario, the same on every real backend — set a
// conditional breakpoint, hit it, step, step out of a recursion (one activation up, with
// the returned value), read variables, restart with the same breakpoint ids, terminate.

type backend struct {
	name string
	spec func(t *testing.T) (launch.Spec, string) // the spec and the source file
}

func backends() []backend {
	return []backend{
		{"kitevm", func(t *testing.T) (launch.Spec, string) {
			src, _ := filepath.Abs("testdata/fact.kite")
			return launch.Spec{Program: src}, src
		}},
		{"native-gdbserver", func(t *testing.T) (launch.Spec, string) {
			realparts.Need(t, "gcc", "gdbserver")
			src, _ := filepath.Abs("testdata/fact.c")
			exe := filepath.Join(t.TempDir(), "fact")
			if b, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
				t.Fatalf("gcc: %v\n%s", err, b)
			}
			return launch.Spec{Kind: launch.Native, Program: exe}, src
		}},
		{"qemu-firmware", func(t *testing.T) (launch.Spec, string) {
			realparts.Need(t, "qemu-system-arm")
			elf := firmware.Build(t)
			return launch.Spec{Kind: launch.QEMU, Machine: "lm3s6965evb", ELF: elf}, firmware.Source()
		}},
	}
}

func TestEngineConformance(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			spec, src := b.spec(t)
			conformance(t, spec, src)
		})
	}
}

func conformance(t *testing.T, spec launch.Spec, src string) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	base := firmware.MarkerLine(t, src, "fact_base")
	rec := firmware.MarkerLine(t, src, "fact_rec")

	d, err := launch.Start(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	bps := d.SetBreakpoints(src, []engine.BreakpointSpec{{Line: base, Condition: "n == 1"}})
	if len(bps) != 1 || !bps[0].Verified || bps[0].Location.Line != base {
		t.Fatalf("breakpoint: %+v", bps)
	}
	id := bps[0].ID

	hitBase := func(d *launch.Debuggee) {
		t.Helper()
		seq := d.Seq()
		if err := d.Start(false); err != nil {
			t.Fatal(err)
		}
		h, err := d.WaitStop(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		if h.State != engine.Stopped || h.Stop.Reason != engine.ReasonBreakpoint || h.Stop.BreakpointID != id || h.Stop.Location.Line != base {
			t.Fatalf("first halt: %+v %+v", h, h.Stop)
		}
	}
	hitBase(d)
	stack := func() []engine.Frame {
		t.Helper()
		fr, err := d.Stack()
		if err != nil {
			t.Fatal(err)
		}
		return fr
	}
	eval := func(expr string) string {
		t.Helper()
		v, err := d.Evaluate(0, expr, engine.EvalMode{Pure: true})
		if err != nil {
			t.Fatalf("evaluate %s: %v", expr, err)
		}
		return v.Value
	}
	depth := len(stack())
	if f := stack()[0]; f.Func != "fact" || eval("n") != "1" {
		t.Fatalf("at the base case: frame %+v, n=%s", f, eval("n"))
	}
	d.SetBreakpoints(src, nil)

	// Step out: one activation up, mid-line on the recursive call, with the value.
	h, err := d.ResumeAndWait(ctx, engine.StepOut)
	if err != nil {
		t.Fatal(err)
	}
	if h.Stop == nil || h.Stop.Reason != engine.ReasonStep || h.Stop.Location.Line != rec {
		t.Fatalf("step out: %+v %+v", h, h.Stop)
	}
	if got := len(stack()); got != depth-1 || stack()[0].Func != "fact" || eval("n") != "2" {
		t.Fatalf("after step out: %d frames (want %d), n=%s", got, depth-1, eval("n"))
	}
	if rv := h.Stop.ReturnValue; rv == nil || rv.Value != "1" {
		t.Fatalf("after step out: returned %+v", rv)
	}
	// Step out again, from the middle of the line: fact(2) returns 2 into fact(3).
	h, err = d.ResumeAndWait(ctx, engine.StepOut)
	if err != nil {
		t.Fatal(err)
	}
	if h.Stop == nil || h.Stop.Location.Line != rec || eval("n") != "3" || len(stack()) != depth-2 {
		t.Fatalf("second step out: %+v n=%s, %d frames", h.Stop, eval("n"), len(stack()))
	}
	if rv := h.Stop.ReturnValue; rv == nil || rv.Value != "2" {
		t.Fatalf("second step out: returned %+v", rv)
	}
	// Scopes and variables of the frame.
	scopes, err := d.Scopes(0)
	if err != nil || len(scopes) == 0 {
		t.Fatalf("scopes: %v %v", scopes, err)
	}
	vars, err := d.Variables(scopes[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, v := range vars {
		found = found || v.Name == "n" && v.Value == "3"
	}
	if !found {
		t.Fatalf("%s: no n = 3 in %+v", scopes[0].Name, vars)
	}

	// Restart: the breakpoint comes back with its id.
	// (Set again after clearing: a new id, which the restart must keep.)
	id = d.SetBreakpoints(src, []engine.BreakpointSpec{{Line: base, Condition: "n == 1"}})[0].ID
	nd, err := d.Restart(ctx)
	if err != nil {
		t.Fatal(err)
	}
	d = nd
	if got := d.Breakpoints(); len(got) != 1 || got[0].ID != id || !got[0].Verified {
		t.Fatalf("after restart: %+v (want id %d)", got, id)
	}
	hitBase(d)

	// Finish from an outer frame (gdb's up, then finish): fact(1) and fact(2) return, and
	// the stop is in fact(3), mid-line, with fact(2)'s value.
	d.SetBreakpoints(src, nil)
	h, err = d.Finish(ctx, 1)
	if err != nil || h.Stop == nil || h.Stop.Reason != engine.ReasonStep || h.Stop.Location.Line != rec {
		t.Fatalf("finish of frame 1: %+v %v", h, err)
	}
	if eval("n") != "3" || len(stack()) != depth-2 {
		t.Fatalf("finish of frame 1: n=%s, %d frames (want %d)", eval("n"), len(stack()), depth-2)
	}
	if rv := h.Stop.ReturnValue; rv == nil || rv.Value != "2" {
		t.Fatalf("finish of frame 1: returned %+v", rv)
	}
	// Advance to the base case from fact(3): it is not reached again before fact(3)
	// returns, so the stop is in fact(4), where gdb's advance stops, and the advance's
	// breakpoint is gone.
	h, _, err = d.Advance(ctx, engine.BreakpointSpec{File: src, Line: base}, 0)
	if err != nil || h.Stop == nil || h.Stop.Location.Line != rec || eval("n") != "4" || len(stack()) != depth-3 {
		t.Fatalf("advance: %+v %v, n=%s, %d frames (want %d)", h, err, eval("n"), len(stack()), depth-3)
	}
	if bps := d.Breakpoints(); len(bps) != 0 {
		t.Fatalf("advance left breakpoints: %+v", bps)
	}

	// Terminate: the session ends.
	seq := d.Seq()
	if err := d.Terminate(); err != nil {
		t.Fatal(err)
	}
	h, err = d.WaitStop(ctx, seq)
	if err != nil || !h.State.Ended() {
		t.Fatalf("terminate: %+v %v", h, err)
	}
}

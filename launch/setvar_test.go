package launch_test

import (
	"context"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/launch"
)

// TestSetVariableConformance: the same engine call on every real backend. Stopped in
// fact(1), the caller's parameter n (fact(2)'s) is set to 7 through its frame's Locals
// scope; after stepping out, fact(2) reads 7. (What n * fact(n - 1) then returns depends on
// whether the language loads n before the call: Kite does, C at -O0 after.)
func TestSetVariableConformance(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			spec, src := b.spec(t)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			d, err := launch.Start(ctx, spec)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = d.Close() }()
			d.SetBreakpoints(src, []engine.BreakpointSpec{{Line: firmware.MarkerLine(t, src, "fact_base"), Condition: "n == 1"}})
			seq := d.Seq()
			if err := d.Start(false); err != nil {
				t.Fatal(err)
			}
			if h, err := d.WaitStop(ctx, seq); err != nil || h.State != engine.Stopped {
				t.Fatalf("no stop in fact(1): %+v %v", h, err)
			}
			if !d.CanSetVariables() {
				t.Fatal("the target cannot set variables")
			}
			scopes, err := d.Scopes(1)
			if err != nil || len(scopes) == 0 || scopes[0].Name != "Locals" {
				t.Fatalf("scopes of frame 1: %+v %v", scopes, err)
			}
			vars, err := d.Variables(scopes[0].Ref)
			if err != nil || len(vars) == 0 || vars[0].Name != "n" || !vars[0].Arg || vars[0].Value != "2" {
				t.Fatalf("locals of fact(2): %+v %v", vars, err)
			}
			if v, err := d.SetVariable(0, scopes[0].Ref, "n", "7"); err != nil || v.Value != "7" {
				t.Fatalf("set n of fact(2): %+v %v", v, err)
			}
			if v, err := d.Evaluate(0, "n", engine.EvalMode{Pure: true}); err != nil || v.Value != "1" {
				t.Fatalf("n of fact(1) after setting its caller's: %+v %v", v, err)
			}
			d.SetBreakpoints(src, nil)
			h, err := d.ResumeAndWait(ctx, engine.StepOut)
			if err != nil || h.Stop == nil || h.Stop.ReturnValue == nil || h.Stop.ReturnValue.Value != "1" {
				t.Fatalf("step out of fact(1): %+v %v", h, err)
			}
			if v, err := d.Evaluate(0, "n", engine.EvalMode{Pure: true}); err != nil || v.Value != "7" {
				t.Fatalf("n of fact(2) after the step out: %+v %v", v, err)
			}
		})
	}
}

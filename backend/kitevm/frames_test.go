package kitevm_test

import (
	"testing"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/vm"
)

// frameTarget drives frame() five times with a frame boundary before each call, the way
// the console does.
func frameTarget(t *testing.T) (*harness, int) {
	t.Helper()
	src := "fn frame() {\n    let x = 1\n    return x\n}\n"
	prog, err := kite.Compile("cart.kite", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	entry := prog.FuncByName("frame")[0].Entry
	tg, err := kitevm.New(prog, kitevm.Options{Frames: true, Run: func(tg *kitevm.Target) error {
		v := tg.VM()
		if err := v.Run(); err != nil {
			return err
		}
		var frame vm.Value
		for _, g := range v.Globals() {
			if g.Name == "frame" {
				frame = g.Value
			}
		}
		for i := 0; i < 5; i++ {
			if tg.TakeFrameStep() {
				loc := engine.Location{File: "cart.kite", Line: 2, PC: uint64(entry), HasPC: true}
				if err := tg.Suspend(engine.Stop{Reason: engine.ReasonFrame, Location: loc}); err != nil {
					return err
				}
			}
			if _, err := v.Call(frame); err != nil {
				return err
			}
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: engine.NewSession(tg)}
	h.sub = h.s.Subscribe()
	t.Cleanup(func() { h.s.Close() })
	return h, entry
}

func TestInstructionStepFromFrameBoundaryRunsOneInstruction(t *testing.T) {
	h, entry := frameTarget(t)
	h.line(2)
	h.do(h.s.Start(false))
	h.stop(engine.ReasonBreakpoint, 2)
	h.s.ClearBreakpoints()
	h.do(h.s.Step(engine.StepFrame))
	st := h.stop(engine.ReasonFrame, 2)
	if st.Location.PC != uint64(entry) {
		t.Fatalf("frame stop at pc %d, want %d", st.Location.PC, entry)
	}
	h.do(h.s.Step(engine.StepInstruction))
	if st := h.stop(engine.ReasonStep, 0); st.Location.PC != uint64(entry)+1 {
		t.Fatalf("step from the boundary stopped at pc %d, want %d", st.Location.PC, entry+1)
	}
	h.do(h.s.Continue())
	h.exit(0)
}

func TestStepFrameEndedByBreakpointLeavesNothingPending(t *testing.T) {
	h, _ := frameTarget(t)
	h.line(2)
	h.line(3)
	h.do(h.s.Start(false))
	h.stop(engine.ReasonBreakpoint, 2)
	h.do(h.s.Step(engine.StepFrame)) // the breakpoint on line 3 comes first
	h.stop(engine.ReasonBreakpoint, 3)
	h.do(h.s.Continue()) // must stop at the next breakpoint, not at a frame boundary
	h.stop(engine.ReasonBreakpoint, 2)
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	h.exit(0)
}

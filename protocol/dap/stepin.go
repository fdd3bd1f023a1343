package dap

// Stepping into a chosen call of the line the program stopped on: stepInTargets lists the
// calls, stepIn with a target id enters one (engine StatementCalls, StepIntoTarget).

import (
	"fmt"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// stepInTargets answers stepInTargets: the functions the statement where the program
// stopped calls from there on, in order (engine.Session.StatementCalls); only the top
// frame's, whose statement a step runs. Target ids live until the next stop.
func (c *conn) stepInTargets(d *launch.Debuggee, a godap.StepInTargetsArguments) (any, error) {
	if frameIndex(a.FrameId) != 0 {
		return godap.StepInTargetsResponseBody{Targets: []godap.StepInTarget{}}, nil
	}
	calls, err := d.StatementCalls()
	if err != nil {
		return nil, err
	}
	c.calls = map[int]stepTarget{}
	out := make([]godap.StepInTarget, 0, len(calls))
	seen := map[string]int{}
	for i, call := range calls {
		c.calls[i+1] = stepTarget{call.Function, seen[call.Function]}
		seen[call.Function]++
		out = append(out, godap.StepInTarget{Id: i + 1, Label: call.Function, Line: call.Line, Column: call.Column})
	}
	return godap.StepInTargetsResponseBody{Targets: out}, nil
}

// stepIn answers stepIn: into the call a target id names (stepInTargets), else as a step
// into goes.
func (c *conn) stepIn(d *launch.Debuggee, a godap.StepInArguments) error {
	if a.TargetId == 0 {
		return c.resume(d, stepMode(a.Granularity, engine.StepInto))
	}
	target, ok := c.calls[a.TargetId]
	if !ok {
		return fmt.Errorf("stepIn: no target %d at this stop (ask stepInTargets)", a.TargetId)
	}
	seq := d.Seq()
	if err := d.StepIntoTarget(target.function, target.nth); err != nil {
		return err
	}
	c.ownContinues++
	c.stepFrom = max(seq, 1)
	return nil
}

// stepTarget is a call stepInTargets gave out: its function, and which of the line's calls
// of it (0 for the first).
type stepTarget struct {
	function string
	nth      int
}

// canStepIntoCalls says whether d's target lists a statement's calls and steps into one.
func canStepIntoCalls(d *launch.Debuggee) bool {
	_, lists := d.Target().(engine.CallLister)
	_, filters := d.Target().(engine.StepFilterer)
	return lists && filters
}

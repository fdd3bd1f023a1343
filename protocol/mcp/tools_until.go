package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/engine"
)

// UntilIn bounds a run_until.
type UntilIn struct {
	Session   SessionID `json:"session"`
	Location  string    `json:"location,omitempty" jsonschema:"stop on reaching FILE:LINE, LINE (of the current file) or a function name"`
	Condition string    `json:"condition,omitempty" jsonschema:"stop once this expression is true (checked after every step)"`
	Watch     []string  `json:"watch,omitempty" jsonschema:"expressions whose changes the trace records"`
	Into      bool      `json:"into,omitempty" jsonschema:"step into calls (default: step over them)"`
	MaxSteps  int       `json:"maxSteps,omitempty" jsonschema:"step budget (default 200, at most 10000)"`
	MaxMs     int       `json:"maxMs,omitempty" jsonschema:"time budget in milliseconds (default 5000)"`
	Budget
}

// TraceStep is one run of steps on a line: where, how many times in a row, and the
// watched values that changed there.
type TraceStep struct {
	Func    string            `json:"func,omitempty"`
	Line    int               `json:"line"`
	Times   int               `json:"times,omitempty"`
	Changed map[string]string `json:"changed,omitempty"`
}

// UntilOut is what a run_until did and where it ended.
type UntilOut struct {
	Reached     string      `json:"reached" jsonschema:"location, condition, breakpoint, exception, ended, steps (budget spent) or time (budget spent)"`
	Steps       int         `json:"steps"`
	Trace       []TraceStep `json:"trace"`
	TraceOmited int         `json:"traceOmitted,omitempty" jsonschema:"older trace entries left out"`
	Context     StopContext `json:"context"`
}

func (s *Server) addUntilTool() {
	addTool(s, "run_until", "Step the program (over calls, or into them) until it reaches a location, a condition "+
		"holds, a breakpoint or exception stops it, or a step or time budget is spent; answers with a compact trace "+
		"(lines run, watched values that changed) and the final stop context, instead of one call per step.",
		hints{destructive: s.opts.AllowExec, openWorld: s.opts.AllowExec},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in UntilIn) (UntilOut, error) {
			g, err := s.usable(c, in.Session)
			if err != nil {
				return UntilOut{}, err
			}
			defer g.call.Unlock()
			return s.runUntil(ctx, g, in)
		})
}

func (s *Server) runUntil(ctx context.Context, g *debuggee, in UntilIn) (UntilOut, error) {
	budget := s.wait(in.MaxMs)
	if in.MaxMs <= 0 {
		budget = min(5*time.Second, budget)
	}
	r, err := g.d.RunUntil(ctx, engine.Until{Into: in.Into, Location: in.Location, Condition: in.Condition,
		Watch: in.Watch, MaxSteps: min(in.MaxSteps, 10000), Deadline: time.Now().Add(budget)})
	if err != nil {
		if errors.Is(err, engine.ErrNotStopped) {
			return UntilOut{}, fmt.Errorf("run_until needs a stopped program (it is %s): pause it first", g.d.State())
		}
		return UntilOut{}, err
	}
	out := UntilOut{Reached: r.Reached, Steps: r.Steps, Trace: make([]TraceStep, len(r.Trace)), TraceOmited: r.Omitted}
	for i, t := range r.Trace {
		out.Trace[i] = TraceStep{Func: t.Location.Func, Line: t.Location.Line, Times: t.Times, Changed: t.Changed}
	}
	out.Context = s.stopContext(g, r.Halt, r.Halted, in.Budget)
	// The trace shares the budget: its oldest entries go first.
	limit := in.Budget.norm().MaxBytes
	for len(out.Trace) > 1 {
		if j, _ := json.Marshal(out); len(j) <= limit {
			break
		}
		cut := max(len(out.Trace)/4, 1)
		out.Trace = out.Trace[cut:]
		out.TraceOmited += cut
	}
	return out, nil
}

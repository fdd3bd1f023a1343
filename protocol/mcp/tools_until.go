package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
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

const maxTrace = 100

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
	if g.d.State() != engine.Stopped {
		return UntilOut{}, fmt.Errorf("run_until needs a stopped program (it is %s): pause it first", g.d.State())
	}
	steps := in.MaxSteps
	if steps <= 0 {
		steps = 200
	}
	steps = min(steps, 10000)
	budget := s.wait(in.MaxMs)
	if in.MaxMs <= 0 {
		budget = min(5*time.Second, budget)
	}
	deadline := time.Now().Add(budget)
	mode := engine.StepOver
	if in.Into {
		mode = engine.StepInto
	}
	atLoc, err := s.locationTest(g, in.Location)
	if err != nil {
		return UntilOut{}, err
	}
	out := UntilOut{Trace: []TraceStep{}}
	prev := s.watchValues(g, in.Watch)
	var h engine.Halt
	halted := true
	for out.Reached == "" {
		if out.Steps >= steps {
			out.Reached = "steps"
			break
		}
		if time.Now().After(deadline) {
			out.Reached = "time"
			break
		}
		seq := g.d.Seq()
		if err := g.d.Resume(mode); err != nil {
			return UntilOut{}, err
		}
		wctx, cancel := context.WithDeadline(ctx, deadline.Add(time.Second))
		h, halted = g.waitHalt(wctx, seq)
		cancel()
		out.Steps++
		if !halted {
			out.Reached = "time"
			break
		}
		if h.State.Ended() {
			out.Reached = "ended"
			break
		}
		loc := engine.Location{}
		if h.Stop != nil {
			loc = h.Stop.Location
		}
		cur := s.watchValues(g, in.Watch)
		out.record(loc, diff(prev, cur))
		prev = cur
		switch {
		case h.Stop != nil && h.Stop.Reason == engine.ReasonBreakpoint:
			out.Reached = "breakpoint"
		case h.Stop != nil && h.Stop.Reason == engine.ReasonException:
			out.Reached = "exception"
		case atLoc != nil && atLoc(loc):
			out.Reached = "location"
		case in.Condition != "" && s.truth(g, in.Condition):
			out.Reached = "condition"
		}
	}
	if out.Reached == "time" && g.d.State() == engine.Running {
		seq := g.d.Seq()
		_ = g.d.Pause()
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		h, halted = g.waitHalt(wctx, seq)
		cancel()
	}
	out.Context = s.stopContext(g, h, halted, in.Budget)
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

// record appends a location to the trace, folding repeats of the same line.
func (o *UntilOut) record(loc engine.Location, changed map[string]string) {
	if n := len(o.Trace); n > 0 && len(changed) == 0 {
		last := &o.Trace[n-1]
		if last.Line == loc.Line && last.Func == loc.Func && len(last.Changed) == 0 {
			last.Times = max(last.Times, 1) + 1
			return
		}
	}
	o.Trace = append(o.Trace, TraceStep{Func: loc.Func, Line: loc.Line, Changed: changed})
	if len(o.Trace) > maxTrace {
		o.Trace = append(o.Trace[:0], o.Trace[1:]...)
		o.TraceOmited++
	}
}

// locationTest turns "FILE:LINE", "LINE" or a function name into a test of a location.
func (s *Server) locationTest(g *debuggee, where string) (func(engine.Location) bool, error) {
	where = strings.TrimSpace(where)
	if where == "" {
		return nil, nil
	}
	file, lineText := "", where
	if i := strings.LastIndexByte(where, ':'); i > 0 {
		file, lineText = where[:i], where[i+1:]
	}
	line, err := strconv.Atoi(lineText)
	if err != nil {
		if file != "" {
			return nil, fmt.Errorf("location %q: want FILE:LINE, LINE or a function name", where)
		}
		return func(l engine.Location) bool { return l.Func == where }, nil
	}
	if file != "" {
		if r, err := g.d.Target().ResolveLine(abs(file), line); err == nil && r.Line > 0 {
			line = r.Line
		}
	}
	return func(l engine.Location) bool {
		return l.Line == line && (file == "" || filepath.Base(l.File) == filepath.Base(file))
	}, nil
}

func (s *Server) watchValues(g *debuggee, exprs []string) map[string]string {
	if len(exprs) == 0 {
		return nil
	}
	m := make(map[string]string, len(exprs))
	for _, e := range exprs {
		v, err := g.d.Evaluate(0, e, engine.EvalMode{Pure: true})
		if err != nil {
			m[e] = "<" + err.Error() + ">"
			continue
		}
		m[e] = engine.ClipValue(v.Value, 80)
	}
	return m
}

func diff(prev, cur map[string]string) map[string]string {
	var out map[string]string
	for k, v := range cur {
		if old, ok := prev[k]; !ok || old != v {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

func (s *Server) truth(g *debuggee, expr string) bool {
	v, err := g.d.Evaluate(0, expr, engine.EvalMode{Pure: true})
	if err != nil {
		return false
	}
	switch v.Value {
	case "", "0", "false", "nil", "none", "null":
		return false
	}
	return true
}

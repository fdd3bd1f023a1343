package aura

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite"
)

// MaxValueBytes bounds one printed value in env and watches; a longer one is cut and ends
// with "...".
const MaxValueBytes = 4096

// devvm is one Dev-VM run.
type devvm struct {
	*runner
	file     string
	s        *engine.Session
	tg       *kitevm.Target
	prof     *profile.Profiler
	watches  []string
	bps      []Breakpoint // the set asked for (applied once the session exists)
	bpsSet   bool
	condErrs map[int]string // breakpoint id -> why its condition could not be compiled
}

func (r *runner) runKite(ctx context.Context) int {
	file, err := filepath.Abs(r.cfg.File)
	if err != nil {
		file = r.cfg.File
	}
	prog, err := kite.CompileFile(file, nil)
	if err != nil {
		fmt.Fprintln(r.errw, err)
		r.out.finish()
		return 1
	}
	d := &devvm{runner: r, file: file, condErrs: map[int]string{}}
	if !r.cfg.Protocol {
		r.detached = true
	}
	if r.cfg.Protocol && r.cfg.WaitEnable {
		if code, ended := d.waitEnable(ctx); ended {
			return code
		}
	}
	if r.cfg.Protocol && r.perf {
		d.prof = &profile.Profiler{}
	}
	d.tg, err = kitevm.New(prog, kitevm.Options{Profiler: d.prof})
	if err != nil {
		fmt.Fprintln(r.errw, err)
		return 1
	}
	d.s = engine.NewSession(d.tg)
	defer d.s.Close()
	sub := d.s.Subscribe()
	defer d.s.Unsubscribe(sub)
	if d.bpsSet {
		d.applyBreakpoints()
	}
	if err := d.s.Start(r.startPaused && !r.detached); err != nil {
		fmt.Fprintln(r.errw, err)
		return 1
	}
	return d.loop(ctx, sub)
}

// waitEnable handles commands until the client's enable (or the end of stdin) arrives.
// It reports ended when the run is over before it began (terminate, or a signal).
func (d *devvm) waitEnable(ctx context.Context) (code int, ended bool) {
	for {
		select {
		case c, ok := <-d.cmds:
			if !ok {
				d.cmds, d.detached = nil, true
				return 0, false
			}
			switch c.Cmd {
			case CmdEnable:
				d.applyEnable(c)
				return 0, false
			case CmdSetBreakpoints:
				d.bps, d.bpsSet = c.Breakpoints, true
			case CmdSetWatches:
				d.watches = c.Watches
			case CmdPause:
				d.startPaused = true
			case CmdTerminate:
				d.out.event(TerminatedEvent{Event: "terminated", Target: "devvm"}, true)
				d.out.finish()
				return ExitTerminated, true
			default:
				d.note("ignored %s: the program has not started (waiting for enable)", c.Cmd)
			}
		case <-ctx.Done():
			return ExitTerminated, true
		}
	}
}

// loop translates engine events and client commands until the program has ended.
func (d *devvm) loop(ctx context.Context, sub *engine.Subscription) int {
	events := sub.Events()
	ctxDone := ctx.Done()
	code, terminated := 0, false
	for events != nil {
		select {
		case e, ok := <-events:
			if !ok {
				events = nil
				break
			}
			switch e.Kind {
			case engine.EventOutput:
				if e.Category == "stderr" {
					writeString(d.errw, e.Text)
				} else {
					d.out.program([]byte(e.Text))
				}
			case engine.EventStopped:
				d.stopped(e.Stop)
			case engine.EventExited:
				code = e.ExitCode
			case engine.EventTerminated:
				terminated = true
			}
		case c, ok := <-d.cmds:
			if !ok {
				d.cmds = nil
				d.detach()
				break
			}
			d.command(c)
		case <-ctxDone:
			ctxDone = nil
			_ = d.s.Terminate()
		}
	}
	if d.cfg.Protocol && d.perf && d.prof != nil {
		d.out.event(PerfReportEvent{Event: "perfReport", Report: buildPerfReport(d.prof.Report(), d.tg.Memory())}, true)
	}
	if terminated {
		d.out.event(TerminatedEvent{Event: "terminated", Target: "devvm"}, true)
		code = ExitTerminated
	}
	d.out.finish()
	return code
}

func writeString(w io.Writer, s string) { _, _ = w.Write([]byte(s)) }

// stopped turns an engine stop into a stopped event, or resumes at once when no client can
// act on it (detached, or an exception the client did not ask to stop on).
func (d *devvm) stopped(st *engine.Stop) {
	if d.detached || (st.Reason == engine.ReasonException && !d.stopOnException) {
		_ = d.s.Continue()
		return
	}
	reason := string(st.Reason)
	if st.Reason == engine.ReasonEntry {
		reason = "pause" // start_paused stops as a pause before the first statement
	}
	ev := StoppedEvent{
		Event: "stopped", Reason: reason, File: d.file,
		Line: st.Location.Line, Col: st.Location.Col, Func: st.Location.Func,
		BreakpointID: st.BreakpointID, Error: st.Text,
		Env: d.env(), Watches: d.evalWatches(),
	}
	if ev.Error == "" && st.Reason == engine.ReasonBreakpoint {
		ev.Error = d.condErrs[st.BreakpointID]
	}
	d.out.event(ev, true)
}

// env is the variables visible in the innermost frame: globals, then locals over them.
func (d *devvm) env() map[string]string {
	env := map[string]string{}
	scopes, err := d.s.Scopes(0)
	if err != nil {
		return env
	}
	for i := len(scopes) - 1; i >= 0; i-- {
		vars, err := d.s.Variables(scopes[i].Ref)
		if err != nil {
			continue
		}
		for _, v := range vars {
			env[v.Name] = clip(v.Value)
		}
	}
	return env
}

// evalWatches evaluates every watch in pure mode in the innermost frame.
func (d *devvm) evalWatches() []WatchResult {
	out := make([]WatchResult, 0, len(d.watches))
	for _, expr := range d.watches {
		v, err := d.s.Evaluate(0, expr, engine.EvalMode{Pure: true})
		if err != nil {
			out = append(out, WatchResult{Expr: expr, Error: err.Error()})
			continue
		}
		val := clip(v.Value)
		out = append(out, WatchResult{Expr: expr, Value: &val})
	}
	return out
}

func clip(s string) string {
	if len(s) <= MaxValueBytes {
		return s
	}
	return engine.ClipValue(s, MaxValueBytes)
}

// command applies one client command to the session.
func (d *devvm) command(c Command) {
	var err error
	switch c.Cmd {
	case CmdEnable:
		wasPerf := d.perf
		d.applyEnable(c)
		if d.perf && !wasPerf && d.prof == nil {
			d.note("perf can only be turned on before the program starts (use AURA_DEBUG_WAIT=1)")
		}
		if c.StartPaused != nil && *c.StartPaused && d.s.State() == engine.Running {
			err = d.s.Pause() // the program already runs: stop as soon as possible
		}
	case CmdPause:
		err = d.s.Pause()
	case CmdContinue:
		err = d.s.Continue()
	case CmdStep, CmdStepIn:
		err = d.s.Step(engine.StepInto)
	case CmdStepOver:
		err = d.s.Step(engine.StepOver)
	case CmdStepOut:
		err = d.s.Step(engine.StepOut)
	case CmdSetBreakpoints:
		d.bps, d.bpsSet = c.Breakpoints, true
		d.applyBreakpoints()
	case CmdSetWatches:
		d.watches = c.Watches
		if d.s.State() == engine.Stopped {
			d.out.event(WatchesEvent{Event: "watches", Watches: d.evalWatches()}, true)
		}
	case CmdTerminate:
		err = d.s.Terminate() // a no-op once the program has ended
	}
	if err != nil {
		d.note("ignored %s: %v", c.Cmd, err)
	}
}

// applyBreakpoints replaces the session's breakpoints with d.bps and reports where each
// bound. A condition that cannot be compiled (a syntax error, a call the pure mode
// refuses) still gives a breakpoint: it stops, and its stopped event carries the error.
func (d *devvm) applyBreakpoints() {
	d.s.ClearBreakpoints()
	d.condErrs = map[int]string{}
	results := make([]BreakpointResult, 0, len(d.bps))
	for _, b := range d.bps {
		spec := engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: d.file, Line: b.Line,
			Condition: b.Condition, HitCondition: b.HitCondition}
		res := BreakpointResult{RequestedLine: b.Line}
		bp, err := d.s.SetBreakpoint(spec)
		if err != nil && spec.Condition != "" {
			condErr := err
			spec.Condition = ""
			if bp, err = d.s.SetBreakpoint(spec); err == nil {
				d.condErrs[bp.ID] = condErr.Error()
				res.Error = condErr.Error()
			}
		}
		if err != nil {
			res.Error = err.Error()
			d.note("breakpoint at line %d: %v", b.Line, err)
		} else {
			res.ID, res.Line, res.Verified = bp.ID, bp.Location.Line, true
		}
		results = append(results, res)
	}
	d.out.event(BreakpointsEvent{Event: "breakpoints", Breakpoints: results}, false)
}

// detach is called when stdin ends: no client can resume a stop any more, so breakpoints
// go and a stopped program continues to its end.
func (d *devvm) detach() {
	d.detached = true
	d.s.ClearBreakpoints()
	if d.s.State() == engine.Stopped {
		if err := d.s.Continue(); err != nil && !errors.Is(err, engine.ErrEnded) {
			d.note("continue after the end of commands: %v", err)
		}
	}
}

package aura

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// MaxValueBytes bounds one printed value in env and watches; a longer one is cut and ends
// with "...".
const MaxValueBytes = 4096

// devvm is one Dev-VM run.
type devvm struct {
	*runner
	file     string
	s        *launch.Debuggee
	watches  []string     // asked for before the session exists
	bps      []Breakpoint // the set asked for before the session exists
	bpsSet   bool
	reported uint64                  // the last engine event written: steps resume only from a stop told
	envs     map[string]string       // a stop's env, made again at each (encoded at once)
	vars     []engine.ScopedVariable // the variables it is made of, the buffer reused
}

func (r *runner) runKite(ctx context.Context) int {
	file, err := filepath.Abs(r.cfg.File)
	if err != nil {
		file = r.cfg.File
	}
	d := &devvm{runner: r, file: file, envs: map[string]string{}}
	if !r.cfg.Protocol {
		r.detached = true
	}
	if r.cfg.Protocol && r.cfg.WaitEnable {
		if code, ended := d.waitEnable(ctx); ended {
			return code
		}
	}
	d.s, err = launch.Start(ctx, launch.Spec{Kind: launch.Kite, Program: file, Profile: r.cfg.Protocol && r.perf})
	if err != nil {
		fmt.Fprintln(r.errw, err)
		r.out.finish()
		return 1
	}
	defer d.s.Close()
	sub := d.s.Subscribe()
	defer d.s.Unsubscribe(sub)
	d.s.SetExceptionStops(d.stopOnException)
	d.s.SetWatches(d.watches)
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

// loop translates engine events and client commands until the program has ended. Before
// a command is applied, every event already queued is written: a stop's event, its
// variables and watches are taken while the program is still at that stop. Commands are
// handled on the goroutine that reads them (runner.inline), events that come between
// commands here; mu keeps the two apart.
func (d *devvm) loop(ctx context.Context, sub *engine.Subscription) int {
	var mu sync.Mutex
	ctxDone := ctx.Done()
	code, terminated, ended := 0, false, false
	handle := func(e engine.Event) {
		switch e.Kind {
		case engine.EventOutput:
			if e.Category == "stderr" {
				_, _ = io.WriteString(d.errw, e.Text)
			} else {
				d.out.program([]byte(e.Text))
			}
		case engine.EventStopped:
			d.stopped(e)
		case engine.EventExited:
			code = e.ExitCode
		case engine.EventTerminated:
			terminated = true
		}
		d.reported = e.Seq
	}
	// drain writes the events that happened before it began; toHalt also a stop that came
	// meanwhile, so that a command acts on a stop reported (sub.CatchUp).
	drain := func(toHalt bool) {
		if !ended {
			d.reported, ended = sub.CatchUp(d.s.Session, d.reported, toHalt, handle)
		}
	}
	command := func(c Command) { // with mu held
		drain(true)
		d.command(c)
		drain(false) // a step's stop is already reported (it ran on this goroutine)
	}
	inline := func(c Command) bool {
		mu.Lock()
		defer mu.Unlock()
		if ended {
			return false
		}
		sub.Hold() // this goroutine drains what the command makes: the loop sleeps on
		command(c)
		d.out.flush() // the answer leaves from here when the pipe has room
		sub.Release()
		return true
	}
	d.inline.Store(&inline)
	defer d.inline.Store(nil)
	mu.Lock()
	for !ended {
		d.out.flush() // what the last drain or command wrote
		mu.Unlock()
		select {
		case <-sub.Ready():
			mu.Lock()
			drain(false)
		case c, ok := <-d.cmds:
			mu.Lock()
			if !ok {
				d.cmds = nil
				drain(true)
				d.detach()
				break
			}
			command(c)
		case <-ctxDone:
			mu.Lock()
			ctxDone = nil
			_ = d.s.Terminate()
		}
	}
	mu.Unlock()
	if d.cfg.Protocol && d.perf && d.s.Profiler != nil {
		d.out.event(PerfReportEvent{Event: "perfReport", Report: buildPerfReport(d.s.Profiler.Report(), d.s.KiteMemory())}, true)
	}
	if terminated {
		d.out.event(TerminatedEvent{Event: "terminated", Target: "devvm"}, true)
		code = ExitTerminated
	}
	d.out.finish()
	return code
}

// stopped turns an engine stop into a stopped event, or resumes at once when no client can
// act on it (detached).
func (d *devvm) stopped(e engine.Event) {
	st := e.Stop
	if d.detached {
		_ = d.s.Continue()
		return
	}
	reason := string(st.Reason)
	if st.Reason == engine.ReasonEntry {
		reason = "pause" // start_paused stops as a pause before the first statement
	}
	d.out.event(StoppedEvent{
		Event: "stopped", Reason: reason, File: d.file,
		Line: st.Location.Line, Col: st.Location.Col, Func: st.Location.Func,
		BreakpointID: st.BreakpointID, Error: st.Text,
		Env: d.env(), Watches: d.watchResults(e.Seq),
	}, true)
}

// env is the variables visible in the innermost frame: globals, then locals over them.
func (d *devvm) env() map[string]string {
	env := d.envs
	clear(env)
	vars, err := d.s.AppendFrameVariables(d.vars[:0], 0)
	d.vars = vars
	if err != nil {
		return env
	}
	for i := len(vars) - 1; i >= 0; i-- {
		env[vars[i].Name] = engine.ClipValue(vars[i].Value, MaxValueBytes)
	}
	return env
}

// watchResults are the engine's watches as taken at the stop numbered seq.
func (d *devvm) watchResults(seq uint64) []WatchResult {
	values, err := d.s.WatchValues(seq)
	out := make([]WatchResult, 0, len(values))
	if err != nil {
		d.note("watches: %v", err)
		return out
	}
	for _, w := range values {
		if w.Err != "" {
			out = append(out, WatchResult{Expr: w.Expr, Error: w.Err})
			continue
		}
		val := engine.ClipValue(w.Value.Value, MaxValueBytes)
		out = append(out, WatchResult{Expr: w.Expr, Value: &val})
	}
	return out
}

// command applies one client command to the session.
func (d *devvm) command(c Command) {
	var err error
	switch c.Cmd {
	case CmdEnable:
		wasPerf := d.perf
		d.applyEnable(c)
		if d.perf && !wasPerf && d.s.Profiler == nil {
			d.note("perf can only be turned on before the program starts (use AURA_DEBUG_WAIT=1)")
		}
		d.s.SetExceptionStops(d.stopOnException)
		if c.StartPaused != nil && *c.StartPaused && d.s.State() == engine.Running {
			err = d.s.Pause() // the program already runs: stop as soon as possible
		}
	case CmdPause:
		err = d.s.Pause()
	case CmdContinue:
		err = d.s.ResumeFrom(d.reported, engine.Continue)
	case CmdStep, CmdStepIn:
		err = d.s.ResumeFrom(d.reported, engine.StepInto)
	case CmdStepOver:
		err = d.s.ResumeFrom(d.reported, engine.StepOver)
	case CmdStepOut:
		err = d.s.ResumeFrom(d.reported, engine.StepOut)
	case CmdSetBreakpoints:
		d.bps, d.bpsSet = c.Breakpoints, true
		d.applyBreakpoints()
	case CmdSetWatches:
		d.s.SetWatches(c.Watches)
		if h := d.s.LastHalt(); h.State == engine.Stopped && d.s.State() == engine.Stopped {
			d.out.event(WatchesEvent{Event: "watches", Watches: d.watchResults(h.Seq)}, true)
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
	specs := make([]engine.BreakpointSpec, len(d.bps))
	for i, b := range d.bps {
		specs[i] = engine.BreakpointSpec{Line: b.Line, Condition: b.Condition, HitCondition: b.HitCondition}
	}
	set := d.s.SetBreakpoints(d.file, specs)
	results := make([]BreakpointResult, len(set))
	for i, bp := range set {
		results[i] = BreakpointResult{RequestedLine: d.bps[i].Line, ID: bp.ID, Line: bp.Location.Line,
			Verified: bp.Verified, Error: bp.Message}
		if !bp.Verified {
			results[i].ID, results[i].Line = 0, 0
			d.note("breakpoint at line %d: %s", d.bps[i].Line, bp.Message)
		}
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

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/examples"
	"github.com/polydbg/polydbg/launch"
)

func init() {
	register(&command{name: "demo", summary: "a guided tour of the debugger on a built-in example", run: func([]string) int {
		if err := demo(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "demo:", err)
			return 1
		}
		return 0
	}})
}

// tour drives one session of the demo program and narrates each action and its result.
type tour struct {
	w      io.Writer
	s      *engine.Session
	events <-chan engine.Event
	src    []string
}

func (t *tour) say(format string, args ...any) { fmt.Fprintf(t.w, format+"\n", args...) }

// action prints what the debugger is asked to do, as the terminal debugger would spell it.
func (t *tour) action(cmd, why string) { t.say("\n(polydbg) %-28s # %s", cmd, why) }

// waitStop shows program output until the next stop or the end.
func (t *tour) waitStop() (*engine.Stop, error) {
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-t.events:
			if !ok {
				return nil, fmt.Errorf("session ended early")
			}
			switch e.Kind {
			case engine.EventOutput:
				t.say("  program> %s", strings.TrimRight(e.Text, "\n"))
			case engine.EventStopped:
				loc := e.Stop.Location
				t.say("  stopped (%s) in %s at line %d:  %s", e.Stop.Reason, loc.Func, loc.Line, strings.TrimSpace(t.src[loc.Line-1]))
				if rv := e.Stop.ReturnValue; rv != nil {
					t.say("  value returned by %s: %s", rv.Name, rv.Value)
				}
				return e.Stop, nil
			case engine.EventExited:
				t.say("  program exited with code %d", e.ExitCode)
				return nil, nil
			}
		case <-timeout:
			return nil, fmt.Errorf("timed out")
		}
	}
}

func (t *tour) vars(frame int) error {
	scopes, err := t.s.Scopes(frame)
	if err != nil {
		return err
	}
	for _, sc := range scopes {
		vs, err := t.s.Variables(sc.Ref)
		if err != nil {
			return err
		}
		var parts []string
		for _, v := range vs {
			parts = append(parts, fmt.Sprintf("%s = %s (%s)", v.Name, v.Value, v.Type))
		}
		if len(parts) == 0 {
			parts = []string{"(none)"}
		}
		t.say("  %s: %s", strings.ToLower(sc.Name), strings.Join(parts, ", "))
	}
	return nil
}

func demo(w io.Writer) error {
	const name = "demo.kite"
	src, err := examples.FS.ReadFile(name)
	if err != nil {
		return err
	}
	spec := launch.Spec{Program: "examples/" + name, Source: src}
	t := &tour{w: w, src: strings.Split(string(src), "\n")}
	t.say("polydbg demo: debugging examples/%s in the Kite VM (`polydbg debug examples/%s` gives you the prompt).", name, name)
	t.say("\nThe program:")
	for i, l := range t.src {
		if l != "" || i < len(t.src)-1 {
			t.say("  %3d  %s", i+1, l)
		}
	}

	d, err := launch.Start(context.Background(), spec)
	if err != nil {
		return err
	}
	t.s = d.Session
	defer t.s.Close()
	t.events = t.s.Subscribe().Events()

	t.action("break fib if n == 3", "a conditional breakpoint: stop only when n is 3")
	bp, err := t.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "fib", Condition: "n == 3"})
	if err != nil {
		return err
	}
	t.say("  Breakpoint %d at line %d (pc %d)", bp.ID, bp.Location.Line, bp.Location.PC)

	t.action("run", "start the program; fib(1) and fib(2) do not stop")
	if err := t.s.Start(false); err != nil {
		return err
	}
	if _, err := t.waitStop(); err != nil {
		return err
	}

	t.action("backtrace", "the call stack, innermost first")
	frames, err := t.s.Stack()
	if err != nil {
		return err
	}
	for _, f := range frames {
		t.say("  #%d %s at line %d", f.Index, f.Func, f.Location.Line)
	}

	t.action("info locals", "variables of frame 0, then the globals")
	if err := t.vars(0); err != nil {
		return err
	}

	t.action("display n * 10", "a watch, evaluated in pure mode at every stop")
	showWatch := func() {
		if v, err := t.s.Evaluate(0, "n * 10", engine.EvalMode{Pure: true}); err == nil {
			t.say("  watch: n * 10 = %s", v.Value)
		}
	}
	showWatch()
	t.s.ClearBreakpoints()

	steps := []struct {
		cmd, why string
		mode     engine.ResumeMode
	}{
		{"next", "step over the statement", engine.StepOver},
		{"next", "step over a recursive call: we stay in this activation", engine.StepOver},
		{"step", "step into fib(n - 2)", engine.StepInto},
		{"finish", "step out: back in the caller right after the call", engine.StepOut},
		{"next", "the rest of the line: b gets the returned value", engine.StepOver},
	}
	for _, st := range steps {
		t.action(st.cmd, st.why)
		if err := t.s.Step(st.mode); err != nil {
			return err
		}
		if _, err := t.waitStop(); err != nil {
			return err
		}
		showWatch()
	}

	t.action("print a + b", "evaluate an expression in the current frame")
	v, err := t.s.Evaluate(0, "a + b", engine.EvalMode{Pure: true})
	if err != nil {
		return err
	}
	t.say("  $ = %s", v.Value)

	t.action("print append(counts, 1)", "pure mode refuses anything that changes the program")
	if _, err := t.s.Evaluate(0, "append(counts, 1)", engine.EvalMode{Pure: true}); err != nil {
		t.say("  refused: %v", err)
	}

	t.action("continue", "run to the end")
	if err := t.s.Continue(); err != nil {
		return err
	}
	if _, err := t.waitStop(); err != nil {
		return err
	}

	t.action("run --flame demo.svg", "the same program with the statement profiler on")
	spec.Profile = true
	ps, err := launch.Start(context.Background(), spec)
	if err != nil {
		return err
	}
	defer ps.Close()
	prof := ps.Profiler
	psub := ps.Subscribe()
	if err := ps.Start(false); err != nil {
		return err
	}
	for range psub.Events() {
	}
	r := prof.Report()
	t.say("  %d statements in %.3f ms; hottest stacks (self time):", len(r.Timeline)+int(r.TimelineDropped), float64(r.TotalNs)/1e6)
	for _, l := range profile.FlameSummary(r.FlameFolded, 5) {
		t.say("    %s", l)
	}
	t.say("\nThat was the engine every polydbg front end drives. Next: polydbg debug examples/%s", name)
	return nil
}

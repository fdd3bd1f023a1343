package gdbcmd

// The commands that run the program: run, start, continue, step, next, finish, until,
// advance, jump.

import (
	"context"
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

func cmdRun(d *Debugger, args string) bool {
	if d.takeArgs(args) {
		d.run(false)
	}
	return false
}

// takeArgs makes args, when given, the program's arguments (run ARGS, start ARGS); false
// when they are refused.
func (d *Debugger) takeArgs(args string) bool {
	if strings.TrimSpace(args) == "" {
		return true
	}
	if err := d.setArgs(strings.TrimSpace(args)); err != nil {
		d.fail("%v\n", err)
		return false
	}
	return true
}

// cmdStart is gdb's start: on a program with a main function (C), a temporary breakpoint
// there and run, so that it stops in main, not at the loader's entry; on Kite, the stop
// before the first statement.
func cmdStart(d *Debugger, args string) bool {
	if !d.takeArgs(args) {
		return false
	}
	if _, err := d.s.Target().ResolveFunction("main"); err == nil && !d.indexedPCs() {
		d.setBreak("main", "Temporary breakpoint", func(spec *engine.BreakpointSpec) { spec.Temporary = true })
		d.run(false)
		return false
	}
	d.run(true)
	return false
}

// cmdStarti is gdb's starti [ARGS]: the program started and stopped at its very first
// instruction (the dynamic linker's), "Program stopped." as gdb says it.
func cmdStarti(d *Debugger, args string) bool {
	if !d.takeArgs(args) {
		return false
	}
	if _, ok := d.s.Target().(engine.FirstInstructionStarter); !ok || d.indexedPCs() {
		d.run(true) // a Kite program's first instruction is its entry
		return false
	}
	d.atFirstInstruction = true
	d.runWith(func() error { return d.s.StartAtFirstInstruction() })
	return false
}

func (d *Debugger) run(stopOnEntry bool) {
	d.runWith(func() error { return d.s.Start(stopOnEntry) })
}

// runWith starts the program (again, from the beginning, after gdb's question when it
// runs) with start.
func (d *Debugger) runWith(start func() error) {
	if d.cfg.Attach {
		d.fail("The program was attached to, not started by polydbg: it cannot be run again (detach, then run it yourself).\n")
		return
	}
	if d.live() && d.cfg.Confirm != nil {
		d.printf("The program being debugged has been started already.\n")
		if !d.cfg.Confirm("Start it from the beginning? (y or n) ") {
			d.printf("Program not restarted.\n")
			return
		}
	}
	if d.s.State() != engine.Initialized || d.startup.change {
		if err := d.newSession(); err != nil {
			d.fail("%v\n", err)
			return
		}
	}
	d.s.ClearHitCounts() // as gdb's run: kept from the last run until now
	d.startingProgram()
	d.ranOnce = true
	d.lastListed = 0 // gdb forgets the lines listed when the program's libraries load
	d.runAndReport(func() error { return start() })
}

// cmdContinue is gdb's continue [N]: with N, the breakpoint the program is stopped at is
// passed N-1 more times without stopping.
func cmdContinue(d *Debugger, args string) bool {
	if d.cfg.Attached && d.s.State() == engine.Initialized {
		d.say("Continuing.\n")
		d.run(false)
		return false
	}
	if d.notStarted("The program is not being run.") {
		return false
	}
	ignore, bp := 0, 0
	if args != "" {
		n, ok := atoi(args)
		if !ok || n < 1 {
			d.fail("Invalid count %q.\n", args)
			return false
		}
		if st := d.s.LastStop(); d.s.State() == engine.Stopped && st != nil && st.Reason == engine.ReasonBreakpoint {
			ignore, bp = n-1, st.BreakpointID
			d.say("Will ignore next %d crossings of breakpoint %d.  Continuing.\n", ignore, bp)
		} else {
			d.printf("Not stopped at any breakpoint; argument ignored.\n")
		}
	}
	if ignore == 0 && d.s.State() == engine.Stopped {
		d.say("Continuing.\n")
	}
	for {
		h, ok := d.resume(d.s.Continue)
		if !ok {
			return false
		}
		if ignore > 0 && h.State == engine.Stopped && h.Stop.Reason == engine.ReasonBreakpoint && h.Stop.BreakpointID == bp {
			ignore--
			continue
		}
		d.report(h)
		return false
	}
}

func stepCmd(mode engine.ResumeMode) cmdFunc {
	return func(d *Debugger, args string) bool {
		if d.notStarted("The program is not being run.") {
			return false
		}
		d.repeatStep(args, func() (engine.Halt, bool) {
			if (mode == engine.StepInto || mode == engine.StepOver) && !d.stepsWithoutLines() {
				return engine.Halt{}, false
			}
			return d.resume(func() error { return d.s.Step(mode) })
		})
		return false
	}
}

// stepsWithoutLines says, as gdb, that a step or next from a function without line
// information runs until the function returns; false, with gdb's error, where the
// program is stopped outside any function it can name.
func (d *Debugger) stepsWithoutLines() bool {
	h := d.s.LastHalt() // (no copy of the stop: this is on every step's path)
	if h.State != engine.Stopped || h.Stop == nil || h.Stop.Location.Line != 0 || d.indexedPCs() {
		return true
	}
	frames, err := d.s.Stack() // the innermost frame's function, named by the symbol table too
	if err != nil || len(frames) == 0 || frames[0].Location.Line != 0 {
		return true
	}
	name := namedFunc(frames[0])
	if name == "" {
		d.fail("Cannot find bounds of current function\n")
		return false
	}
	d.printf("Single stepping until exit from function %s,\nwhich has no line number information.\n", name)
	return true
}

// cmdNexti is gdb's nexti [N]: stepi, a call instruction run with the function it calls.
func cmdNexti(d *Debugger, args string) bool {
	if d.notStarted("The program is not being run.") {
		return false
	}
	d.repeatStep(args, func() (engine.Halt, bool) { return d.await(d.s.NextInstruction) })
	return false
}

// repeatStep makes the step one does N times (gdb's step N, next N, stepi N, nexti N; N an
// expression, 1 without), telling only where the last one stopped, or where something
// other than a step (a breakpoint, a signal, the end) stopped the program on the way.
func (d *Debugger) repeatStep(args string, one func() (engine.Halt, bool)) {
	n := 1
	if args != "" {
		v, err := d.eval(args, true)
		count, isInt := engine.IntegerOf(v.Value)
		if err != nil || !isInt {
			d.fail("Invalid number %q.\n", args)
			return
		}
		n = int(count)
	}
	for i := 1; i <= n; i++ {
		h, ok := one()
		if !ok {
			return
		}
		if i == n || h.State != engine.Stopped || h.Stop == nil || h.Stop.Reason != engine.ReasonStep {
			d.report(h)
			return
		}
	}
}

// cmdFinish is gdb's finish: it runs until the selected frame returns (engine Finish: from
// an outer frame, after up, one step out per frame, stopping early where something else
// stops the program), says which frame it runs out of, and prints the returned value,
// which joins the value history.
func cmdFinish(d *Debugger, _ string) bool {
	if d.notStarted("The program is not being run.") {
		return false
	}
	if frames, err := d.s.Stack(); err == nil {
		if d.frame >= len(frames)-1 && (d.frame > 0 || !d.indexedPCs()) { // (from Kite's top level itself, the VM decides)
			d.fail("\"finish\" not meaningful in the outermost frame.\n")
			return false
		}
		if d.frame < len(frames)-1 {
			f := frames[d.frame]
			d.say("Run till exit from #%-2d %s\n", d.frame, d.frameLine(f, d.frameMidLine(f)))
		}
	}
	frame := d.frame
	h, ok := d.await(func(ctx context.Context) (engine.Halt, error) { return d.s.Finish(ctx, frame) })
	if !ok {
		return false
	}
	d.report(h)
	if h.State == engine.Stopped && h.Stop.ReturnValue != nil {
		v := *h.Stop.ReturnValue
		d.printf("Value returned is $%d = %s%s\n", d.values.Record(v), pointerPrefix(v, 0), v.Value)
	}
	return false
}

// cmdUntil is gdb's until: with a location, advance; without one, the engine's StepPast
// (next, but not back into a loop).
func cmdUntil(d *Debugger, args string) bool {
	if strings.TrimSpace(args) != "" {
		return cmdAdvance(d, args)
	}
	if st := d.s.State(); st != engine.Stopped {
		d.fail("The program is not being run.\n")
		return false
	}
	if h, ok := d.await(d.s.StepPast); ok {
		d.report(h)
	}
	return false
}

// cmdAdvance is gdb's advance (and until with a location): engine Advance runs to LOCATION
// through a breakpoint of its own, or until the selected frame returns first; the hit of
// its breakpoint is told as a plain stop.
func cmdAdvance(d *Debugger, args string) bool {
	if d.notStarted("The program is not being run.") {
		return false
	}
	if strings.TrimSpace(args) == "" {
		d.fail("Argument required (a location: FILE:LINE, LINE or FUNCTION).\n")
		return false
	}
	spec, ok := d.locationWhileStopped(args)
	if !ok {
		return false
	}
	var id int
	h, ok := d.await(func(ctx context.Context) (engine.Halt, error) {
		h, bpID, err := d.s.Advance(ctx, spec, d.frame)
		id = bpID
		return h, err
	})
	if ok {
		d.momentary = id
		d.report(h)
		d.momentary = 0
	}
	return false
}

// cmdJump is gdb's jump LINE: the stopped thread goes on at another line of the function it
// runs (engine.Jumper: written pc, the frame as it is), and the program continues from there.
// A line of another function is refused (gdb asks whether to jump anyway; the frame would
// not fit it).
func cmdJump(d *Debugger, args string) bool {
	spec, ok := d.locationWhileStopped(args)
	if !ok {
		return false
	}
	if spec.Kind != engine.LineBreakpoint {
		d.fail("jump takes a line: LINE or FILE:LINE.\n")
		return false
	}
	targets, err := d.s.GotoTargets(spec.File, spec.Line)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	if len(targets) == 0 && d.indexedPCs() { // Kite's frame would not fit another function
		d.printf("Line %d is not a statement of the function being run: jump moves within it only.\n", spec.Line)
		return false
	}
	if len(targets) == 0 { // a line of another function: gdb asks first, then jumps there
		loc, err := d.s.Target().ResolveLine(spec.File, spec.Line)
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		fn, ok := d.selectedFunc()
		if !ok {
			fn = d.lastFrame.fn
		}
		if !d.query(fmt.Sprintf("Line %d is not in `%s'.  Jump anyway? ", spec.Line, fn)) {
			return false
		}
		targets = append(targets, loc)
	}
	if err := d.s.Goto(targets[0]); err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	if ix, ok := d.s.Target().(engine.IndexedPCs); ok && ix.PCsAreIndexes() {
		d.say("Continuing at pc %d.\n", targets[0].PC)
	} else {
		d.say("Continuing at %#x.\n", targets[0].PC)
	}
	d.runAndReport(d.s.Continue)
	return false
}

// locationWhileStopped reads the location argument of a command that needs the program
// stopped; false, with the reason said, when it cannot be used.
func (d *Debugger) locationWhileStopped(args string) (engine.BreakpointSpec, bool) {
	if d.s.State() != engine.Stopped {
		d.fail("The program is not being run.\n")
		return engine.BreakpointSpec{}, false
	}
	spec, err := d.parseLocation(args)
	if err != nil {
		d.fail("%v\n", err)
		return spec, false
	}
	return spec, true
}

// notStarted says msg, gdb's words for what a command needs a running program for ("No
// stack."), and reports true, when the program has not started or has ended.
func (d *Debugger) notStarted(msg string) bool {
	if d.live() {
		return false
	}
	d.fail("%s\n", msg)
	return true
}

// live says that the program has started and not ended.
func (d *Debugger) live() bool {
	st := d.s.State()
	return st != engine.Initialized && !st.Ended()
}

// cmdQuit ends the session; with the program alive, only once the user agrees that it
// will be killed, or detached from if it was attached to (gdb's words; without a terminal
// the question is answered yes, as gdb's, and under -batch not asked).
func cmdQuit(d *Debugger, _ string) bool {
	if !d.live() || d.cfg.Batch {
		return true
	}
	what := "The program"
	if inf := d.inferior(); inf != "" {
		what = fmt.Sprintf("Inferior %d [%s]", d.s.Inferior(), inf)
	}
	fate := "killed"
	if d.s.Attached() {
		fate = "detached"
	}
	d.printf("A debugging session is active.\n\n\t%s will be %s.\n\n", what, fate)
	if !d.query("Quit anyway? ") {
		d.fail("Not confirmed.\n")
		return false
	}
	if d.s.Attached() {
		d.detach(true)
	}
	return true
}

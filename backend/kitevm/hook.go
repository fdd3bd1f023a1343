package kitevm

import (
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite/vm"
)

// hook is the VM's debugger hook; every method runs on the program's coroutine.
type hook struct{ t *Target }

// Trap decides what a trapped pc means: a terminate or pause request, the entry stop, a
// breakpoint (the engine evaluates it), the end of a step, or a profiled statement.
func (h hook) Trap(pc int) error {
	t := h.t
	t.inTrap = true // a stop made here may be moved (Jump)
	t.applyTraps()
	if t.termReq.Load() {
		return ErrTerminated
	}
	li := t.vm.Line(pc)
	if p := t.opts.Profiler; p != nil && li.Stmt {
		p.Statement(profile.Site{Line: int(li.Line), Col: int(li.Col), Kind: li.Kind}, t.vm.NumFrames(), t.stackKey())
	}
	if t.entry && li.Stmt {
		t.entry = false
		return t.suspend(engine.Stop{Reason: engine.ReasonEntry, Location: t.here(pc)})
	}
	if t.pauseReq.Load() && t.pauseReq.Swap(false) {
		return t.suspend(engine.Stop{Reason: engine.ReasonPause, Location: t.here(pc)})
	}
	if t.at != nil && t.at[pc] {
		if st := t.checkWatches(pc); st != nil {
			return t.suspend(*st)
		}
	}
	if t.bp[pc] {
		t.goOnAlone() // a logpoint's message is output, which the engine may hold back
		if st := t.h.Trap(t.here(pc)); st != nil {
			return t.suspend(*st)
		}
	}
	if t.between {
		// The first trap after a stop between instructions is the instruction that was
		// about to run: an instruction step runs it first.
		t.between = false
		if t.stepping && t.stepMode == engine.StepInstruction {
			return nil
		}
	}
	if t.stepping && t.retArmed && pc == t.retPC && t.vm.NumFrames() < t.stepDepth {
		// Back in the caller right after the call: a step that leaves a function ends here,
		// mid-line, with the returned value on the stack.
		t.returned = true
		return t.suspend(engine.Stop{Reason: engine.ReasonStep, Location: t.here(pc)})
	}
	if t.stepping && t.stepDone(li.Stmt) {
		return t.suspend(engine.Stop{Reason: engine.ReasonStep, Location: t.here(pc)})
	}
	return nil
}

// here is the location of a program pc, with its function's name. Locations are made
// once per pc and kept: a conditional breakpoint checks one on every hit.
func (t *Target) here(pc int) engine.Location {
	if pc >= len(t.prog.Code) {
		return t.location(pc, "")
	}
	if t.locs == nil {
		t.locs = make([]engine.Location, len(t.prog.Code))
	}
	if l := &t.locs[pc]; l.HasPC {
		return *l
	}
	t.locs[pc] = t.location(pc, funcName(t.prog.FuncAt(pc)))
	return t.locs[pc]
}

// stepDone reports whether the current step ends at this trap: by call depth, so that
// stepping over or out of a recursive call stops in the right activation. (A step that
// leaves the function usually ends earlier, at the return address: see armReturn.)
func (t *Target) stepDone(stmt bool) bool {
	switch t.stepMode {
	case engine.StepInstruction:
		return true
	case engine.StepInto:
		if f := t.stepFilter.Load(); stmt && f != nil && t.vm.NumFrames() > t.stepDepth {
			// inside a call the step entered: passed over when the callee is skipped
			if callee, ok := t.vm.Frame(t.vm.NumFrames() - t.stepDepth - 1); ok && (*f)(callee.Func.Name, callee.File) {
				return false
			}
		}
		return stmt
	case engine.StepOver:
		return stmt && t.vm.NumFrames() <= t.stepDepth
	case engine.StepOut:
		return stmt && t.vm.NumFrames() < t.stepDepth
	}
	return false
}

// Exception stops on an uncaught runtime error with its frames still there.
func (h hook) Exception(err *vm.Error) {
	t := h.t
	if t.termReq.Load() {
		return
	}
	t.inTrap = false
	loc := engine.Location{File: err.Loc.File, Line: err.Loc.Line, Col: err.Loc.Col, Func: err.Loc.Func, PC: uint64(err.Loc.PC), HasPC: true}
	_ = t.suspend(engine.Stop{Reason: engine.ReasonException, Location: loc, Text: err.Msg})
}

// OutOfCycles lets a console pace frames; a plain program gets here once it runs long
// (watchLongRun).
func (h hook) OutOfCycles() error {
	t := h.t
	if t.termReq.Load() {
		return ErrTerminated
	}
	if t.opts.OutOfCycles != nil {
		return t.opts.OutOfCycles(t.vm)
	}
	t.longRunning()
	return nil
}

// Suspend stops the program and serves inspections until a resume arrives. Console
// targets call it for their own stops (frame boundaries).
// The program is then between two instructions, not at a trap: an instruction step from
// there runs the next instruction before it stops.
func (t *Target) Suspend(stop engine.Stop) error {
	t.inTrap = false
	err := t.suspend(stop)
	t.between = true
	return err
}

func (t *Target) suspend(stop engine.Stop) error {
	t.stepping = false
	t.between = false
	t.frameStep.Store(false) // any stop ends a frame step

	t.refs = t.refs[:0]
	t.disarmReturn()
	if t.returned {
		t.returned = false
		if v, ok := t.vm.StackTop(); ok {
			rv := t.variable(t.retFunc, v)
			stop.ReturnValue = &rv
		}
	}
	if p := t.opts.Profiler; p != nil {
		p.Pause()
		defer p.Resume()
	}
	if t.opts.Annotate != nil {
		stop = annotated(t.opts.Annotate, stop)
	}
	t.noteIdle(stop)
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.h.Stopped(stop)
	for {
		c, ok := t.await()
		if !ok {
			return ErrTerminated
		}
		if c.fn != nil {
			c.fn()
			close(c.done)
			continue
		}
		if c.terminate {
			return ErrTerminated
		}
		t.refs = t.refs[:0]
		t.applyTraps()
		t.stepping = c.mode != engine.Continue
		t.stepMode = c.mode
		t.stepDepth = t.vm.NumFrames()
		t.armReturn()
		t.setTrapMode()
		t.watchLongRun()
		return nil
	}
}

// annotated is stop as annotate leaves it (a copy, so that only an annotated stop is
// moved to the heap for the function to change it).
func annotated(annotate func(*engine.Stop), stop engine.Stop) engine.Stop {
	annotate(&stop)
	return stop
}

// stackKey names the frames outermost first, "main;fib;fib", for the profiler. Keys are
// cached by depth and function, so a deep recursion does not rebuild them.
type stackKey struct {
	fn     any
	parent string
	key    string
}

func (t *Target) stackKey() string {
	n := t.vm.NumFrames()
	if len(t.stackKeys) < n {
		t.stackKeys = append(t.stackKeys, make([]stackKey, n-len(t.stackKeys))...)
	}
	prev := ""
	for d := 0; d < n; d++ {
		fi, _ := t.vm.Frame(n - 1 - d)
		e := &t.stackKeys[d]
		if e.key == "" || e.fn != any(fi.Func) || e.parent != prev {
			name := funcName(fi.Func)
			if d > 0 {
				name = prev + ";" + name
			}
			*e = stackKey{fn: fi.Func, parent: prev, key: name}
		}
		prev = e.key
	}
	return prev
}

// armReturn traps the return address of the innermost frame for a statement step, so that
// a step leaving the function stops in the caller right after the call returns, as gdb's
// finish does, instead of at the caller's next statement. A function called back by a
// builtin has no return address in Kite code: its step ends at the next statement.
func (t *Target) armReturn() {
	switch t.stepMode {
	case engine.StepInto, engine.StepOver, engine.StepOut:
	default:
		return
	}
	if !t.stepping {
		return
	}
	pc, ok := t.vm.ReturnAddress(0)
	if !ok {
		return
	}
	fi, _ := t.vm.Frame(0)
	t.retPC, t.retArmed, t.retFunc = pc, true, funcName(fi.Func)
	t.vm.SetBreak(pc, true)
}

// disarmReturn removes the trap armReturn set, keeping a breakpoint that is there.
func (t *Target) disarmReturn() {
	if t.retArmed {
		t.retArmed = false
		t.syncTrap(t.retPC)
	}
}

// SetStepFilter implements engine.StepFilterer: the functions a step into passes over.
func (t *Target) SetStepFilter(f engine.StepFilter) {
	if f == nil {
		t.stepFilter.Store(nil)
		return
	}
	t.stepFilter.Store(&f)
}

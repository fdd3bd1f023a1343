package gdbremote

// Target: the run loop of one resume request (continue, stop classification, stepping off traps).

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"github.com/polydbg/polydbg/engine"
)

// run executes one resume request until something must be reported.
func (t *Target) run(mode engine.ResumeMode) {
	var stop *engine.Stop
	var err error
	switch mode {
	case engine.Continue:
		stop, err = t.doContinue()
	case engine.StepInstruction:
		stop, err = t.doStepInstruction()
	case engine.StepInto, engine.StepOver:
		stop, err = t.doStepLine(mode == engine.StepOver)
	case engine.StepOut:
		stop, err = t.doStepOut()
	default:
		err = fmt.Errorf("gdbremote: resume mode %v is not supported", mode)
	}
	if errors.Is(err, errPaused) {
		stop, err = &engine.Stop{Reason: engine.ReasonPause}, nil
	}
	var hit *trapStopError
	if errors.As(err, &hit) {
		stop, err = hit.st, nil
		if hit.returned {
			t.popDummy() // the program where it was before the call
		}
	}
	if err != nil {
		var ex *exitedError
		if errors.As(err, &ex) {
			t.finish(ex.sr)
			return
		}
		t.mu.Lock()
		killing := t.killing
		t.mu.Unlock()
		if killing {
			t.abortRun(false, fmt.Errorf("gdbremote: the target is being terminated"))
			return
		}
		t.log.Warn("gdbremote: run failed", "err", err)
		if t.c.Err() != nil {
			// the connection is gone: the session is over
			t.flushOutput()
			t.abortRun(true, fmt.Errorf("gdbremote: %w", err))
			t.mu.Lock()
			h := t.h
			t.mu.Unlock()
			if h != nil {
				engine.ReportLost(h, fmt.Errorf("gdbremote: %w", err))
			}
			return
		}
		stop = &engine.Stop{Reason: engine.ReasonException, Text: err.Error()}
	}
	t.reportStop(*stop)
}

type exitedError struct{ sr StopReply }

func (e *exitedError) Error() string { return "exited" }

func (t *Target) finish(sr StopReply) {
	t.flushOutput()
	t.abortRun(true, fmt.Errorf("gdbremote: %w", errEndedAccess))
	t.mu.Lock()
	h := t.h
	killing := t.killing
	t.mu.Unlock()
	if h == nil || killing {
		return
	}
	if sr.Kind == StopExited {
		h.Exited(sr.Signal)
	} else { // as a shell reports a program a signal killed
		engine.ReportExit(h, 128+hostSignal(sr.Signal), SignalName(sr.Signal))
	}
}

func (t *Target) reportStop(st engine.Stop) {
	t.mu.Lock()
	killing := t.killing
	t.mu.Unlock()
	if killing {
		t.abortRun(false, fmt.Errorf("gdbremote: the target is being terminated"))
		return
	}
	// What the program printed before it stopped is in its output pipe by now: its lines
	// come before the stop, as on gdb's terminal (they came after it at times: another
	// channel). A line without its end yet stays held back until its end or the program's.
	if t.stub != nil {
		t.stub.DrainOutput()
	}
	t.leaveDyingThread(&st)
	if !st.Location.HasPC {
		if pc, err := t.pc(); err == nil {
			st.Location = t.location(pc)
		}
	}
	t.notePark(st.Location.PC)
	t.settleInlines(&st)
	if st.ThreadID == 0 {
		st.ThreadID = t.SelectedThread()
	}
	t.stopRunning()
	t.mu.Lock()
	h := t.h
	t.mu.Unlock()
	if h != nil {
		h.Stopped(st)
	}
}

// errPaused ends a run loop that was asked to pause between two packets.
var errPaused = errors.New("paused")

// resumeWait sends one resume and waits for the stop, doing the queued work (which
// interrupts the target) and resuming again after it. A continue ("c") and a range step
// ("r") may be interrupted; a single step ("s") is short and is not, so that an interrupt
// never cuts it short.
func (t *Target) resumeWait(action string, start, end uint64) (StopReply, error) {
	return t.resumeWaitCatching(action, start, end, false)
}

// resumeWaitCatching is resumeWait that, when catching, stops at the system calls caught
// (catch syscall): the continue of the run loop does; steps, a step's own continues and
// calls of the program's functions do not.
func (t *Target) resumeWaitCatching(action string, start, end uint64, catching bool) (StopReply, error) {
	interruptible := action != "s" // ("s+" may wait long: interruptible)
	for {
		t.mu.Lock()
		ops := t.takePending()
		pausing := t.pausing
		t.mu.Unlock()
		if len(ops) > 0 {
			runPending(ops)
			continue // more may have come meanwhile
		}
		if pausing {
			return StopReply{}, errPaused
		}
		t.mu.Lock()
		t.c.CatchForks(catching && t.catchForks, catching && t.catchVforks)
		t.mu.Unlock()
		if err := t.syncSyscallCatch(catching); err != nil {
			return StopReply{}, err
		}
		var err error
		if action == "r" {
			err = t.c.StepRange(t.ctx, t.threadID, start, end)
		} else if action == "s" {
			err = t.c.Resume(t.ctx, action, t.stepThread()) // the others stay stopped
		} else if action == "s+" {
			err = t.c.StepOthersRunning(t.ctx, t.stepThread()) // (blockedStep)
		} else {
			err = t.c.Resume(t.ctx, action, "")
		}
		if err != nil {
			return StopReply{}, err
		}
		// A pause or work that came while the resume was being sent found nothing to
		// interrupt: interrupt for it now.
		t.mu.Lock()
		t.waiting, t.stepping = interruptible, !interruptible
		intr := (t.pausing || interruptible && len(t.pending) > 0) && t.wantInterrupt(t.pausing)
		t.mu.Unlock()
		if intr {
			t.c.Interrupt()
		}
		sr, err := t.waitResumed(interruptible)
		t.mu.Lock()
		t.waiting, t.stepping, t.intrSent = false, false, false
		t.mu.Unlock()
		if err != nil {
			return sr, err
		}
		if sr.Kind == StopThreadExit {
			return sr, t.steppedThreadExited()
		}
		t.newStop(sr)
		if sr.Exited() {
			return sr, &exitedError{sr}
		}
		if sr.Reason == "exec" {
			return sr, t.followExec(sr)
		}
		if err := t.dummyReturn(sr); err != nil {
			return sr, err // a function called from an expression returned
		}
		if action == "c" {
			handled, other, err := t.libraryEvent(sr, catching)
			if err != nil {
				return sr, err
			}
			if other != nil {
				return *other, nil
			}
			if handled {
				continue // the same continue goes on
			}
		}
		t.mu.Lock()
		ops = t.takePending()
		t.mu.Unlock()
		if len(ops) == 0 {
			return sr, nil
		}
		runPending(ops)
		// the interrupt was ours: go on unless something else stopped the target
		pc, _ := t.pc()
		t.mu.Lock()
		atTrap := t.traps[pc] != nil
		pausing = t.pausing
		t.mu.Unlock()
		if pausing || atTrap || sr.Signal != int(syscall.SIGINT) || action != "c" {
			return sr, nil
		}
	}
}

// waitResumed waits for the stop of a resume. A continue may run for ever; a single step
// that has not stopped within stepTimeout (a WFI with interrupts masked, a blocking system
// call) is interrupted, and the step reports where the core is.
func (t *Target) waitResumed(interruptible bool) (StopReply, error) {
	if interruptible {
		return t.c.Wait(t.ctx)
	}
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	sr, err := t.c.Wait(ctx)
	cancel()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		return sr, err
	}
	t.mu.Lock()
	intr := !t.intrSent
	t.intrSent = true
	t.mu.Unlock()
	if intr {
		t.log.Warn("gdbremote: a single step did not stop; interrupting it")
		t.c.Interrupt()
	}
	return t.c.Wait(t.ctx)
}

// stepOff steps one instruction, over the breakpoint at the pc if there is one.
func (t *Target) stepOff() (StopReply, error) {
	pc, err := t.pc()
	if err != nil {
		return StopReply{}, err
	}
	t.mu.Lock()
	tr := t.traps[pc]
	if tr == nil && pc == t.libEvent && pc != 0 {
		tr = &trap{kind: SoftwareBreak} // the library event's (solib.go): stopped at by catch load
	}
	t.mu.Unlock()
	var sr StopReply
	if tr != nil && !t.c.keepsBreakpointOnStep() {
		sr, err = t.c.StepOver(t.ctx, t.stepThread(), tr.kind, pc, t.bpLen, tr.conds...)
		if err == nil {
			t.newStop(sr)
			if sr.Exited() {
				return sr, &exitedError{sr}
			}
		}
		return sr, err
	}
	sr, err = t.resumeWait("s", 0, 0)
	for try := 0; tr != nil && err == nil && try < maxStepRetries && sr.Kind == StopSignal && sr.Signal == sigTRAP; try++ {
		// QEMU steps over its own breakpoint, but now and then reports a step that ran
		// nothing (an exception was due): step again, or the continue that follows stops at
		// this breakpoint without progress.
		if now, perr := t.pc(); perr != nil || now != pc {
			break
		}
		sr, err = t.resumeWait("s", 0, 0)
	}
	return sr, err
}

// doContinue runs until a trap the handler wants to stop at, a pause or a signal.
func (t *Target) doContinue() (*engine.Stop, error) {
	first := true
	for {
		if first {
			first = false
			if st, err := t.unparkOthers(); st != nil || err != nil {
				return st, err
			}
			pc, err := t.pc()
			if err != nil {
				return nil, err
			}
			t.mu.Lock()
			atTrap := t.traps[pc] != nil || pc != 0 && pc == t.libEvent
			t.mu.Unlock()
			if atTrap {
				if _, err := t.stepOff(); err != nil {
					return nil, err
				}
				if st := t.checkStopAfterStep(); st != nil {
					return st, nil
				}
			}
		}
		sr, err := t.resumeWaitCatching("c", 0, 0, true)
		if err != nil {
			return nil, err
		}
		if st := t.classify(sr); st != nil {
			return st, nil
		}
		// a trap whose conditions are false: step off it and go on
		if _, err := t.stepOff(); err != nil {
			return nil, err
		}
		if st := t.checkStopAfterStep(); st != nil {
			return st, nil
		}
	}
}

// checkStopAfterStep handles what may stop the target during a step-off: a pause, or
// arriving at another trap.
func (t *Target) checkStopAfterStep() *engine.Stop {
	if st := t.pauseStop(); st != nil {
		return st
	}
	sr := t.lastStopReply()
	if sr.Signal != int(syscall.SIGTRAP) && sr.Signal != 0 {
		return t.classify(sr)
	}
	if st := t.watchStop(sr); st != nil { // the instruction stepped off a trap hit one
		return st
	}
	pc, err := t.pc()
	if err != nil {
		return nil
	}
	t.mu.Lock()
	atTrap := t.traps[pc] != nil
	h := t.h
	t.mu.Unlock()
	if atTrap && h != nil {
		if st := t.trapHit(h, pc); st != nil {
			return st
		}
	}
	return nil
}

func (t *Target) lastStopReply() StopReply {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastStop
}

// classify turns a stop reply during continue into a stop to report, or nil to go on.
func (t *Target) classify(sr StopReply) *engine.Stop {
	t.mu.Lock()
	pausing := t.pausing
	h := t.h
	t.mu.Unlock()
	pc, err := t.pc()
	if err != nil {
		return &engine.Stop{Reason: engine.ReasonException, Text: err.Error()}
	}
	if st := t.syscallStop(sr); st != nil {
		return st
	}
	if st := forkStop(sr); st != nil {
		return st
	}
	if st := t.watchStop(sr); st != nil {
		return st
	}
	t.mu.Lock()
	atTrap := t.traps[pc] != nil
	t.mu.Unlock()
	if isWatchHit(sr) && !atTrap && !pausing {
		return nil // a write that kept the value: go on
	}
	// An interrupt (ours, for queued work) that lands just before a breakpoint's
	// instruction stops there with SIGINT: the breakpoint is reached all the same.
	if atTrap && (sr.Signal == int(syscall.SIGTRAP) || sr.Signal == 0 || sr.Signal == int(syscall.SIGINT) && !pausing) {
		if h == nil {
			return &engine.Stop{Reason: engine.ReasonBreakpoint}
		}
		if st := t.trapHit(h, pc); st != nil {
			return st
		}
		if pausing {
			return &engine.Stop{Reason: engine.ReasonPause}
		}
		return nil
	}
	if pausing {
		return &engine.Stop{Reason: engine.ReasonPause}
	}
	if sr.Reason == "swbreak" || sr.Reason == "hwbreak" {
		// A breakpoint deleted after this thread hit it, while another thread's stop was
		// reported: not a stop any more, as gdb lets such a thread go on.
		return nil
	}
	if sr.Signal == int(syscall.SIGTRAP) || sr.Signal == int(syscall.SIGINT) {
		return &engine.Stop{Reason: engine.ReasonPause}
	}
	return &engine.Stop{Reason: engine.ReasonException, Text: "signal " + engine.SignalText(SignalName(sr.Signal)), Signal: SignalName(sr.Signal)}
}

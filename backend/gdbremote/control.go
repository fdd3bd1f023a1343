package gdbremote

// Target: the engine's run control (start, resume, pause, terminate, close, restart).

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// Start implements engine.Target. The stub already holds the program stopped (gdbserver:
// before the dynamic loader; QEMU: at reset): the target first runs to where the program
// starts (the ELF entry point; on Cortex-M the reset vector, where QEMU already is, of the
// ELF's vector table or of the one VTOR points at: vtor.go). A program whose start is not
// code fails at once, saying so.
func (t *Target) Start(h engine.Handler, stopOnEntry bool) error {
	t.mu.Lock()
	t.h = h
	t.mu.Unlock()
	t.sym.SetFileAddresses(false) // (the program's own from now on)
	if t.core != nil {
		t.startCore()
		return nil
	}
	go t.watchHangup()
	t.armLibraryEventsAtStart()
	if err := t.runToStart(); err != nil {
		if ts := (*trapStopError)(nil); errors.As(err, &ts) { // a library caught before the entry point
			t.mu.Lock()
			t.entryPending = true // the rest of the start is the next resume's (finishStart)
			t.mu.Unlock()
			t.reportStop(*ts.st)
			return nil
		}
		return err
	}
	if t.core == nil {
		t.librariesLoaded(h) // at the entry point the dynamic linker has loaded them
	}
	if stopOnEntry {
		t.reportStop(engine.Stop{Reason: engine.ReasonEntry})
		return nil
	}
	if st := t.trapAtStart(h); st != nil { // a breakpoint where the program starts (break _start)
		t.reportStop(*st)
		return nil
	}
	return t.Resume(engine.Continue)
}

// trapAtStart is the stop a breakpoint at the program's first instruction makes, which the
// run to it reached before the program was the session's; nil when there is none there (or
// its condition says go on).
func (t *Target) trapAtStart(h engine.Handler) *engine.Stop {
	pc, err := t.pc()
	if err != nil {
		return nil
	}
	t.mu.Lock()
	tr := t.traps[pc]
	t.mu.Unlock()
	if tr == nil {
		return nil
	}
	return t.trapHit(h, pc)
}

// entryTimeout bounds how long runTo waits for the program to reach its entry point.
const entryTimeout = 30 * time.Second

// runTo runs synchronously to addr with a temporary breakpoint (before Start reports).
func (t *Target) runTo(addr uint64) error {
	ctx := t.ctx
	had := t.traps[addr] != nil
	if !had {
		if _, err := t.c.SetBreakpoint(ctx, addr, t.bpLen); err != nil {
			return err
		}
	}
	var sr StopReply
	var err error
	if t.atLibraryEvent(t.lastStopReply()) { // stopped there by a catch load: off it first
		if other, err := t.stepOffLibraryEvent(); err != nil {
			return err
		} else if other != nil {
			return stoppedBeforeEntry(*other)
		}
	}
	for {
		if err := t.c.Continue(ctx); err != nil {
			return err
		}
		wctx, cancel := context.WithTimeout(ctx, entryTimeout)
		sr, err = t.c.Wait(wctx)
		cancel()
		if err != nil {
			break
		}
		t.newStop(sr) // (what atLibraryEvent reads the pc of)
		if !t.atLibraryEvent(sr) {
			break
		}
		// the dynamic linker's event, armed before the start for catch load (solib.go)
		if st, err := t.startupLibraryEvent(); st != nil || err != nil {
			if !had {
				t.c.ClearBreakpoint(ctx, SoftwareBreak, addr, t.bpLen)
			}
			if err != nil {
				return err
			}
			return &trapStopError{st: st}
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// it never gets there: stop it where it is
		t.c.Interrupt()
		wctx, cancel := context.WithTimeout(ctx, stepTimeout)
		sr, err = t.c.Wait(wctx)
		cancel()
		if err == nil {
			err = fmt.Errorf("gdbremote: the program did not reach %#x within %v", addr, entryTimeout)
		}
	}
	t.newStop(sr)
	if !had {
		t.c.ClearBreakpoint(ctx, SoftwareBreak, addr, t.bpLen)
	}
	if err != nil {
		return err
	}
	if sr.Exited() {
		return fmt.Errorf("gdbremote: the program ended before its entry point")
	}
	return nil
}

// Resume implements engine.Target.
func (t *Target) Resume(mode engine.ResumeMode) error {
	if t.core != nil {
		return ErrPostMortem
	}
	if mode == engine.Continue { // after starti: what a start does at the entry, first (it sets traps: before stopMu)
		if st, err := t.finishStart(); err != nil || st != nil {
			if st != nil {
				go t.reportStop(*st) // as if the continue had reached it
			}
			return err
		}
	}
	t.stopMu.Lock() // not in the middle of work on the stopped target
	defer t.stopMu.Unlock()
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return engine.ErrEnded
	}
	if t.running {
		t.mu.Unlock()
		return engine.ErrRunning
	}
	t.mu.Unlock()
	if mode == engine.StepOut {
		// Said at once, as gdb's finish does, rather than as a stop that did not happen.
		if _, err := t.callerFrames(); err != nil {
			return fmt.Errorf("gdbremote: cannot step out: %w", err)
		}
	}
	t.mu.Lock()
	t.running = true
	t.pausing = false
	done := make(chan struct{})
	t.runDone = done
	t.mu.Unlock()
	go func() {
		defer close(done)
		t.run(mode)
	}()
	return nil
}

// Pause implements engine.Target.
func (t *Target) Pause() error {
	t.mu.Lock()
	if !t.running {
		t.mu.Unlock()
		return nil
	}
	t.pausing = true
	defer t.mu.Unlock()
	if !t.wantInterrupt(true) {
		return nil // not waiting for a stop: the run loop sees pausing at its next step
	}
	if err := t.c.Interrupt(); err != nil && !errors.Is(err, ErrNotRunning) { // under t.mu: see wantInterrupt
		return err
	}
	return nil
}

// Terminate implements engine.Target.
func (t *Target) Terminate() error {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return nil
	}
	t.killing = true
	running := t.running
	done := t.runDone
	t.mu.Unlock()
	if running {
		t.c.Interrupt()
		if done != nil {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}
	}
	if t.stub != nil && t.sym.Arch.Machine == elf.EM_ARM {
		// QEMU: 'k' ends the emulator
		t.c.Kill(t.ctx)
	} else {
		t.c.Kill(t.ctx)
	}
	t.mu.Lock()
	t.ended = true
	h := t.h
	t.mu.Unlock()
	if h != nil {
		h.Terminated()
	}
	return nil
}

// closeTimeout bounds how long Close waits for the run loop to end.
const closeTimeout = 10 * time.Second

// Close implements engine.Target.
func (t *Target) Close() error {
	t.mu.Lock()
	letGo := t.attached && !t.ended && !t.running
	t.mu.Unlock()
	if letGo { // its breakpoints out and the process on its way, not killed with gdbserver
		if err := t.Detach(); err != nil {
			t.log.Warn("gdbremote: detaching on close", "err", err)
		}
	}
	t.stop()
	t.c.Close()
	if t.stub != nil {
		t.stub.Stop()
	}
	if t.core != nil && t.core.Close != nil {
		t.core.Close()
	}
	t.mu.Lock()
	done := t.runDone
	t.mu.Unlock()
	if done != nil {
		// the connection is closed: the run loop ends at its next exchange
		select {
		case <-done:
		case <-time.After(closeTimeout):
			t.log.Warn("gdbremote: the run loop did not end on close")
			return nil // it may still use the symbols
		}
	}
	return t.sym.Close()
}

// Restart restarts the program (gdbserver: vRun in extended mode; QEMU: system_reset) and
// runs to its entry point; the target is then stopped there.
func (t *Target) Restart() error {
	if t.attached {
		return errors.New("the program was attached to, not started by polydbg: it cannot be started again")
	}
	if t.core != nil {
		return ErrPostMortem
	}
	if err := t.needStopped(); err != nil {
		t.Pause()
		deadline := time.Now().Add(5 * time.Second)
		for t.needStopped() != nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	sr, err := t.c.Restart(t.ctx)
	if err != nil {
		return err
	}
	t.newStop(sr)
	if t.nptl && t.askReportEvents(t.ctx) != nil {
		t.log.Warn("gdbremote: no live thread events for the restarted program")
	}
	if t.sym.IsPIE() {
		if aux, err := t.c.Auxv(t.ctx, t.sym.Arch.PtrSize, t.sym.Arch.ByteOrder); err == nil {
			if e, ok := aux[9]; ok && e-t.sym.ELF.Entry != t.sym.Bias {
				return fmt.Errorf("gdbremote: the program moved on restart; breakpoints are stale")
			}
		}
	}
	// breakpoints of the old process are gone with it (gdbserver); set them again
	t.mu.Lock()
	traps := make(map[uint64]*trap, len(t.traps))
	for pc, tr := range t.traps {
		traps[pc] = tr
	}
	t.mu.Unlock()
	for pc, tr := range traps {
		t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen)
		if k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen, tr.conds...); err == nil {
			tr.kind = k
		}
	}
	return t.runToStart()
}

// runToStart runs the program from where the stub holds it to where it starts (Start),
// and arms the live thread events there (libc is loaded).
func (t *Target) runToStart() error {
	t.notePID()
	t.forgetThreads()
	entry, err := t.startAddress()
	if err != nil {
		return fmt.Errorf("gdbremote: cannot start the program: %w", err)
	}
	pc, err := t.pc()
	if err != nil {
		return err
	}
	if pc != entry && !t.attached { // an attached program is debugged where it was found
		if err := t.runTo(entry); err != nil {
			return err
		}
	}
	t.armThreadEvents()
	return nil
}

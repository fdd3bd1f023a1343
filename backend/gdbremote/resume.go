package gdbremote

// Client: run control (halt reason, resume, step, interrupt, wait for the stop, kill, restart).

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// HaltReason asks why the target stopped ('?').
func (c *Client) HaltReason(ctx context.Context) (StopReply, error) {
	r, err := c.Exchange(ctx, "?")
	if err != nil {
		return StopReply{}, err
	}
	return c.parseStop(r)
}

// Resume actions for Resume.
const (
	ActContinue = "c"
	ActStep     = "s"
)

// Continue resumes the target; Wait reports the stop.
func (c *Client) Continue(ctx context.Context) error { return c.Resume(ctx, ActContinue, "") }

// Step single-steps one instruction; Wait reports the stop.
func (c *Client) Step(ctx context.Context) error { return c.Resume(ctx, ActStep, "") }

// Resume sends a resume action ("c" or "s") for thread (empty: the current one), using
// vCont when the stub offered that action and the plain packets otherwise.
func (c *Client) Resume(ctx context.Context, action, thread string) error {
	return c.resume(ctx, action, thread, 0, 0, false)
}

// StepOthersRunning single-steps thread while the other threads run (vCont;s:T;c, gdb's
// step without scheduler locking); ErrUnsupported from a stub without vCont's s and c.
func (c *Client) StepOthersRunning(ctx context.Context, thread string) error {
	if !c.vcont["s"] || !c.vcont["c"] || thread == "" {
		return fmt.Errorf("%w: vCont;s:T;c", ErrUnsupported)
	}
	return c.resume(ctx, "s", thread, 0, 0, true)
}

// StepRange steps thread while its pc stays in [start, end) (vCont;r, where the stub offers
// it; ErrUnsupported otherwise). Wait reports the stop.
func (c *Client) StepRange(ctx context.Context, thread string, start, end uint64) error {
	if !c.vcont["r"] {
		return fmt.Errorf("%w: vCont;r", ErrUnsupported)
	}
	return c.resume(ctx, "r", thread, start, end, false)
}

func (c *Client) resume(ctx context.Context, action, thread string, start, end uint64, othersRun bool) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.running.Load() {
		return ErrRunning
	}
	ids, err := c.settleFork(c.heldExchange(ctx), true) // a caught fork's child
	if err != nil {
		return err
	}
	if to, ok := ids[thread]; ok {
		thread = to
	}
	var cmd string
	if c.vcont[action] {
		cmd = "vCont;" + action
		if action == "r" {
			cmd += fmt.Sprintf("%x,%x", start, end)
		}
		if thread != "" {
			cmd += ":" + thread
		}
		if othersRun {
			cmd += ";c"
		}
	} else {
		if thread != "" {
			c.cmu.Unlock()
			err := c.expectOK(ctx, "Hc"+c.qualify(thread))
			c.cmu.Lock()
			if err != nil {
				return err
			}
		}
		cmd = action
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	c.running.Store(true)
	c.intrRun.Store(false)
	c.lastResume = []byte(c.forStub(cmd)) // sent again after a thread event (threadevents.go)
	if withSig, ok := c.withSignal(cmd, c.pendingSig); ok {
		cmd, c.pendingSig = withSig, pendingSignal{}
	}
	cmd = c.forStub(cmd)
	if err := c.send(ctx, []byte(cmd)); err != nil {
		c.running.Store(false)
		return err
	}
	return nil
}

// Interrupt asks a running target to stop (the 0x03 byte). Wait reports the stop.
func (c *Client) Interrupt() error {
	if !c.running.Load() {
		return ErrNotRunning
	}
	c.stats.intr.Add(1)
	c.intrRun.Store(true)
	return c.writeRaw([]byte{0x03})
}

// Wait waits for the stop reply of a resumed target. Output ("O" packets) goes to
// Options.Output. When ctx ends first the target keeps running and Wait may be called again;
// when the connection ends, Wait returns its error.
func (c *Client) Wait(ctx context.Context) (StopReply, error) {
	if !c.running.Load() {
		return StopReply{}, ErrNotRunning
	}
	for {
		p, err := c.recv(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.running.Store(false)
			}
			return StopReply{}, err
		}
		if isOutput(p) {
			c.output(p[1:])
			continue
		}
		sr, err := c.parseStop(string(p))
		if err != nil {
			c.fail(err)
			c.running.Store(false)
			return sr, err
		}
		if sr.Exited() { // the program's end: a vfork's parent held no longer shares its memory
			c.cmu.Lock()
			err := c.releaseVforkParent(c.heldExchange(ctx), "exit")
			c.cmu.Unlock()
			if err != nil {
				c.log.Warn("gdbremote: the parent of a vfork", "err", err)
			}
		}
		if handled, err := c.forkStop(ctx, sr); err != nil {
			c.running.Store(false)
			return sr, err
		} else if handled {
			continue // the child let go, the program resumed as it was
		}
		if c.thr.fn != nil {
			next, handled, err := c.threadEventStop(ctx, sr)
			if err != nil {
				c.running.Store(false)
				return next, err
			}
			if handled {
				continue // resumed as it was
			}
			sr = next
		}
		c.cmu.Lock()
		if c.staleInterrupt(sr) { // not this run's: resumed as it was
			cmd := c.lastResume
			c.cmu.Unlock()
			if err := c.send(ctx, cmd); err != nil {
				c.running.Store(false)
				return sr, err
			}
			continue
		}
		cmd, pass := c.passQuiet(sr)
		if !pass && sr.Kind == StopSignal && c.passed(sr.Signal) {
			c.pendingSig = pendingSignal{sr.Signal, sr.Thread} // delivered when the program resumes
		}
		c.cmu.Unlock()
		if pass { // a quiet signal (SIGCHLD): passed on at once, the program runs on
			if err := c.send(ctx, []byte(cmd)); err != nil {
				c.running.Store(false)
				return sr, err
			}
			continue
		}
		if sr.Kind == StopFileIO {
			// File-I/O requests are not supported: tell the target the call failed (ENOSYS).
			c.log.Debug("gdbremote: File-I/O request refused", "req", sr.Raw)
			if err := c.send(ctx, []byte("F-1,58")); err != nil {
				c.running.Store(false)
				return sr, err
			}
			continue
		}
		c.running.Store(false)
		return sr, nil
	}
}

// staleInterrupt reports whether sr is the SIGINT of an interrupt sent during an earlier
// run, which the target stopped for a reason of its own before the interrupt reached it.
// gdbserver turns the interrupt byte into a SIGINT for the program; when a breakpoint stops
// it first, that signal stays pending and stops the next run at once, where it began: a
// finish under load ended before the function returned (sessions 5 and 6). Such a stop is
// not reported; the run goes on. A stub that drops the byte (QEMU, stopped) leaves nothing:
// the next continue of every thread that stops otherwise forgets it. c.cmu held.
func (c *Client) staleInterrupt(sr StopReply) bool {
	sigint := sr.Kind == StopSignal && sr.Signal == sigINT && sr.Reason == ""
	switch {
	case c.intrRun.Load():
		c.intrStale = !sigint // this run's interrupt: answered, or crossed by this stop
	case sigint && c.intrStale:
		c.intrStale = false
		c.log.Debug("gdbremote: the SIGINT of an earlier interrupt ignored", "stop", sr.Raw)
		return true
	case sigint || !strings.Contains(string(c.lastResume), ":"):
		c.intrStale = false // a continue of all threads would have met it
	}
	return false
}

// Detach detaches from the target and lets it run on.
func (c *Client) Detach(ctx context.Context) error {
	c.dropSignal()
	cmd := "D"
	if c.Supports("multiprocess") {
		cmd = "D;" + c.pid(ctx) // gdbserver refuses a bare D with the multiprocess extensions
	}
	return c.expectOK(ctx, cmd)
}

// holdSignal takes the signal waiting to be delivered, for putSignal to put back: a call of
// the program's function neither delivers the signal the program stopped with nor leaves
// one that stopped the call to be delivered.
func (c *Client) holdSignal() pendingSignal {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	held := c.pendingSig
	c.pendingSig = pendingSignal{}
	return held
}

// putSignal makes held (from holdSignal) the signal waiting to be delivered again.
func (c *Client) putSignal(held pendingSignal) {
	c.cmu.Lock()
	c.pendingSig = held
	c.cmu.Unlock()
}

// dropSignal forgets a signal waiting to be delivered: the program it was for ends or goes.
func (c *Client) dropSignal() {
	c.cmu.Lock()
	c.pendingSig = pendingSignal{}
	c.cmu.Unlock()
}

// Kill kills the target. The stub may close the connection, which is not an error here.
func (c *Client) Kill(ctx context.Context) error {
	if c.running.Load() {
		return ErrRunning
	}
	c.dropSignal()
	c.dropHeldChild(ctx)
	if c.extended {
		_, err := c.Exchange(ctx, "vKill;"+c.pid(ctx))
		return err
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if err := c.send(ctx, []byte("k")); err != nil {
		return nil
	}
	// 'k' has no reply in the original protocol; gdbserver may answer with X09.
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	c.recv(short)
	return nil
}

// Restart restarts the program: in extended mode with vRun (gdbserver: the last program and
// arguments), otherwise with the monitor command "system_reset" (QEMU). The target is then
// stopped at its entry; the returned stop reply says where.
func (c *Client) Restart(ctx context.Context) (StopReply, error) {
	c.dropSignal()
	c.dropHeldChild(ctx)
	if c.extended {
		c.Exchange(ctx, "vKill;"+c.pid(ctx))
		r, err := c.Exchange(ctx, "vRun;")
		if err != nil {
			return StopReply{}, err
		}
		if err := replyError("vRun", r); err != nil {
			return StopReply{}, err
		}
		c.newProcess()
		return c.parseStop(r)
	}
	if _, err := c.Monitor(ctx, "system_reset"); err != nil {
		return StopReply{}, fmt.Errorf("gdbremote: restart: %w", err)
	}
	return c.HaltReason(ctx)
}

// pid is the process id (hex) the stub reports for its current thread, "1" when it reports
// none (the process gdb's packets name then).
func (c *Client) pid(ctx context.Context) string {
	if id := c.currentPID(ctx); id != "" {
		return id
	}
	return "1"
}

// currentPID is the process id (hex) of qC's answer, "" when the stub gives none.
func (c *Client) currentPID(ctx context.Context) string {
	r, err := c.Exchange(ctx, "qC")
	if err != nil || !strings.HasPrefix(r, "QC") {
		return ""
	}
	id := r[2:]
	if p, ok := strings.CutPrefix(id, "p"); ok {
		id, _, _ = strings.Cut(p, ".")
	}
	return id
}

// PC reads the program counter of the current thread: from the stop reply's expedited
// registers when it has them, else with 'p' (or 'g'). It needs the target description.
func (c *Client) PC(ctx context.Context, sr *StopReply) (uint64, error) {
	if c.desc == nil {
		return 0, fmt.Errorf("gdbremote: no target description")
	}
	r, ok := c.desc.PCReg()
	if !ok {
		return 0, fmt.Errorf("gdbremote: the target description names no pc")
	}
	if sr != nil {
		if b, ok := sr.Regs[r.Num]; ok {
			return Uint(b, c.desc.Order()), nil
		}
	}
	b, err := c.ReadRegister(ctx, r.Num)
	if err != nil {
		return 0, err
	}
	return Uint(b, c.desc.Order()), nil
}

// keepsBreakpointOnStep reports whether the stub is known to step over its own breakpoint
// at the pc (QEMU), so that a plain step is a step-over. Call it from the goroutine that
// steps.
func (c *Client) keepsBreakpointOnStep() bool { return c.stepOver == stepOverKeeps }

// maxStepRetries bounds the steps StepOver tries again when one did not move the pc.
const maxStepRetries = 3

// StepOver single-steps the current thread off a software breakpoint at addr (set with
// SetBreakpoint, which returned bk). Stubs differ: QEMU steps over its breakpoints, while
// gdbserver would hit the breakpoint again. The first call finds out which kind of stub
// this is; afterwards a step costs one packet on the first kind and three (z, s, Z) on the
// second. It returns the stop reply of the step.
func (c *Client) StepOver(ctx context.Context, thread string, bk BreakKind, addr uint64, kind int, conds ...[]byte) (StopReply, error) {
	if c.stepOver == stepOverUnknown || c.stepOver == stepOverKeeps {
		for try := 0; ; try++ {
			if err := c.Resume(ctx, ActStep, thread); err != nil {
				return StopReply{}, err
			}
			sr, err := c.Wait(ctx)
			if err != nil || sr.Kind != StopSignal || sr.Signal != sigTRAP {
				return sr, err
			}
			pc, err := c.PC(ctx, &sr)
			if err != nil {
				return sr, err
			}
			if pc != addr {
				c.stepOver = stepOverKeeps
				return sr, nil
			}
			if c.stepOver == stepOverKeeps && try < maxStepRetries {
				// Now and then QEMU reports a single step that ran nothing (an exception
				// was due): step again, or the next continue stops at the same breakpoint
				// (the "no progress" flake of TestTargetQEMU and TestQEMU).
				continue
			}
			if c.stepOver == stepOverKeeps {
				return sr, nil // an instruction that branches to itself
			}
			break
		}
		c.stepOver = stepOverRemoves
	}
	if err := c.ClearBreakpoint(ctx, bk, addr, kind); err != nil {
		return StopReply{}, err
	}
	if err := c.Resume(ctx, ActStep, thread); err != nil {
		return StopReply{}, err
	}
	sr, err := c.Wait(ctx)
	if err != nil {
		return sr, err
	}
	if c.Supports("ConditionalBreakpoints") {
		_, err = c.SetBreakpoint(ctx, addr, kind, conds...)
	} else {
		_, err = c.SetBreakpoint(ctx, addr, kind)
	}
	return sr, err
}

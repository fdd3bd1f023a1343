package gdbremote

// Target: work on a stopped target requested while it runs (trap changes, memory access
// in a brief halt), and the interrupts that bring the run loop to it.

import (
	"fmt"
	"sync/atomic"
	"time"
)

// pendingTimeout bounds how long whileStopped waits for the run loop to do its work.
const pendingTimeout = 10 * time.Second

// pendingOp is one piece of work queued for the run loop.
type pendingOp struct {
	fn        func() error
	done      chan error // buffered: the run loop never blocks on it
	abandoned atomic.Bool
}

// whileStopped runs fn now if the target is stopped (no resume can begin meanwhile), or
// queues it for the run loop and interrupts the target, which does it and resumes.
func (t *Target) whileStopped(fn func() error) error { return t.doStopped(fn, true) }

// doStopped is whileStopped; without halt, fn is not run on a running target, which is
// left alone, and the answer is ErrRunning.
func (t *Target) doStopped(fn func() error, halt bool) error {
	t.stopMu.Lock()
	t.mu.Lock()
	if t.ended && !t.running {
		t.mu.Unlock()
		t.stopMu.Unlock()
		return fmt.Errorf("gdbremote: %w", errEndedAccess)
	}
	if !t.running {
		t.mu.Unlock()
		defer t.stopMu.Unlock()
		return fn()
	}
	t.stopMu.Unlock()
	if !halt {
		t.mu.Unlock()
		return ErrRunning
	}
	op := &pendingOp{fn: fn, done: make(chan error, 1)}
	t.pending = append(t.pending, op)
	select {
	case t.opQueued <- struct{}{}: // for a run loop serving work while stopped (serveWhile)
	default:
	}
	if t.wantInterrupt(false) {
		t.c.Interrupt() // under t.mu: see wantInterrupt
	}
	t.mu.Unlock()
	timer := time.NewTimer(pendingTimeout)
	defer timer.Stop()
	select {
	case err := <-op.done:
		return err
	case <-timer.C:
		op.abandoned.Store(true)
		return fmt.Errorf("gdbremote: the target did not stop within %v to let this be done", pendingTimeout)
	}
}

// wantInterrupt says whether the caller must interrupt the target now: the run loop waits
// for an interruptible stop (or, for a pause, a single step) and no interrupt was sent for
// it yet. One interrupt per wait: a second one could arrive after the run loop resumed
// again and stop the target for no reason (QEMU's stub stops on any byte while the guest
// runs). Queued work never cuts a single step short.
//
// A caller from another goroutine sends the interrupt before it releases t.mu: the run
// loop takes t.mu after each stop before it resumes again, so the byte reaches the stub
// while the target is still stopped (where it is ignored), never in the next run. Sent
// after the unlock, a goroutine descheduled in between (a loaded machine) interrupted a
// later continue, and a finish ended where it began (the finish flakes of sessions 5 and
// 6). t.mu held.
func (t *Target) wantInterrupt(pause bool) bool {
	if (t.waiting || pause && t.stepping) && !t.intrSent {
		t.intrSent = true
		return true
	}
	return false
}

// takePending takes the queued work. t.mu held.
func (t *Target) takePending() []*pendingOp {
	p := t.pending
	t.pending = nil
	return p
}

// runPending does queued work (in the run loop, with the target stopped).
func runPending(ops []*pendingOp) {
	for _, op := range ops {
		if op.abandoned.Load() {
			op.done <- fmt.Errorf("abandoned")
			continue
		}
		op.done <- op.fn()
	}
}

// failPending answers queued work that can no longer be done.
func failPending(ops []*pendingOp, err error) {
	for _, op := range ops {
		op.done <- err
	}
}

// stopRunning ends a run: the queued work is done, and the target counts as stopped from
// the moment the queue is empty (so no work is left behind for a run loop that is gone).
func (t *Target) stopRunning() {
	for {
		t.mu.Lock()
		ops := t.takePending()
		if len(ops) == 0 {
			t.running = false
			t.waiting, t.stepping, t.intrSent = false, false, false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		runPending(ops)
	}
}

// abortRun ends a run whose target is gone: queued work fails.
func (t *Target) abortRun(ended bool, err error) {
	t.mu.Lock()
	ops := t.takePending()
	t.running = false
	t.waiting, t.stepping, t.intrSent = false, false, false
	if ended {
		t.ended = true
	}
	t.mu.Unlock()
	failPending(ops, err)
}

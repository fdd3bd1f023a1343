package kitevm

import "iter"

// The program runs as a coroutine (iter.Pull): whichever goroutine drives it runs the VM
// until the VM waits for a command with none queued (a stop) or the program ends. A resume
// drives it on the caller's own goroutine, so that a step costs no hand-off to another
// thread and its stop has been reported when Resume returns. A run that goes on long,
// writes output (which the engine may hold back for a slow reader) or reaches a breakpoint
// (a logpoint writes output) is handed to a goroutine of its own at that point. Consoles,
// which pace frames in their Run function, always run on a goroutine of their own.

// yieldKind is why the coroutine gives control back to its driver.
type yieldKind uint8

const (
	parked  yieldKind = iota // waiting for a command: the queue was empty
	handOff                  // the run must go on on a goroutine of its own
)

// startCoroutine makes the program's coroutine; Start then drives it.
func (t *Target) startCoroutine() {
	t.next, _ = iter.Pull(func(yield func(yieldKind) bool) {
		t.yield = yield
		t.run()
	})
}

// post queues c for the coroutine and drives it if nobody does (with t.mu held): on the
// caller's goroutine when inline, else on a new one. It returns whether the caller must
// call drive(true) once it has released t.mu.
func (t *Target) post(c command, inline bool) bool {
	t.queue = append(t.queue, c)
	if t.driving {
		return false // the driver finds the command before it lets go
	}
	t.driving = true
	if !inline {
		go t.drive(false)
		return false
	}
	return true
}

// drive runs the coroutine until it is parked with no command queued or the program has
// ended. borrowed says that the goroutine is a caller's (a resume): the coroutine then
// hands the run off (handOff) rather than run long or wait on it.
func (t *Target) drive(borrowed bool) {
	for {
		t.borrowed = borrowed
		why, alive := t.next()
		if alive && why == handOff {
			go t.drive(false)
			return
		}
		t.mu.Lock()
		if !alive || len(t.queue) == 0 {
			t.driving = false
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
	}
}

// await returns the next command for the stopped program, yielding to the driver while
// there is none; false when the coroutine is being discarded.
func (t *Target) await() (command, bool) {
	for {
		t.mu.Lock()
		if len(t.queue) > 0 {
			c := t.queue[0]
			t.queue = append(t.queue[:0], t.queue[1:]...)
			t.mu.Unlock()
			return c, true
		}
		t.mu.Unlock()
		if !t.yield(parked) {
			return command{}, false
		}
	}
}

// goOnAlone hands the run to a goroutine of its own when it runs on a caller's (before it
// runs long, or before output that may wait); on the coroutine.
func (t *Target) goOnAlone() {
	if t.borrowed {
		t.yield(handOff) // resumed by drive(false), which clears borrowed
	}
}

// stepsInline reports whether a resume runs the program on the caller's goroutine.
func (t *Target) stepsInline(c command) bool {
	return t.opts.Run == nil && c.fn == nil && !c.terminate
}

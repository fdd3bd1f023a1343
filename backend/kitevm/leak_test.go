package kitevm_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// Sessions leave no goroutine behind: not after a normal exit, not after a terminate
// while stopped, not after Close while running.
func TestNoGoroutineLeaks(t *testing.T) {
	settle := func(want int) int {
		deadline := time.Now().Add(5 * time.Second)
		n := runtime.NumGoroutine()
		for n > want && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
			n = runtime.NumGoroutine()
		}
		return n
	}
	base := settle(0)
	for i := 0; i < 5; i++ {
		h := start(t, fibSrc, nil, false)
		h.exit(0)
		h.s.Close()

		h = start(t, fibSrc, func(h *harness) { h.line(2) }, false)
		h.stop(engine.ReasonBreakpoint, 2)
		h.do(h.s.Terminate())
		h.next()
		h.s.Close()

		h = start(t, "while true {\n}\n", nil, false)
		h.s.Close()
	}
	if n := settle(base); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines left (had %d):\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}

package gdbremote

import (
	"errors"

	"github.com/polydbg/polydbg/engine"
)

// watchHangup ends the session when the connection to the stub goes away while the target
// is stopped (the stub crashed, QEMU was killed, the probe was unplugged). While the target
// runs, the run loop notices it on its own; a stopped target sends nothing, so without this
// the session would stay "stopped" until the next command failed.
func (t *Target) watchHangup() {
	select {
	case <-t.c.Done():
	case <-t.ctx.Done():
		return
	}
	t.mu.Lock()
	if t.ended || t.killing || t.running || t.ctx.Err() != nil {
		t.mu.Unlock()
		return
	}
	t.ended = true
	h := t.h
	t.mu.Unlock()
	t.flushOutput()
	if h != nil {
		engine.ReportLost(h, errors.New("gdbremote: the stub went away"))
	}
}

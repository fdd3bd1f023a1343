package kitevm

import "github.com/polydbg/polydbg/engine"

// A console stops between two frames (a pause, a frame step) with no Kite frame on the VM's
// stack: its Run function waits outside the program. The stop still names where the next
// frame begins, so the target shows that as the one frame, with the globals as its only
// scope, and every front end shows a paused cartridge as it shows any stopped Kite program.

// noteIdle records, at a stop, where an idle program is; on the program's coroutine.
func (t *Target) noteIdle(stop engine.Stop) {
	t.idleAt = nil
	if t.vm.NumFrames() == 0 && stop.Location.Line > 0 {
		loc := stop.Location
		t.idleAt = &loc
	}
}

// idleFrame is the frame of an idle stop, if the program is idle; with t.mu held.
func (t *Target) idleFrame() (engine.Frame, bool) {
	if t.idleAt == nil || t.vm.NumFrames() != 0 {
		return engine.Frame{}, false
	}
	return engine.Frame{Index: 0, Func: t.idleAt.Func, Location: *t.idleAt}, true
}

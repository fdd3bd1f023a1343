package gdbremote

// Target: threads parked on a breakpoint. A thread that stopped at a breakpoint stays on
// it while the user selects and steps another thread; a continue then resumes it too, and
// it would hit the same breakpoint at once without having run. As gdb does before a
// resume, each such thread still at the breakpoint's address is first stepped off it
// alone (the others staying stopped).

import (
	"maps"
	"slices"
	"syscall"

	"github.com/polydbg/polydbg/engine"
)

// notePark records the stopped thread as parked at pc when a trap is there.
func (t *Target) notePark(pc uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.threadID != "" && t.traps[pc] != nil {
		t.parked[t.threadID] = pc
	}
}

// unparkOthers steps each parked thread other than the selected one off its breakpoint, if
// it is still there, before a continue resumes them all. A stop made by such a step (a
// signal, a pause) is returned to be reported instead of the continue. The selected
// thread is selected again afterwards.
func (t *Target) unparkOthers() (*engine.Stop, error) {
	t.mu.Lock()
	selected, parked := t.threadID, t.parked
	t.parked = map[string]uint64{}
	t.mu.Unlock()
	moved := false
	for _, id := range slices.Sorted(maps.Keys(parked)) {
		if id == selected {
			continue // the continue's own step off does it
		}
		if err := t.c.SetThread(t.ctx, id); err != nil {
			continue // gone
		}
		moved = true
		t.newStop(StopReply{Kind: StopSignal, Signal: int(syscall.SIGTRAP), Thread: id, Core: -1})
		if pc, err := t.pc(); err != nil || pc != parked[id] {
			continue // it has moved since (stepped alone)
		}
		if _, err := t.stepOff(); err != nil {
			return nil, err
		}
		if sr := t.lastStopReply(); sr.Signal != int(syscall.SIGTRAP) && sr.Signal != 0 {
			if st := t.classify(sr); st != nil {
				return st, nil
			}
		}
	}
	if moved {
		if err := t.c.SetThread(t.ctx, selected); err != nil {
			return nil, err
		}
		t.newStop(StopReply{Kind: StopSignal, Signal: int(syscall.SIGTRAP), Thread: selected, Core: -1})
	}
	return nil, nil
}

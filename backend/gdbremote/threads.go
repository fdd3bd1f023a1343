package gdbremote

// Target: selecting a thread (engine.ThreadSelector). Registers, memory and the stack are
// read in the selected thread (Hg), and single steps move only it (vCont;s:TID), the
// others staying stopped.

import (
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

var _ engine.ThreadSelector = (*Target)(nil)

// SelectedThread implements engine.ThreadSelector: the thread that stopped, or the one
// selected since (0 when the stub names none).
func (t *Target) SelectedThread() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.threadID == "" {
		return 0
	}
	return thread(t.threadID, "").ID
}

// SelectThread implements engine.ThreadSelector.
func (t *Target) SelectThread(id uint64) error {
	if err := t.needStopped(); err != nil {
		return EngineError(err)
	}
	ids, err := t.c.Threads(t.ctx)
	if err != nil {
		return EngineError(err)
	}
	for _, s := range ids {
		if thread(s, "").ID != id {
			continue
		}
		if err := t.c.SetThread(t.ctx, s); err != nil {
			return EngineError(err)
		}
		t.mu.Lock()
		t.threadID = s
		// what was cached (the expedited registers above all) belongs to the other thread
		t.stopCache = &stopCache{regs: map[int][]byte{}, mem: map[uint64][]byte{}}
		t.refs = map[int]refEntry{}
		t.nextRef = 0
		t.mu.Unlock()
		return nil
	}
	return fmt.Errorf("gdbremote: no thread %d", id)
}

// stepThread is the thread a single step moves: the selected one ("" when the stub names
// no threads).
func (t *Target) stepThread() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.threadID
}

package gdbremote

// Target: selecting a thread (engine.ThreadSelector). Registers, memory and the stack are
// read in the selected thread (Hg), and single steps move only it (vCont;s:TID), the
// others staying stopped.

import (
	"context"
	"fmt"
	"slices"
	"syscall"

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

// threadEvent tells the session of a thread that started or exited while the program ran
// (Client.EnableThreadEvents); the client resumes the program itself.
func (t *Target) threadEvent(ev ThreadEvent) {
	t.mu.Lock()
	h := t.h
	t.mu.Unlock()
	if h == nil {
		return
	}
	th := thread(ev.Thread, "")
	th.State = "running"
	reason := engine.ThreadStarted
	t.mu.Lock()
	if ev.Started && ev.Handle != 0 {
		t.handles[th.ID] = ev.Handle
	}
	th.Handle = t.handles[th.ID]
	if !ev.Started {
		reason = engine.ThreadExited
		delete(t.handles, th.ID)
	}
	t.mu.Unlock()
	engine.ReportThread(h, reason, th)
}

// threadHandles fills in the threads' handles (pthread_t, as gdb names a thread): known
// from glibc's create event, else read once per thread from its thread pointer register,
// fs_base on x86-64 (glibc's pthread_t there); ids are the stub's names of the threads. A
// target without that register has none.
func (t *Target) threadHandles(ctx context.Context, ths []engine.Thread, ids []string) {
	reg, ok := t.desc.Reg("fs_base")
	if !ok {
		return
	}
	t.mu.Lock()
	selected := t.threadID
	t.mu.Unlock()
	moved := false
	for i := range ths {
		t.mu.Lock()
		h, known := t.handles[ths[i].ID]
		t.mu.Unlock()
		if !known {
			moved = true
			if t.c.SetThread(ctx, ids[i]) != nil {
				continue
			}
			b, err := t.c.ReadRegister(ctx, reg.Num)
			if err != nil || len(b) != 8 {
				continue
			}
			if h = t.order.Uint64(b); h != 0 { // (0 before the C library set it up: read again later)
				t.mu.Lock()
				t.handles[ths[i].ID] = h
				t.mu.Unlock()
			}
		}
		ths[i].Handle = h
	}
	if moved && selected != "" {
		if err := t.c.SetThread(ctx, selected); err != nil {
			t.log.Warn("gdbremote: cannot select the stopped thread again", "err", err)
		}
	}
}

// LiveThreadEvents says how the target reports threads as they start and exit
// ("QThreadEvents", or "nptl": glibc's events), or "" when they are only seen at stops.
func (t *Target) LiveThreadEvents() string {
	if t.nptl {
		return "nptl"
	}
	return t.c.ThreadEventsWay()
}

// withoutDying leaves out the threads whose exit was reported already: a stop in the
// moment between glibc's death event and the thread's end still lists them.
func (t *Target) withoutDying(ths []engine.Thread) []engine.Thread {
	for _, id := range t.c.Dying() {
		dead := thread(id, "").ID
		ths = slices.DeleteFunc(ths, func(th engine.Thread) bool { return th.ID == dead })
	}
	return ths
}

// armThreadEvents sets glibc's thread event breakpoints at the program's entry point,
// where libc is loaded; without them threads are seen at stops.
func (t *Target) armThreadEvents() {
	if !t.nptl {
		return
	}
	if err := t.armNPTLEvents(t.ctx); err != nil {
		t.log.Debug("gdbremote: threads are seen at stops only", "err", err)
	}
}

// steppedThreadExited ends a step whose own thread exited (a stub with QThreadEvents says
// so with a "w" reply, and the step cannot go on): the first thread left is selected and
// the step stops there, saying why.
func (t *Target) steppedThreadExited() error {
	ids, err := t.c.Threads(t.ctx)
	if err != nil {
		return err
	}
	if len(ids) == 0 {
		return fmt.Errorf("gdbremote: the stepped thread exited and no thread is left")
	}
	if err := t.c.SetThread(t.ctx, ids[0]); err != nil {
		return err
	}
	t.newStop(StopReply{Kind: StopSignal, Signal: int(syscall.SIGTRAP), Thread: ids[0], Core: -1})
	return &trapStopError{st: &engine.Stop{Reason: engine.ReasonStep, Text: "the stepped thread exited"}}
}

// leaveDyingThread moves a stop made in a thread whose end was already told (a pause that
// caught it in its last instructions, after glibc's death event) to the first live thread:
// a stop is never shown in a thread the session was told has exited, and the threads
// listed no longer have it.
func (t *Target) leaveDyingThread(st *engine.Stop) {
	t.mu.Lock()
	cur := t.threadID
	t.mu.Unlock()
	dying := t.c.Dying()
	if cur == "" || !slices.Contains(dying, cur) {
		return
	}
	ids, err := t.c.Threads(t.ctx)
	if err != nil {
		return
	}
	for _, id := range ids {
		if slices.Contains(dying, id) || t.c.SetThread(t.ctx, id) != nil {
			continue
		}
		t.mu.Lock()
		t.threadID = id
		t.stopCache = &stopCache{regs: map[int][]byte{}, mem: map[uint64][]byte{}}
		t.mu.Unlock()
		st.ThreadID, st.Location = thread(id, "").ID, engine.Location{}
		return
	}
}

package gdbremote

// Target: the engine's capability interfaces (engine/capabilities.go) — reset through the
// session, threads, memory while running, registers by the stub's numbers — with errors
// that say what happened in the engine's terms (engine.ErrRefused for a stub refusal,
// engine.ErrEnded once the connection is gone).

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

var (
	_ engine.Resetter          = (*Target)(nil)
	_ engine.ThreadLister      = (*Target)(nil)
	_ engine.LiveMemory        = (*Target)(nil)
	_ engine.NumberedRegisters = (*Target)(nil)
)

// Reset implements engine.Resetter (call it through engine.Session.Reset): it resets the
// target at its reset vector (ResetHalt) and reports that stop, then runs on unless halt.
func (t *Target) Reset(halt bool) error {
	pc, err := t.ResetHalt()
	if err != nil {
		return EngineError(err)
	}
	t.mu.Lock()
	h := t.h
	t.mu.Unlock()
	if h != nil && halt {
		h.Stopped(engine.Stop{Reason: engine.ReasonReset, Location: t.location(pc)})
	}
	if !halt {
		return t.Resume(engine.Continue)
	}
	return nil
}

// ReadLive implements engine.LiveMemory: a read at once when stopped, else in a brief halt.
func (t *Target) ReadLive(addr uint64, n int) ([]byte, error) {
	var data []byte
	err := t.Access(func(m Access) error {
		var err error
		data, err = m.ReadMemory(addr, n)
		return err
	})
	return data, EngineError(err)
}

// WriteLive implements engine.LiveMemory; a write of 1, 2 or 4 bytes to I/O memory
// reaches the device (StoreIO).
func (t *Target) WriteLive(addr uint64, data []byte) error {
	return EngineError(t.Access(func(m Access) error { return m.StoreIO(addr, data) }))
}

// RegisterDescs implements engine.NumberedRegisters with the stub's target description.
func (t *Target) RegisterDescs() []engine.RegisterDesc {
	out := make([]engine.RegisterDesc, len(t.desc.Regs))
	for i, r := range t.desc.Regs {
		out[i] = engine.RegisterDesc{Name: r.Name, Num: r.Num, Bits: r.Bitsize, Group: r.Group}
	}
	return out
}

// RegisterValue implements engine.NumberedRegisters (from the stop's cache when it can).
func (t *Target) RegisterValue(num int) (uint64, error) {
	b, err := t.ReadRegisterNum(num)
	if err != nil {
		return 0, EngineError(err)
	}
	return Uint(b, t.order), nil
}

// Threads implements engine.ThreadLister: the threads with their names when the stub
// offers qXfer:threads:read (gdbserver), else their ids. The target must be stopped.
func (t *Target) Threads(ctx context.Context) ([]engine.Thread, error) {
	if err := t.needStopped(); err != nil {
		return nil, EngineError(err)
	}
	if t.c.Supports("qXfer:threads:read") {
		if b, err := t.c.ReadXfer(ctx, "threads", ""); err == nil {
			var doc struct {
				Threads []struct {
					ID   string `xml:"id,attr"`
					Name string `xml:"name,attr"`
				} `xml:"thread"`
			}
			if err := xml.Unmarshal(b, &doc); err == nil {
				out := make([]engine.Thread, 0, len(doc.Threads))
				ids := make([]string, 0, len(doc.Threads))
				for _, th := range doc.Threads {
					if !t.c.OtherProcess(th.ID) { // (a vfork's held parent)
						out, ids = append(out, thread(th.ID, th.Name)), append(ids, th.ID)
					}
				}
				t.threadHandles(ctx, out, ids)
				return t.withoutDying(out), nil
			}
		}
	}
	ids, err := t.c.Threads(ctx)
	if err != nil {
		return nil, EngineError(err)
	}
	out := make([]engine.Thread, 0, len(ids))
	ids = slices.DeleteFunc(ids, t.c.OtherProcess)
	for _, id := range ids {
		out = append(out, thread(id, ""))
	}
	t.threadHandles(ctx, out, ids)
	return t.withoutDying(out), nil
}

// thread makes the engine's thread of a stub's thread id ("p1234.1235" or "4d3").
func thread(id, name string) engine.Thread {
	if name == "" {
		name = "thread " + id
	}
	h := id
	if _, tid, ok := strings.Cut(id, "."); ok {
		h = tid
	}
	n, _ := strconv.ParseUint(strings.TrimPrefix(h, "p"), 16, 64)
	return engine.Thread{ID: n, Name: name, State: "stopped", Kind: "thread"}
}

// EngineError wraps an error of the stub in the engine's terms (ErrRefused, ErrRunning,
// ErrEnded), keeping its text, for front ends that map errors by the engine's kinds.
func EngineError(err error) error {
	var se *StubError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return fmt.Errorf("%w: %w", engine.ErrRefused, err)
	case errors.Is(err, ErrRunning):
		return fmt.Errorf("%w: %w", engine.ErrRunning, err)
	case errors.Is(err, ErrClosed), errors.Is(err, errEndedAccess):
		return fmt.Errorf("%w: %w", engine.ErrEnded, err)
	}
	return err
}

// notePID reads the id of the process the stub runs (a new one after a restart): the
// program's for gdbserver, 1 for QEMU, as gdb names them.
func (t *Target) notePID() {
	pid, err := strconv.ParseInt(t.c.currentPID(t.ctx), 16, 64)
	if err != nil || pid <= 0 {
		return
	}
	t.mu.Lock()
	t.pid = int(pid)
	t.mu.Unlock()
}

// forgetThreads drops what is known of the threads of a process that is gone (restart).
func (t *Target) forgetThreads() {
	t.mu.Lock()
	t.handles, t.parked = map[uint64]uint64{}, map[string]uint64{}
	t.mu.Unlock()
}

// FollowForkChild implements engine.ForkFollower: from now on the child of a fork is
// followed, the parent let go (gdb's follow-fork-mode child), or the parent (off).
func (t *Target) FollowForkChild(on bool) { t.c.FollowForkChild(on) }

// Inferior implements engine.ForkFollower.
func (t *Target) Inferior() int { return t.c.Inferior() }

// InferiorFile implements engine.ForkFollower.
func (t *Target) InferiorFile(n int) (string, int) {
	held := t.c.VforkParent()
	t.mu.Lock()
	defer t.mu.Unlock()
	if n < 1 || n > len(t.letGo) {
		return "", 0
	}
	if n < len(t.letGo) {
		held = 0 // (only the last one left can be held)
	}
	return t.letGo[n-1], held
}

// followed makes the child of a fork the program (Options.Followed): its process, its
// thread (the one that forked, by its handle) selected; what was known of the parent's
// threads and registers is forgotten.
func (t *Target) followed(f Followed) {
	t.forgetThreads()
	t.mu.Lock()
	t.pid, t.threadID = f.Child, f.Thread
	t.letGo = append(t.letGo, t.elfPath)
	if f.Handle != 0 {
		t.handles[thread(f.Thread, "").ID] = f.Handle
	}
	t.stopCache = &stopCache{regs: map[int][]byte{}, mem: map[uint64][]byte{}}
	t.refs, t.nextRef = map[int]refEntry{}, 0
	t.mu.Unlock()
}

// ProcessID implements engine.ProcessIdentifier: the id of the process the stub runs (also
// once it has ended): the program's under gdbserver, the stub's own number for firmware
// (QEMU's 1), 0 when the stub names none.
func (t *Target) ProcessID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.pid
}

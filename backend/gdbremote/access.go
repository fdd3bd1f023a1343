package gdbremote

import (
	"fmt"
	"time"
)

// This file adds what the Aether front end needs besides the engine interfaces: memory
// access while the target runs (a brief halt the engine never sees), registers by the
// stub's own numbers, and a reset that halts at the reset vector.

// Access is direct memory access to the target, valid only inside Target.Access.
type Access interface {
	ReadMemory(addr uint64, n int) ([]byte, error)
	WriteMemory(addr uint64, data []byte) error
	// StoreIO writes a memory-mapped I/O register (1, 2 or 4 bytes) so that the device
	// sees the write, even on stubs whose memory writes skip I/O (QEMU).
	StoreIO(addr uint64, data []byte) error
}

type directMem struct{ t *Target }

func (m directMem) ReadMemory(addr uint64, n int) ([]byte, error) {
	return m.t.c.ReadMemory(m.t.ctx, addr, n)
}

func (m directMem) WriteMemory(addr uint64, data []byte) error {
	m.t.cache().forget(-1, nil)
	return m.t.c.WriteMemory(m.t.ctx, addr, data)
}

// Access runs fn with direct memory access: at once when the target is stopped, or, while
// it runs, in a brief halt (interrupt, fn, resume) that the engine does not see as a stop.
// Stubs in all-stop mode (QEMU, OpenOCD, gdbserver) cannot touch memory while the core
// runs, so this is how a front end polls RTT buffers or samples variables. A brief halt
// costs the target one interrupt, the reads in fn and a continue: on QEMU about a
// millisecond of stopped time. It fails with ErrEnded once the program has ended.
func (t *Target) Access(fn func(Access) error) error {
	t.mu.Lock()
	ended := t.ended
	t.mu.Unlock()
	if ended {
		return fmt.Errorf("gdbremote: %w", errEndedAccess)
	}
	return t.whileStopped(func() error { return fn(directMem{t}) })
}

// AccessStopped runs fn as Access does while the target is stopped, and never halts it:
// on a running target fn is not run and the answer is ErrRunning. For work that is worth
// doing only at a stop (the drain of RTT after a halt), which must not cut the next run.
func (t *Target) AccessStopped(fn func(Access) error) error {
	return t.doStopped(func() error { return fn(directMem{t}) }, false)
}

var errEndedAccess = fmt.Errorf("the program has ended")

// Running reports whether the target is running (a resume is in progress).
func (t *Target) Running() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.running
}

// Ended reports whether the program has ended or the connection is gone.
func (t *Target) Ended() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended || t.c.Err() != nil
}

// Desc is the stub's target description (register names, numbers and sizes).
func (t *Target) Desc() *TargetDesc { return t.desc }

// ReadRegisterNum reads a register by the stub's number (the target must be stopped).
func (t *Target) ReadRegisterNum(n int) ([]byte, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	if _, ok := t.desc.RegByNum(n); !ok {
		return nil, fmt.Errorf("gdbremote: no register number %d", n)
	}
	return t.reg(n)
}

// WriteRegisterNum writes a register by the stub's number; value is truncated to the
// register's size (the target must be stopped).
func (t *Target) WriteRegisterNum(n int, value uint64) error {
	r, ok := t.desc.RegByNum(n)
	if !ok {
		return fmt.Errorf("gdbremote: no register number %d", n)
	}
	return t.WriteRegister(r.Name, value)
}

// PC reads the program counter of a stopped target.
func (t *Target) PC() (uint64, error) {
	if err := t.needStopped(); err != nil {
		return 0, err
	}
	return t.pc()
}

// ResetHalt resets the target and leaves it halted at the reset vector: gdbserver
// restarts the program (and runs to its entry, like Restart); other stubs get a monitor
// command, "system_reset" (QEMU) or else "reset halt" (OpenOCD, pyOCD). A running target
// is paused first (the engine sees that pause as a stop). It returns the new pc.
func (t *Target) ResetHalt() (uint64, error) {
	if err := t.needStopped(); err != nil {
		t.Pause()
		deadline := time.Now().Add(5 * time.Second)
		for t.needStopped() != nil && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if err := t.needStopped(); err != nil {
			return 0, err
		}
	}
	t.stopMu.Lock() // no resume and no brief halt meanwhile
	defer t.stopMu.Unlock()
	if t.c.Extended() {
		if err := t.Restart(); err != nil {
			return 0, err
		}
		return t.pc()
	}
	var err error
	for _, cmd := range []string{"system_reset", "reset halt"} {
		if _, err = t.c.Monitor(t.ctx, cmd); err == nil {
			break
		}
	}
	if err != nil {
		return 0, fmt.Errorf("gdbremote: reset: %w", err)
	}
	sr, err := t.c.HaltReason(t.ctx)
	if err != nil {
		return 0, err
	}
	t.newStop(sr)
	return t.pc()
}

// Stub is the stub process the target started (QEMU, gdbserver), or nil.
func (t *Target) Stub() *Stub { return t.stub }

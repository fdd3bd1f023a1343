package gdbremote

// gdb's gcore: the stopped program's memory, threads and registers written as a core dump
// (backend/core writes the file), which polydbg and gdb read afterwards.

import (
	"fmt"
	"os"
	"strings"

	"github.com/polydbg/polydbg/backend/core"
	"github.com/polydbg/polydbg/engine"
)

// DumpCore implements engine.CoreDumper for an x86-64 program run on this machine: its
// mappings from /proc, every thread's registers through the stub, its memory read through
// the stub a chunk at a time.
func (t *Target) DumpCore(path string) error {
	if !t.local || t.desc.Arch != "i386:x86-64" {
		return fmt.Errorf("a core dump of this program: %w", engine.ErrUnsupported)
	}
	if err := t.needStopped(); err != nil {
		return EngineError(err)
	}
	maps, err := t.ProcFile("maps")
	if err != nil {
		return err
	}
	cmdline, _ := t.ProcFile("cmdline")
	snap := core.Snapshot{PID: t.ProcessID(), Maps: core.ParseMaps(maps),
		Args: strings.TrimSpace(strings.ReplaceAll(strings.TrimRight(cmdline, "\x00"), "\x00", " ")),
		Read: func(addr uint64, n int) ([]byte, error) { return t.c.ReadMemory(t.ctx, addr, n) }}
	t.mu.Lock()
	current := t.threadID
	snap.Signal = t.lastStop.Signal
	t.mu.Unlock()
	snap.Auxv, _ = t.c.ReadXfer(t.ctx, "auxv", "")
	ids, err := t.c.Threads(t.ctx)
	if err != nil {
		return err
	}
	ordered := ids // the stopped thread first: a core's first thread is the one that took the signal
	for i, id := range ids {
		if id == current && i > 0 {
			ordered = append([]string{id}, append(append([]string{}, ids[:i]...), ids[i+1:]...)...)
		}
	}
	defer t.c.SetThread(t.ctx, current) // (its registers are cached as they were)
	for _, id := range ordered {
		if err := t.c.SetThread(t.ctx, id); err != nil {
			return err
		}
		regs := map[string]uint64{}
		for _, r := range t.desc.Regs {
			if r.Bitsize > 64 {
				continue
			}
			b, err := t.c.ReadRegister(t.ctx, r.Num)
			if err == nil && len(b) > 0 {
				regs[r.Name] = Uint(b, t.order)
			}
		}
		snap.Threads = append(snap.Threads, core.ThreadRegs{TID: int(thread(id, "").ID), Regs: regs})
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := core.Write(f, snap); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

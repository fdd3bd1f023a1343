package gdbremote

import (
	"fmt"
	"os"

	"github.com/polydbg/polydbg/engine"
)

// Connection implements engine.Connection: "native" for a program run here under a
// gdbserver of our own, "core" for a core dump, "remote HOST:PORT" for any other stub
// (QEMU, a probe, a gdbserver connected to).
func (t *Target) Connection() string {
	if t.core != nil {
		return "core"
	}
	if t.local {
		return "native"
	}
	return "remote " + t.addr
}

// ExecutablePath implements engine.Executable: the ELF file read for symbols.
func (t *Target) ExecutablePath() string { return t.elfPath }

// procNames are the files of /proc/PID that ProcFile reads; the links are read as links.
var procNames = map[string]bool{"cmdline": true, "status": true, "stat": true, "maps": true, "cwd": true, "exe": true}

// ProcFile implements engine.ProcFiles for a program run on this machine: the program's own
// files under /proc, nothing else.
func (t *Target) ProcFile(name string) (string, error) {
	pid := t.ProcessID()
	switch {
	case !t.local:
		return "", fmt.Errorf("the program does not run on this machine: %w", engine.ErrUnsupported)
	case pid <= 0:
		return "", engine.ErrNotStarted
	case !procNames[name]:
		return "", fmt.Errorf("no /proc file %q is read", name)
	}
	path := fmt.Sprintf("/proc/%d/%s", pid, name)
	if name == "cwd" || name == "exe" {
		return os.Readlink(path)
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

// Auxv implements engine.AuxvReader (qXfer:auxv:read).
func (t *Target) Auxv() ([][2]uint64, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	return t.c.AuxvEntries(t.ctx, t.sym.Arch.PtrSize, t.sym.Arch.ByteOrder)
}

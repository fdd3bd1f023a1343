package lantern

// DEPS: what this host has of what the daemon uses.

import (
	"os"
	"os/exec"
	"strings"

	"github.com/polydbg/polydbg/backend/process"
)

// deps answers DEPS: what this host has of what the daemon uses.
func (s *Server) deps() map[string]any {
	_, gdbErr := exec.LookPath(s.cfg.Gdbserver)
	list := []Dep{
		{"gdbserver", "GDB's remote server: START --debug and DEBUG run it", gdbErr == nil, true},
		{"memfd_create", "Linux in-memory files: uploaded binaries run without touching the disk", process.MemfdSupported(), true},
		{"ptrace_attach", "permission to attach a debugger to a running program (DEBUG); see /proc/sys/kernel/yama/ptrace_scope", ptraceAttachAllowed(), false},
	}
	all := true
	for _, d := range list {
		if d.Required && !d.Available {
			all = false
		}
	}
	return map[string]any{"deps": list, "all_satisfied": all}
}

// ptraceAttachAllowed reports whether gdbserver --attach can attach to a sibling process:
// Yama's ptrace_scope 0 allows it for the same user, 1 and 2 only with CAP_SYS_PTRACE
// (approximated by root), 3 never.
func ptraceAttachAllowed() bool {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return true // no Yama: classic same-user rules
	}
	switch strings.TrimSpace(string(b)) {
	case "0":
		return true
	case "1", "2":
		return os.Geteuid() == 0
	}
	return false
}

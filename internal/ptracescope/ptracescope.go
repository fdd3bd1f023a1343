// Package ptracescope says whether this kernel lets a debugger attach to a process that is
// not its child (Yama's ptrace_scope).
package ptracescope

import (
	"os"
	"strings"
)

// AttachAllowed reports whether gdbserver --attach can attach to a sibling process:
// Yama's ptrace_scope 0 allows it for the same user, 1 and 2 only with CAP_SYS_PTRACE
// (approximated by root), 3 never; without Yama the classic same-user rules apply.
func AttachAllowed() bool {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return true
	}
	switch strings.TrimSpace(string(b)) {
	case "0":
		return true
	case "1", "2":
		return os.Geteuid() == 0
	}
	return false
}

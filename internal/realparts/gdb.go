package realparts

import (
	"os/exec"
	"strings"
	"testing"
)

// GDBBatch runs gdb in batch mode on exe with the debugger commands, one per line, and
// returns what it printed: the oracle that tests compare polydbg's answers with.
func GDBBatch(t testing.TB, exe, commands string) string {
	t.Helper()
	Need(t, "gdb")
	args := []string{"-batch", "-nx"}
	for _, c := range strings.Split(strings.TrimSpace(commands), "\n") {
		args = append(args, "-ex", c)
	}
	out, err := exec.Command("gdb", append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	return string(out)
}

package realparts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// hardwareWatch is the probe's answer, made once per test binary.
var hardwareWatch struct {
	once    sync.Once
	working bool
}

// NeedHardwareWatchpoints skips t where the machine's debug registers do not trigger: some
// virtual machines take the writes to them and never stop (gdb's own hardware watchpoints
// do not stop there either). The probe asks gdb to watch a global of a small program; with
// no gdb or gcc to ask, the registers are taken to work.
func NeedHardwareWatchpoints(t testing.TB) {
	t.Helper()
	if !HardwareWatchpointsWork() {
		t.Skip("this machine's debug registers do not trigger: gdb's hardware watchpoints do not stop here either")
	}
}

// HardwareWatchpointsWork is NeedHardwareWatchpoints's probe, for a suite run outside Go
// (the DAP client's) to be told.
func HardwareWatchpointsWork() bool {
	hardwareWatch.once.Do(func() { hardwareWatch.working = probeHardwareWatch() })
	return hardwareWatch.working
}

func probeHardwareWatch() bool {
	if _, err := exec.LookPath("gdb"); err != nil {
		return true
	}
	dir, err := os.MkdirTemp("", "polydbg-hwwatch")
	if err != nil {
		return true
	}
	defer os.RemoveAll(dir)
	src, exe := filepath.Join(dir, "w.c"), filepath.Join(dir, "w")
	prog := "int counter;\nint main(void) { for (int i = 0; i < 3; i++) counter++; return 0; }\n"
	if os.WriteFile(src, []byte(prog), 0o644) != nil || exec.Command("gcc", "-g", "-O0", "-o", exe, src).Run() != nil {
		return true
	}
	out, _ := exec.Command("gdb", "-nx", "-batch", "-ex", "break main", "-ex", "run", "-ex", "watch counter",
		"-ex", "continue", exe).CombinedOutput()
	return strings.Contains(string(out), "New value = 1")
}

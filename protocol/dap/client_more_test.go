package dap

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// TestDebugClientMore runs the suites of goto, data breakpoints, threads, modules,
// peripherals, disassembly of Kite files, cwd/env and detach, one per kind of target, in
// parallel on one build.
func TestDebugClientMore(t *testing.T) {
	node := needNode(t)
	bin := buildPolydbg(t)
	t.Run("kite", func(t *testing.T) {
		t.Parallel()
		runSuite(t, node, bin, "kite_more.test.mjs")
	})
	t.Run("native", func(t *testing.T) { // threads, a watched global, dlopen, a loop to detach from
		t.Parallel()
		realparts.Need(t, "gcc", "gdbserver")
		src, _ := filepath.Abs(filepath.Join(clientDir, "native_more.c")) // absolute: the line tables name it so
		exe := filepath.Join(t.TempDir(), "native_more")
		if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", exe, src, "-ldl").CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		env := []string{"NATIVE_EXE=" + exe, "NATIVE_SRC=" + src}
		if !realparts.HardwareWatchpointsWork() {
			env = append(env, "NO_HW_WATCH=1") // (the data breakpoints' case is skipped)
		}
		runSuite(t, node, bin, "native_more.test.mjs", env...)
	})
	t.Run("qemu", func(t *testing.T) { // with the SVD file of the board
		t.Parallel()
		realparts.Need(t, "qemu-system-arm")
		elf := firmware.Build(t)
		svd, _ := filepath.Abs("../../backend/mcu/svd/testdata/lm3s6965.svd")
		runSuite(t, node, bin, "qemu_more.test.mjs", "FW_ELF="+elf, "FW_SRC="+firmware.Source(), "SVD="+svd)
	})
}

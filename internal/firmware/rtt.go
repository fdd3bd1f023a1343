package firmware

import (
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// RTTSource is the path of the microcontroller-service firmware (testdata/rtt/fw.c): SEGGER
// RTT channels with Teleplot lines, FreeRTOS-shaped task lists and switches, variables to
// sample, for the tests of backend/mcu, protocol/aether and cmd/polydbg, and the benchmarks.
func RTTSource() string { return filepath.Join(Dir(), "rtt", "fw.c") }

// BuildRTT compiles RTTSource for the lm3s6965's Cortex-M3 (with newlib) into a temporary
// directory of t and returns the ELF file's path.
func BuildRTT(t testing.TB) string {
	t.Helper()
	realparts.NeedFile(t, "/usr/lib/arm-none-eabi/newlib")
	return buildCortexM3(t, RTTSource(), filepath.Join(Dir(), "rtt", "link.ld"), []string{"-ffreestanding", Startup()}, "-lc", "-lgcc")
}

// RTTLine is the line of RTTSource marked with the comment LINE:name.
func RTTLine(t testing.TB, name string) int {
	t.Helper()
	return MarkerLine(t, RTTSource(), name)
}

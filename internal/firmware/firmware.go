// Package firmware builds the Cortex-M3 test firmware (testdata/fw.c with testdata/link.ld)
// that the tests of backend/gdbremote, backend/elfsym and protocol/cli, and the benchmarks,
// run in QEMU (lm3s6965evb and mps2-an385: code at 0, RAM at 0x20000000 on both).
package firmware

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// Dir is the directory holding fw.c and link.ld.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "testdata")
}

// Startup is the path of the one startup code (vector table, Reset_Handler) every test
// firmware is linked with.
func Startup() string { return filepath.Join(Dir(), "startup_m3.c") }

// Source is the path of fw.c.
func Source() string { return filepath.Join(Dir(), "fw.c") }

// Build compiles fw.c with arm-none-eabi-gcc (-g -O0, Thumb, no C library) into a
// temporary directory of t and returns the ELF file's path.
func Build(t testing.TB) string {
	t.Helper()
	return buildCortexM3(t, Source(), filepath.Join(Dir(), "link.ld"), []string{"-nostdlib", Startup()}, "-lgcc")
}

// BuildC compiles another C source (its main) for a Cortex-M3 the same way (-O0 unless
// opts say otherwise, no C library), with testdata/startup_m3.c (vector table `vectors`,
// Reset_Handler) and the linker script ld (testdata/link.ld when ""), and returns the ELF
// file's path. Headers of testdata (freertos_list.h) are on its include path.
func BuildC(t testing.TB, src, ld string, opts ...string) string {
	t.Helper()
	if ld == "" {
		ld = filepath.Join(Dir(), "link.ld")
	}
	opts = append([]string{"-nostdlib", "-fno-tree-loop-distribute-patterns", "-I", Dir(), Startup()}, opts...)
	return buildCortexM3(t, src, ld, opts, "-lgcc")
}

// buildCortexM3 compiles one source for a Cortex-M3 at -O0 with the linker script and
// options, the libraries last, and returns the ELF file's path.
func buildCortexM3(t testing.TB, src, ld string, opts []string, libs ...string) string {
	t.Helper()
	realparts.Need(t, "arm-none-eabi-gcc")
	out := filepath.Join(t.TempDir(), "fw.elf")
	args := append([]string{"-mcpu=cortex-m3", "-mthumb", "-g", "-O0", "-nostartfiles", "-T", ld}, opts...)
	args = append(append(args, "-o", out, src), libs...)
	if b, err := exec.Command("arm-none-eabi-gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("arm-none-eabi-gcc: %v\n%s", err, b)
	}
	return out
}

// Line is the line of fw.c marked with the comment LINE:name.
func Line(t testing.TB, name string) int {
	t.Helper()
	return MarkerLine(t, Source(), name)
}

// MarkerLine is the line of the source file src marked with the comment LINE:name.
func MarkerLine(t testing.TB, src, name string) int {
	t.Helper()
	f, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "LINE:"+name+" ") {
			return n
		}
	}
	t.Fatalf("no LINE:%s in %s", name, src)
	return 0
}

package gdbremote

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// Firmware whose image starts with a header, its vector table after it, booted by QEMU
// from the table (armv7m.init-nsvtor, as a boot ROM sets VTOR): polydbg reads VTOR to find
// where the program starts (e_entry is a function that never runs), and follows the table
// when the firmware moves it to RAM.
func TestStartFromVTOR(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	dir, err := filepath.Abs("testdata/vtor")
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "fw.c")
	elf := firmware.BuildC(t, src, filepath.Join(dir, "link.ld"))
	ctx := testCtx(t, 30*time.Second)
	tg, err := StartQEMUWith(ctx, "mps2-an385", elf, QEMUOptions{Extra: []string{"-global", "armv7m.init-nsvtor=0x4100"}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tg.Symbols().ResetVector(); ok {
		t.Fatal("the image's lowest address reads as a vector table")
	}
	if fn := tg.Symbols().FuncAt(tg.Symbols().Entry()); fn == nil || fn.Name != "never_called" {
		t.Fatalf("e_entry is in %v, want never_called", fn)
	}
	x := newSess(t, tg)
	start := time.Now()
	if err := x.s.Start(true); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	if st.Reason != engine.ReasonEntry || st.Location.Func != "Reset_Handler" || time.Since(start) > 5*time.Second {
		t.Fatalf("entry stop %+v after %v, want Reset_Handler at once", st, time.Since(start))
	}
	table, _, _ := tg.Symbols().Symbol("vectors")
	if vt, err := tg.VectorTable(); err != nil || vt != table {
		t.Fatalf("VectorTable = %#x, %v; want vectors at %#x", vt, err, table)
	}
	// the firmware copies the table to RAM and points VTOR there
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: src, Line: srcLine(t, src, "loop")}); err != nil {
		t.Fatal(err)
	}
	if st := x.resume(engine.Continue); st.Reason != engine.ReasonBreakpoint {
		t.Fatalf("stop %+v", st)
	}
	ram, _, _ := tg.Symbols().Symbol("ram_vectors")
	vt, err := tg.VectorTable()
	if err != nil || vt != ram {
		t.Fatalf("VectorTable = %#x, %v; want ram_vectors at %#x", vt, err, ram)
	}
	if rv, err := tg.startAddress(); err != nil || rv != tg.Symbols().FuncAt(rv).Low {
		t.Fatalf("start address from the RAM table %#x, %v", rv, err)
	} else if fn := tg.Symbols().FuncAt(rv); fn == nil || fn.Name != "Reset_Handler" {
		t.Fatalf("start address %#x is in %v", rv, fn)
	}
}

// Firmware linked without any vector table (the startup code left out) cannot start: the
// target says so at once instead of waiting for a reset vector the core never has.
func TestStartWithoutVectorTableFailsAtOnce(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	elf := filepath.Join(t.TempDir(), "novec.elf")
	cmd := exec.Command("arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-g", "-O0", "-nostdlib", "-nostartfiles",
		"-T", filepath.Join(firmware.Dir(), "link.ld"), "-o", elf, firmware.Source(), "-lgcc")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("arm-none-eabi-gcc: %v\n%s", err, out)
	}
	tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), "lm3s6965evb", elf, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	t0 := time.Now()
	err = x.s.Start(true)
	if err == nil || !strings.Contains(err.Error(), "no Cortex-M vector table") || time.Since(t0) > 5*time.Second {
		t.Fatalf("Start = %v after %v, want the missing vector table at once", err, time.Since(t0))
	}
}

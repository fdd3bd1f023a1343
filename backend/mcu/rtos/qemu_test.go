package rtos

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// testdata/kernel.c as Cortex-M3 firmware in QEMU: the tasks, and the exact stack size and
// use of each, odd depths (heap, static, side by side) included, read from the running
// target's memory.
func TestTasksInQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	src, err := filepath.Abs("testdata/kernel.c")
	if err != nil {
		t.Fatal(err)
	}
	elf := firmware.BuildC(t, src, "")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tg, err := gdbremote.StartQEMUTarget(ctx, "mps2-an385", elf, gdbremote.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s := engine.NewSession(tg)
	defer s.Close()
	line := firmware.MarkerLine(t, src, "ready")
	if _, err := s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: src, Line: line}); err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h, err := s.WaitStop(ctx, seq); err != nil || h.Stop.Reason != engine.ReasonBreakpoint {
		t.Fatalf("stop %+v, %v", h, err)
	}
	k, err := Open(tg.Symbols())
	if err != nil {
		t.Fatal(err)
	}
	cur, err := k.Current(tg)
	if err != nil || cur == 0 {
		t.Fatalf("Current = %#x, %v", cur, err)
	}
	tasks, err := k.Tasks(tg)
	if err != nil {
		t.Fatal(err)
	}
	checkKernelTasks(t, tasks, cur, true)
}

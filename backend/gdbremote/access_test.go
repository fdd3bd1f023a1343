package gdbremote

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// Device stores through the core on QEMU: the device takes the value, and the core's
// registers and the stack bytes used for the instruction are as they were. Brief halts
// from several goroutines while the firmware runs (with SysTick interrupts) all succeed,
// and no stop but the final pause reaches the session.
func TestAccessQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	elf := buildFirmware(t)
	tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), "lm3s6965evb", elf, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if err := x.s.Start(true); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	if !tg.qemuStub() {
		t.Fatal("QEMU's stub was not recognised")
	}
	const ibrd = 0x4000C024 // UART0 integer baud-rate divisor: read-write, reads back
	regs := func() map[string]uint64 {
		out := map[string]uint64{}
		for _, n := range []string{"r0", "r1", "sp", "pc", "xpsr"} {
			r, _ := tg.desc.Reg(n)
			b, err := tg.c.ReadRegister(tg.ctx, r.Num)
			if err != nil {
				t.Fatal(err)
			}
			out[n] = Uint(b, tg.order)
		}
		return out
	}
	before := regs()
	scratch := (before["sp"] - 64) &^ 3
	stackBefore, _ := tg.c.ReadMemory(tg.ctx, scratch, 2)
	for _, v := range []uint64{0x1234, 0x0042} {
		err := tg.Access(func(m Access) error { return m.StoreIO(ibrd, []byte{byte(v), byte(v >> 8), 0, 0}) })
		if err != nil {
			t.Fatalf("StoreIO: %v", err)
		}
		var got []byte
		tg.Access(func(m Access) error { got, err = m.ReadMemory(ibrd, 4); return err })
		if Uint(got, tg.order) != v {
			t.Errorf("IBRD = %x after storing %#x", got, v)
		}
	}
	after := regs()
	for n, v := range before {
		if after[n] != v {
			t.Errorf("%s = %#x after the stores, was %#x", n, after[n], v)
		}
	}
	if stackAfter, _ := tg.c.ReadMemory(tg.ctx, scratch, 2); !bytes.Equal(stackAfter, stackBefore) {
		t.Errorf("stack bytes at %#x: %x, were %x", scratch, stackAfter, stackBefore)
	}
	// a byte store and a halfword store
	if err := tg.Access(func(m Access) error { return m.StoreIO(ibrd, []byte{0x77}) }); err != nil {
		t.Fatal(err)
	}
	if err := tg.Access(func(m Access) error { return m.StoreIO(ibrd, []byte{0x21, 0x43}) }); err != nil {
		t.Fatal(err)
	}

	// brief halts while it runs, from several goroutines at once
	loopsAt := func() uint64 {
		v, _ := tg.sym.Global("loops")
		l, _ := tg.sym.Locate(v, nil, nil)
		return l.Addr
	}()
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 25 {
				err := tg.Access(func(m Access) error {
					if g == 0 && i%5 == 0 {
						return m.StoreIO(ibrd, []byte{byte(i), 0, 0, 0})
					}
					_, err := m.ReadMemory(loopsAt, 4)
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a brief halt failed: %v", err)
	}
	if st := x.s.State(); st != engine.Running {
		t.Fatalf("after the brief halts the session is %s, not running", st)
	}
	intr := tg.c.stats.intr.Load()
	if err := tg.AccessStopped(func(Access) error { t.Error("AccessStopped ran on a running core"); return nil }); !errors.Is(err, ErrRunning) {
		t.Errorf("AccessStopped on a running core: %v", err)
	}
	if n := tg.c.stats.intr.Load() - intr; n != 0 {
		t.Errorf("AccessStopped interrupted the core %d times", n)
	}
	if err := x.s.Pause(); err != nil {
		t.Fatal(err)
	}
	if st := x.stopped(); st.Reason != engine.ReasonPause {
		t.Errorf("the first stop after the brief halts is %+v, want the pause", st)
	}
	if err := tg.AccessStopped(func(m Access) error { _, err := m.ReadMemory(loopsAt, 4); return err }); err != nil {
		t.Errorf("AccessStopped on a stopped core: %v", err)
	}
}

// A single step of a WFI that nothing will wake does not hang the session: past
// stepTimeout the step is interrupted and reports where the core is; a pause interrupts a
// step at once.
func TestStepWFIQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	elf := filepath.Join(t.TempDir(), "wfi.elf")
	cmd := exec.Command("arm-none-eabi-gcc", "-mcpu=cortex-m3", "-mthumb", "-g", "-O0", "-nostdlib", "-nostartfiles",
		"-T", filepath.Join(firmware.Dir(), "link.ld"), "-o", elf, "testdata/wfi/wfi.c")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("arm-none-eabi-gcc: %v\n%s", err, out)
	}
	tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), "lm3s6965evb", elf, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if err := x.s.Start(true); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	for range 10 { // to the wfi
		pc, _ := tg.PC()
		if code, _ := tg.c.ReadMemory(tg.ctx, pc, 2); len(code) == 2 && code[0] == 0x30 && code[1] == 0xbf {
			break
		}
		x.resume(engine.StepInstruction)
	}
	start := time.Now()
	st := x.resume(engine.StepInstruction)
	if d := time.Since(start); d > stepTimeout+5*time.Second {
		t.Errorf("the step took %v", d)
	}
	if st.Reason != engine.ReasonStep {
		t.Errorf("stop %+v", st)
	}
	t.Logf("the step of a WFI took %v", time.Since(start))
	if err := x.s.Resume(engine.StepInstruction); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Pause(); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	x.stopped()
	if d := time.Since(start); d > stepTimeout+5*time.Second {
		t.Errorf("a paused step took %v", d)
	}
}

package gdbremote

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
)

var machines = []string{"lm3s6965evb", "mps2-an385"}

type board struct {
	*stubSession
	elf string
}

func newBoard(t *testing.T, machine, elf string) *board {
	stub := startQEMU(t, machine, elf)
	c := dial(t, stub.Addr, Options{})
	s := newStubSession(t, stub, c, elf, fwSrc(t), 2, "msp", "psp")
	return &board{stubSession: s, elf: elf}
}

func (b *board) global(name string) elfsym.Value {
	b.t.Helper()
	v, ok := b.sym.Global(name)
	if !ok {
		b.t.Fatalf("no global %s", name)
	}
	val, err := b.sym.ReadVar(v, nil, memView{b.ctx, b.c})
	if err != nil {
		b.t.Fatal(err)
	}
	return val
}

func (b *board) globalAddr(name string) uint64 {
	b.t.Helper()
	v, ok := b.sym.Global(name)
	if !ok {
		b.t.Fatalf("no global %s", name)
	}
	l, err := b.sym.Locate(v, nil, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return l.Addr
}

func TestQEMU(t *testing.T) {
	elf := buildFirmware(t)
	for _, m := range machines {
		t.Run(m, func(t *testing.T) { testQEMUMachine(t, m, elf) })
	}
}

func testQEMUMachine(t *testing.T, machine, elf string) {
	b := newBoard(t, machine, elf)
	c, ctx := b.c, b.ctx
	if b.desc.Arch != "arm" {
		t.Errorf("arch %q", b.desc.Arch)
	}
	for i, name := range []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11", "r12", "sp", "lr", "pc"} {
		r, ok := b.desc.Reg(name)
		if !ok || r.Num != i || r.Bitsize != 32 {
			t.Errorf("register %s: %+v", name, r)
		}
	}
	if r, ok := b.desc.Reg("xpsr"); !ok || r.Bitsize != 32 {
		t.Errorf("xpsr: %+v", r)
	}
	sr, err := c.HaltReason(ctx)
	if err != nil || sr.Kind != StopSignal {
		t.Fatalf("? = %+v %v", sr, err)
	}
	// Halted at reset: the pc is the reset handler.
	if pc := b.pc(); pc != b.sym.Entry() {
		t.Fatalf("pc at reset %#x, want %#x", pc, b.sym.Entry())
	}
	if ids, err := c.Threads(ctx); err != nil || len(ids) == 0 {
		t.Errorf("threads %v %v", ids, err)
	}

	// A breakpoint in the function the SysTick handler calls: the backtrace goes through the
	// exception frame into the main loop.
	tick := b.line("tick_work")
	b.setBP(tick)
	b.cont()
	if pc := b.pc(); pc != tick {
		t.Fatalf("pc %#x want %#x", pc, tick)
	}
	fs := b.frames()
	names := frameNames(fs)
	if len(names) < 3 || names[0] != "tick_work" || names[1] != "SysTick_Handler" || names[len(names)-1] != "main" || !fs[2].Interrupted {
		t.Fatalf("backtrace through the exception: %v (interrupted %v)", names, fs[2].Interrupted)
	}
	if fs[1].Loc.Line != srcLine(t, fwSrc(t), "systick_call") {
		t.Errorf("handler frame at line %d", fs[1].Loc.Line)
	}
	b.clearBP(tick)

	// Globals.
	for _, ck := range []struct{ name, want string }{
		{"step", "1"},
		{"signed_val", "-42"},
		{"sample", `{a = 7, b = -3, c = "\001\002\003\004"}`},
	} {
		if v := b.global(ck.name); v.Text != ck.want {
			t.Errorf("%s = %q, want %q", ck.name, v.Text, ck.want)
		}
	}

	// A memory write the program sees: step = 5 makes loops grow by 5 per call of busy.
	busy := b.line("busy_add")
	b.setBP(busy)
	b.cont()
	if err := c.WriteMemory(ctx, b.globalAddr("step"), le32(5)); err != nil {
		t.Fatal(err)
	}
	l0 := b.global("loops")
	b.cont()
	l1 := b.global("loops")
	if d := atoi(l1.Text) - atoi(l0.Text); d != 5 {
		t.Errorf("loops went from %s to %s", l0.Text, l1.Text)
	}
	b.clearBP(busy)

	// Locals in compute; a register write the program sees: x (r0) at compute's first
	// instruction becomes 1000, so result = 3000 + step.
	comp, _ := b.sym.FuncByName("compute")
	entry := comp.Low + b.sym.Bias
	b.setBP(entry)
	b.cont()
	r0, _ := b.desc.Reg("r0")
	if err := c.WriteRegister(ctx, r0.Num, le32(1000)); err != nil {
		t.Fatal(err)
	}
	b.clearBP(entry)
	body := b.line("compute_body")
	b.setBP(body)
	b.cont()
	fs = b.frames()
	if got := strings.Join(frameNames(fs), " "); got != "compute busy main" {
		t.Errorf("backtrace %q", got)
	}
	xv, err := b.sym.LookupVar(fs[0].PC, "x")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := b.sym.ReadVar(xv, &fs[0], memView{ctx, c}); err != nil || v.Text != "1000" {
		t.Errorf("x = %+v %v", v, err)
	}
	b.clearBP(body)
	b.setBP(busy)
	b.cont()
	if v := b.global("result"); v.Text != "3005" {
		t.Errorf("result = %s, want 3005", v.Text)
	}

	// Single step at a breakpoint moves the pc (QEMU steps over its own breakpoint).
	before := b.pc()
	if _, err := c.StepOver(ctx, "", SoftwareBreak, before, 2); err != nil {
		t.Fatal(err)
	}
	if after := b.pc(); after == before {
		t.Errorf("step did not move the pc from %#x", before)
	}
	b.clearBP(busy)

	// Interrupt a running target.
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Interrupt(); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	sr, err = c.Wait(wctx)
	cancel()
	if err != nil || sr.Kind != StopSignal {
		t.Fatalf("interrupt: %+v %v", sr, err)
	}

	// A monitor command.
	if out, err := c.Monitor(ctx, "info version"); err != nil || !strings.Contains(out, ".") {
		t.Errorf("monitor info version: %q %v", out, err)
	}

	// Restart: back at the reset handler.
	if _, err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if pc := b.pc(); pc != b.sym.Entry() {
		t.Errorf("pc after restart %#x, want %#x", pc, b.sym.Entry())
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// For the same stop inside the SysTick handler, gdb reports the same registers and the
// same backtrace through the exception frame.
func TestQEMUCrossCheckGDB(t *testing.T) {
	elf := buildFirmware(t)
	b := newBoard(t, "mps2-an385", elf)
	b.setBP(b.line("tick_work"))
	b.cont()
	regs := b.regs()
	fs := b.frames()
	b.c.ClearBreakpoint(b.ctx, SoftwareBreak, b.line("tick_work"), 2)
	b.c.Close() // QEMU keeps the machine stopped for the next client
	out := gdbBatch(t, elf, "target remote "+b.stub.Addr, "info registers", "bt")
	gr := gdbRegs(out)
	for _, name := range []string{"r0", "r1", "r2", "r3", "r4", "r7", "r12", "sp", "lr", "pc", "xpsr"} {
		reg, _ := b.desc.Reg(name)
		ours := Uint(regs.vals[reg.Num], binary.LittleEndian)
		if g, ok := gr[name]; !ok || g != ours {
			t.Errorf("%s: gdb %#x, ours %#x", name, g, ours)
		}
	}
	bt := gdbBacktrace(out)
	ours := frameNames(fs)
	if len(bt) != len(fs) {
		t.Fatalf("gdb backtrace %v, ours %v\n%s", bt, ours, out)
	}
	for i, f := range bt {
		if f.fn != ours[i] || (f.pc != 0 && f.pc != fs[i].PC) {
			t.Errorf("frame %d: gdb %s %#x, ours %s %#x", i, f.fn, f.pc, ours[i], fs[i].PC)
		}
	}
}

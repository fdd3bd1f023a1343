package gdbremote

import (
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/realparts"
)

// native is one debugging session of testdata/native/loop.c under gdbserver.
type native struct {
	*stubSession
	prog string
}

func newNative(t *testing.T, args ...string) *native {
	prog := buildNative(t)
	stub := startGdbserver(t, prog, args...)
	c := dial(t, stub.Addr, Options{Extended: true})
	s := newStubSession(t, stub, c, prog, nativeSrc(t), 1)
	return &native{stubSession: s, prog: prog}
}

func (n *native) lineBP(name string, conds ...[]byte) uint64 {
	n.t.Helper()
	pc := n.line(name)
	n.setBP(pc, conds...)
	return pc
}

func (n *native) local(fr *elfsym.Frame, name string) elfsym.Value {
	n.t.Helper()
	v, err := n.sym.LookupVar(fr.PC-1+boolU(fr.Index == 0), name)
	if err != nil {
		n.t.Fatal(err)
	}
	val, err := n.sym.ReadVar(v, fr, memView{n.ctx, n.c})
	if err != nil {
		n.t.Fatal(err)
	}
	return val
}

func boolU(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func TestGdbserverSession(t *testing.T) {
	n := newNative(t)
	c, ctx := n.c, n.ctx
	if !c.NoAck() {
		t.Error("no-ack mode not negotiated")
	}
	if c.PacketSize() < 1000 {
		t.Errorf("PacketSize %d", c.PacketSize())
	}
	if !c.Extended() {
		t.Error("extended mode not negotiated")
	}
	if n.desc.Arch != "i386:x86-64" {
		t.Errorf("arch %q", n.desc.Arch)
	}
	for _, r := range []struct {
		name string
		bits int
	}{{"rax", 64}, {"rsp", 64}, {"rip", 64}, {"eflags", 32}} {
		reg, ok := n.desc.Reg(r.name)
		if !ok || reg.Bitsize != r.bits {
			t.Errorf("register %s: %+v %v", r.name, reg, ok)
		}
	}
	sr, err := c.HaltReason(ctx)
	if err != nil || sr.Kind != StopSignal || sr.Signal != 5 {
		t.Fatalf("? = %+v, %v", sr, err)
	}
	ids, err := c.Threads(ctx)
	if err != nil || len(ids) != 1 {
		t.Fatalf("threads %v %v", ids, err)
	}

	// A line breakpoint, continue, the expedited registers, locals and globals.
	bp := n.lineBP("work_add")
	sr = n.cont()
	if sr.Kind != StopSignal || sr.Signal != 5 || sr.Reason != "swbreak" {
		t.Fatalf("stop %+v", sr)
	}
	rip, _ := n.desc.Reg("rip")
	if b, ok := sr.Regs[rip.Num]; !ok || Uint(b, binary.LittleEndian) != bp {
		t.Fatalf("expedited rip %x, want %x", sr.Regs[rip.Num], bp)
	}
	if pc := n.pc(); pc != bp {
		t.Fatalf("pc %#x want %#x", pc, bp)
	}
	fs := n.frames()
	if got := strings.Join(frameNames(fs), " "); got != "work main" {
		t.Fatalf("backtrace %q", got)
	}
	if fs[0].Loc.Line != srcLine(t, nativeSrc(t), "work_add") || fs[1].Loc.Line != srcLine(t, nativeSrc(t), "loop_call") {
		t.Errorf("frame lines %+v %+v", fs[0].Loc, fs[1].Loc)
	}
	checks := []struct {
		fr         int
		name, want string
	}{
		{0, "i", "0"},
		{0, "p", "{x = 0, y = 0, tag = 112 'p'}"},
		{0, "arr", "{0, 1, 2}"},
		{1, "i", "0"},
		{1, "total", "0"},
		{1, "argc", "1"},
		{0, "counter", "0"},
		{0, "limit", "10000"},
		{0, "big", "1234567890123"},
		{0, "small", "65535"},
		{0, "ratio", "2.5"},
		{0, "numbers", "{10, 20, 30, 40, 50}"},
		{0, "origin", "{x = 3, y = 4, tag = 111 'o'}"},
	}
	for _, ck := range checks {
		if v := n.local(&fs[ck.fr], ck.name); v.Text != ck.want {
			t.Errorf("frame %d %s = %q (%s), want %q", ck.fr, ck.name, v.Text, v.Type, ck.want)
		}
	}
	if v := n.local(&fs[0], "greeting"); !strings.HasSuffix(v.Text, `"hello"`) || v.Type != "const char *" {
		t.Errorf("greeting = %q %q", v.Text, v.Type)
	}
	if v := n.local(&fs[0], "ptr"); len(v.Children) != 1 || v.Children[0].Text != "1" {
		t.Errorf("ptr = %+v", v)
	}
	if v := n.local(&fs[0], "origin_ptr"); len(v.Children) != 1 || v.Children[0].Text != "{x = 3, y = 4, tag = 111 'o'}" {
		t.Errorf("origin_ptr = %+v", v)
	}

	// Continue hits the breakpoint again with the next i.
	n.cont()
	if v := n.local(&n.frames()[0], "i"); v.Text != "1" {
		t.Errorf("second hit i = %s", v.Text)
	}

	// Single step moves the pc; the step stop reply is a T05 too.
	before := n.pc()
	if sr, err := c.StepOver(ctx, "", SoftwareBreak, before, 1); err != nil || sr.Kind != StopSignal {
		t.Fatalf("step: %+v %v", sr, err)
	}
	if after := n.pc(); after == before {
		t.Errorf("step did not move the pc from %#x", before)
	}
	n.clearBP(bp)

	// Recursion: factorial's base case is five frames of factorial above main.
	n.lineBP("fact_base")
	n.cont()
	fs = n.frames()
	if got := strings.Join(frameNames(fs), " "); got != "factorial factorial factorial factorial factorial main" {
		t.Fatalf("recursive backtrace %q", got)
	}
	for i := range 5 {
		if v := n.local(&fs[i], "n"); v.Text != string(rune('1'+i)) {
			t.Errorf("frame %d n = %s", i, v.Text)
		}
	}
	if v := n.local(&fs[5], "i"); v.Text != "10000" {
		t.Errorf("main i = %s", v.Text)
	}

	// A monitor command's output comes back in O packets.
	out, err := c.Monitor(ctx, "help")
	if err != nil || !strings.Contains(out, "monitor") {
		t.Errorf("monitor help: %q %v", out, err)
	}

	// The program runs to its end: counter % 200 is the exit status.
	sr = n.contNoBP()
	if sr.Kind != StopExited || sr.Signal != 10000%200 {
		t.Fatalf("exit %+v", sr)
	}
	// the output pipe is read asynchronously: poll for it
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(n.stub.Output(), "counter=10000") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(n.stub.Output(), "counter=10000") {
		t.Errorf("program output %q", n.stub.Output())
	}
}

func (n *native) contNoBP() StopReply {
	n.t.Helper()
	for pc := range n.bps {
		n.clearBP(pc)
	}
	return n.cont()
}

// Memory and register writes change what the program does.
func TestGdbserverWrites(t *testing.T) {
	n := newNative(t)
	c, ctx := n.c, n.ctx
	bp := n.lineBP("work_add")
	n.cont()
	// limit = 3: the loop ends after three calls.
	limit, ok := n.sym.Global("limit")
	if !ok {
		t.Fatal("no global limit")
	}
	loc, err := n.sym.Locate(limit, nil, memView{ctx, c})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMemory(ctx, loc.Addr, []byte{3, 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if b, err := c.ReadMemory(ctx, loc.Addr, 4); err != nil || b[0] != 3 {
		t.Fatalf("read back %x %v", b, err)
	}
	n.clearBP(bp)
	// At add's first instruction, b (rsi) is 1: make it 100 once.
	add, _ := n.sym.FuncByName("add")
	addPC := add.Low + n.sym.Bias
	n.setBP(addPC)
	n.cont()
	if pc := n.pc(); pc != addPC {
		t.Fatalf("pc %#x want %#x", pc, addPC)
	}
	rsi, _ := n.desc.Reg("rsi")
	if err := c.WriteRegister(ctx, rsi.Num, binary.LittleEndian.AppendUint64(nil, 100)); err != nil {
		t.Fatal(err)
	}
	if b, err := c.ReadRegister(ctx, rsi.Num); err != nil || Uint(b, binary.LittleEndian) != 100 {
		t.Fatalf("rsi read back %x %v", b, err)
	}
	n.clearBP(addPC)
	sr := n.cont()
	// counter = 100 + 1 + 1
	if sr.Kind != StopExited || sr.Signal != 102 {
		t.Fatalf("exit %+v; output %q", sr, n.stub.Output())
	}
	// G: write back all registers unchanged works after a restart.
	sr, err = c.Restart(ctx)
	if err != nil || sr.Kind != StopSignal {
		t.Fatalf("restart: %+v %v", sr, err)
	}
	g, err := c.ReadRegisters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteRegisters(ctx, g); err != nil {
		t.Fatal(err)
	}
}

// A write watchpoint (Z2) stops where the program writes the variable, with the address
// in the stop reply; detaching (D) lets the program run to its end.
func TestGdbserverWatchAndDetach(t *testing.T) {
	realparts.NeedHardwareWatchpoints(t)
	n := newNative(t)
	c, ctx := n.c, n.ctx
	n.setBP(n.sym.Entry())
	n.cont() // past the dynamic loader: the program's memory is mapped
	n.clearBP(n.sym.Entry())
	v, ok := n.sym.Global("counter")
	if !ok {
		t.Fatal("no global counter")
	}
	loc, err := n.sym.Locate(v, nil, memView{ctx, c})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SetWatchpoint(ctx, WriteWatch, loc.Addr, 4); err != nil {
		t.Fatal(err)
	}
	sr := n.cont()
	if sr.Kind != StopSignal || sr.Reason != "watch" || sr.WatchAddr != loc.Addr {
		t.Fatalf("stop %+v, want a watch stop at %#x", sr, loc.Addr)
	}
	if fs := n.frames(); len(fs) < 2 || fs[0].Func == nil || fs[0].Func.Name != "work" {
		t.Errorf("watch stop in %v, want work", frameNames(fs))
	}
	if b, err := c.ReadMemory(ctx, loc.Addr, 4); err != nil || b[0] != 1 {
		t.Errorf("counter after the first write: %x %v", b, err)
	}
	if err := c.ClearWatchpoint(ctx, WriteWatch, loc.Addr, 4); err != nil {
		t.Fatal(err)
	}
	if err := c.Detach(ctx); err != nil {
		t.Fatal(err)
	}
	// the program runs on (gdbserver stays, in extended mode) and ends
	for deadline := time.Now().Add(15 * time.Second); !strings.Contains(n.stub.Output(), "counter=10000"); {
		if time.Now().After(deadline) {
			t.Fatalf("output of the detached program %q", n.stub.Output())
		}
		n.stub.DrainOutput()
		time.Sleep(10 * time.Millisecond) // polling, bounded by the deadline
	}
}

// A condition compiled to an agent expression is evaluated by gdbserver: the client sees
// one stop only, where the condition holds.
func TestGdbserverTargetCondition(t *testing.T) {
	n := newNative(t)
	if !n.c.Supports("ConditionalBreakpoints") {
		t.Fatal("gdbserver does not announce ConditionalBreakpoints+")
	}
	line := srcLine(t, nativeSrc(t), "work_add")
	pcs, _, err := n.sym.LineToPCs("loop.c", line)
	if err != nil {
		t.Fatal(err)
	}
	expr, err := CompileCondition("i == 7 || counter == 4000 && limit > 5", n.resolver(pcs[0]))
	if err != nil {
		t.Fatal(err)
	}
	n.setBP(pcs[0], expr)
	before := n.c.Stats()
	n.cont()
	if v := n.local(&n.frames()[0], "i"); v.Text != "7" {
		t.Fatalf("stopped with i = %s", v.Text)
	}
	n.cont()
	if v := n.local(&n.frames()[0], "i"); v.Text != "4000" {
		t.Fatalf("stopped with i = %s", v.Text)
	}
	if d := n.c.Stats().PacketsSent - before.PacketsSent; d > 40 {
		t.Errorf("%d packets for two conditional stops", d)
	}
}

func (n *native) resolver(pc uint64) AgentResolver {
	return func(name string) (AgentVar, error) {
		v, err := n.sym.LookupVar(pc, name)
		if err != nil {
			return AgentVar{}, err
		}
		sl, err := n.sym.StaticLocation(v, pc)
		if err != nil {
			return AgentVar{}, err
		}
		av := AgentVar{InReg: sl.InReg, Reg: -1, Offset: sl.Offset, Size: v.Size(), Signed: strings.Contains(v.TypeName(), "int") && !strings.Contains(v.TypeName(), "unsigned")}
		if sl.Reg >= 0 {
			reg, ok := n.desc.Reg(n.sym.Arch.RegName(sl.Reg))
			if !ok {
				return AgentVar{}, err
			}
			av.Reg = reg.Num
		}
		return av, nil
	}
}

// For the same stop, gdb reports the same registers and backtrace.
func TestGdbserverCrossCheckGDB(t *testing.T) {
	n := newNative(t)
	n.lineBP("fact_base")
	n.cont()
	regs := n.regs()
	fs := n.frames()
	// Leave the stop as it is: close the connection without detaching. gdbserver in
	// extended mode keeps the process stopped and waits for the next client.
	n.c.Close()
	out := gdbBatch(t, n.prog, "target extended-remote "+n.stub.Addr, "info registers", "bt")
	gr := gdbRegs(out)
	for _, name := range []string{"rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", "r8", "r12", "r15", "rip"} {
		reg, _ := n.desc.Reg(name)
		ours := Uint(regs.vals[reg.Num], binary.LittleEndian)
		if g, ok := gr[name]; !ok || g != ours {
			t.Errorf("%s: gdb %#x, ours %#x", name, g, ours)
		}
	}
	bt := gdbBacktrace(out)
	if len(bt) != len(fs) {
		t.Fatalf("gdb backtrace %v, ours %v\n%s", bt, frameNames(fs), out)
	}
	for i, f := range bt {
		if f.fn != frameNames(fs)[i] || (f.pc != 0 && f.pc != fs[i].PC) {
			t.Errorf("frame %d: gdb %s %#x, ours %s %#x", i, f.fn, f.pc, frameNames(fs)[i], fs[i].PC)
		}
	}
}

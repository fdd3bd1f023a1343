package gdbremote

import (
	"context"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// srcLine finds the line of a "LINE:name" marker in a testdata source.
func srcLine(t testing.TB, src, name string) int {
	t.Helper()
	return firmware.MarkerLine(t, src, name)
}

func nativeSrc(t testing.TB) string {
	p, err := filepath.Abs("testdata/native/loop.c")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fwSrc is the test firmware's source (internal/firmware/testdata/fw.c).
func fwSrc(testing.TB) string { return firmware.Source() }

// buildNative builds testdata/native/loop.c with gcc -g -O0 into a temp dir.
func buildNative(t testing.TB) string {
	t.Helper()
	realparts.Need(t, "gcc")
	out := filepath.Join(t.TempDir(), "loop")
	cmd := exec.Command("gcc", "-g", "-O0", "-o", out, nativeSrc(t))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// buildC builds a C program given as source with gcc -g -O0 (and flags) into a temp dir.
func buildC(t testing.TB, src string, flags ...string) string {
	t.Helper()
	realparts.Need(t, "gcc")
	return buildCOpt(t, src, append([]string{"-O0"}, flags...)...)
}

// buildFirmware builds the test firmware for Cortex-M3 into a temp dir.
func buildFirmware(t testing.TB) string { return firmware.Build(t) }

func testCtx(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func startGdbserver(t testing.TB, prog string, args ...string) *Stub {
	t.Helper()
	realparts.Need(t, "gdbserver")
	s, err := StartGdbserver(testCtx(t, 20*time.Second), prog, args, StubOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

func startQEMU(t testing.TB, machine, elf string) *Stub {
	t.Helper()
	realparts.Need(t, "qemu-system-arm")
	s, err := StartQEMU(testCtx(t, 20*time.Second), machine, elf, StubOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	return s
}

func dial(t testing.TB, addr string, opts Options) *Client {
	t.Helper()
	c, err := Dial(testCtx(t, 10*time.Second), addr, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// regView adapts a 'g' reply and a target description to elfsym.Registers.
type regView struct {
	arch *elfsym.Arch
	desc *TargetDesc
	vals map[int][]byte
}

func (r *regView) Register(n int) (uint64, bool) {
	name := r.arch.RegName(n)
	switch n {
	case elfsym.RegARMPSP:
		name = "psp"
	case elfsym.RegARMMSP:
		name = "msp"
	}
	reg, ok := r.desc.Reg(name)
	if !ok {
		return 0, false
	}
	b, ok := r.vals[reg.Num]
	if !ok {
		return 0, false
	}
	return Uint(b, r.arch.ByteOrder), true
}

type memView struct {
	ctx context.Context
	c   *Client
}

func (m memView) ReadMemory(addr uint64, n int) ([]byte, error) {
	return m.c.ReadMemory(m.ctx, addr, n)
}

// readRegs reads all registers ('g', plus 'p' for those outside it).
func readRegs(t testing.TB, ctx context.Context, c *Client, d *TargetDesc, extra ...string) map[int][]byte {
	t.Helper()
	g, err := c.ReadRegisters(ctx)
	if err != nil {
		t.Fatal(err)
	}
	vals := d.SplitG(g)
	for _, name := range extra {
		if r, ok := d.Reg(name); ok {
			if _, have := vals[r.Num]; !have {
				if b, err := c.ReadRegister(ctx, r.Num); err == nil {
					vals[r.Num] = b
				}
			}
		}
	}
	return vals
}

// gdbBatch runs gdb-multiarch -batch connected to addr and returns its output.
func gdbBatch(t testing.TB, elf, target string, cmds ...string) string {
	t.Helper()
	realparts.Need(t, "gdb-multiarch")
	args := []string{"-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off",
		"-ex", "file " + elf, "-ex", target}
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "gdb-multiarch", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb-multiarch: %v\n%s", err, out)
	}
	return string(out)
}

var (
	gdbRegRE   = regexp.MustCompile(`(?m)^(\w+)\s+(0x[0-9a-f]+)\s`)
	gdbFrameRE = regexp.MustCompile(`(?m)^#(\d+)\s+(?:(0x[0-9a-f]+) in )?(\S+) \(`)
)

// gdbRegs parses `info registers` output.
func gdbRegs(out string) map[string]uint64 {
	m := map[string]uint64{}
	for _, g := range gdbRegRE.FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseUint(g[2][2:], 16, 64)
		if err == nil {
			m[g[1]] = v
		}
	}
	return m
}

type gdbFrame struct {
	fn string
	pc uint64 // 0 for frame 0 (gdb prints no pc there when it has a line)
}

// gdbBacktrace parses `bt` output, skipping "<signal handler called>".
func gdbBacktrace(out string) []gdbFrame {
	var fs []gdbFrame
	for _, g := range gdbFrameRE.FindAllStringSubmatch(out, -1) {
		f := gdbFrame{fn: g[3]}
		if g[2] != "" {
			f.pc, _ = strconv.ParseUint(g[2][2:], 16, 64)
		}
		fs = append(fs, f)
	}
	return fs
}

func frameNames(fs []elfsym.Frame) []string {
	var out []string
	for _, f := range fs {
		if f.Func != nil {
			out = append(out, f.Func.Name)
		} else {
			out = append(out, fmt.Sprintf("%#x", f.PC))
		}
	}
	return out
}

func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// stubSession is a session of the raw client on a stub (no engine), with the breakpoints
// it set: the fixture of the gdbserver and QEMU client tests.
type stubSession struct {
	t         *testing.T
	ctx       context.Context
	stub      *Stub
	c         *Client
	sym       *elfsym.File
	desc      *TargetDesc
	bps       map[uint64][][]byte // address -> conditions
	bpLen     int                 // breakpoint kind: 1 on x86, 2 for Thumb
	src       string              // the program's source file
	extraRegs []string            // registers outside 'g' that unwinding needs
}

func newStubSession(t *testing.T, stub *Stub, c *Client, elf, src string, bpLen int, extraRegs ...string) *stubSession {
	t.Helper()
	ctx := testCtx(t, 40*time.Second)
	sym, err := elfsym.Open(elf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sym.Close() })
	if _, err := c.HaltReason(ctx); err != nil {
		t.Fatal(err)
	}
	if sym.IsPIE() {
		aux, err := c.Auxv(ctx, sym.Arch.PtrSize, sym.Arch.ByteOrder)
		if err != nil {
			t.Fatal(err)
		}
		sym.Bias = aux[9] - sym.ELF.Entry // AT_ENTRY
	}
	desc, err := c.ReadTargetDesc(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return &stubSession{t: t, ctx: ctx, stub: stub, c: c, sym: sym, desc: desc, bps: map[uint64][][]byte{},
		bpLen: bpLen, src: src, extraRegs: extraRegs}
}

// line is the address of the source line marked LINE:name.
func (s *stubSession) line(name string) uint64 {
	s.t.Helper()
	line := srcLine(s.t, s.src, name)
	file := filepath.Base(s.src)
	pcs, got, err := s.sym.LineToPCs(file, line)
	if err != nil || len(pcs) != 1 || got != line {
		s.t.Fatalf("LineToPCs(%s:%d) = %x, %d, %v", file, line, pcs, got, err)
	}
	return pcs[0]
}

func (s *stubSession) setBP(pc uint64, conds ...[]byte) {
	s.t.Helper()
	if _, err := s.c.SetBreakpoint(s.ctx, pc, s.bpLen, conds...); err != nil {
		s.t.Fatal(err)
	}
	s.bps[pc] = append([][]byte{}, conds...)
}

func (s *stubSession) clearBP(pc uint64) {
	s.t.Helper()
	if err := s.c.ClearBreakpoint(s.ctx, SoftwareBreak, pc, s.bpLen); err != nil {
		s.t.Fatal(err)
	}
	delete(s.bps, pc)
}

func (s *stubSession) pc() uint64 {
	s.t.Helper()
	pc, err := s.c.PC(s.ctx, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	return pc
}

// cont steps off a breakpoint it is stopped at, continues and waits for the stop.
func (s *stubSession) cont() StopReply {
	s.t.Helper()
	if pc := s.pc(); s.bps[pc] != nil {
		if _, err := s.c.StepOver(s.ctx, "", SoftwareBreak, pc, s.bpLen, s.bps[pc]...); err != nil {
			s.t.Fatal(err)
		}
	}
	if err := s.c.Continue(s.ctx); err != nil {
		s.t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(s.ctx, 15*time.Second)
	defer cancel()
	sr, err := s.c.Wait(wctx)
	if err != nil {
		s.t.Fatal(err)
	}
	return sr
}

func (s *stubSession) regs() *regView {
	return &regView{arch: s.sym.Arch, desc: s.desc, vals: readRegs(s.t, s.ctx, s.c, s.desc, s.extraRegs...)}
}

func (s *stubSession) frames() []elfsym.Frame {
	s.t.Helper()
	fs, err := s.sym.Unwind(s.regs(), memView{s.ctx, s.c}, 64)
	if err != nil {
		s.t.Fatal(err)
	}
	return fs
}

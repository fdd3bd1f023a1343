package elfsym

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

const nativeSrc = "../gdbremote/testdata/native/loop.c"

func srcLine(t *testing.T, src, name string) int {
	t.Helper()
	return firmware.MarkerLine(t, src, name)
}

func build(t testing.TB, cc string, args ...string) *File {
	t.Helper()
	realparts.Need(t, cc)
	out := filepath.Join(t.TempDir(), "a.out")
	cmd := exec.Command(cc, append(args, "-o", out)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, b)
	}
	f, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func buildNative(t testing.TB, extra ...string) *File {
	return build(t, "gcc", append([]string{"-g", "-O0", nativeSrc}, extra...)...)
}

func buildFW(t *testing.T) *File {
	f, err := Open(firmware.Build(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestNativeSymbols(t *testing.T) {
	for _, pie := range []bool{true, false} {
		var f *File
		if pie {
			f = buildNative(t)
			f.Bias = 0x555555554000
		} else {
			f = buildNative(t, "-no-pie")
		}
		if f.IsPIE() != pie || f.Arch.Name != "x86-64" {
			t.Fatalf("pie=%v arch=%s", f.IsPIE(), f.Arch.Name)
		}
		for _, name := range []string{"main", "work", "add", "factorial"} {
			fn, ok := f.FuncByName(name)
			if !ok || fn.High <= fn.Low || fn.entry == 0 {
				t.Errorf("func %s: %+v", name, fn)
				continue
			}
			if got := f.FuncAt(fn.Low + f.Bias + 1); got != fn {
				t.Errorf("FuncAt inside %s = %v", name, got)
			}
		}
		// file:line both ways
		line := srcLine(t, nativeSrc, "work_add")
		pcs, got, err := f.LineToPCs("loop.c", line)
		if err != nil || len(pcs) != 1 || got != line {
			t.Fatalf("LineToPCs: %x %d %v", pcs, got, err)
		}
		loc, ok := f.PCToLine(pcs[0])
		if !ok || loc.Line != line || loc.Function != "work" || !strings.HasSuffix(loc.File, "loop.c") {
			t.Errorf("PCToLine(%#x) = %+v", pcs[0], loc)
		}
		// the empty line after the call moves to the next line with code
		pcs, got, err = f.LineToPCs("native/loop.c", srcLine(t, nativeSrc, "loop_call")+1)
		if err != nil || got != srcLine(t, nativeSrc, "loop_total") || len(pcs) != 1 {
			t.Errorf("empty line: %x %d %v", pcs, got, err)
		}
		if _, _, err := f.LineToPCs("loop.c", 10000); err == nil {
			t.Error("line past the end has code")
		}
		if _, _, err := f.LineToPCs("nosuch.c", 1); err == nil {
			t.Error("unknown file has code")
		}
		// a function breakpoint goes after the prologue, on the first statement's line
		bp, err := f.FuncBreakpoint("add")
		if err != nil {
			t.Fatal(err)
		}
		if loc, _ := f.PCToLine(bp); loc.Line != srcLine(t, nativeSrc, "add_body") {
			t.Errorf("breakpoint on add at line %d", loc.Line)
		}
		// line range of a statement contains its pc
		s, e, ok := f.LineRange(bp)
		if !ok || s > bp || e <= bp {
			t.Errorf("LineRange(%#x) = %#x %#x %v", bp, s, e, ok)
		}
		if !f.IsStmt(bp) {
			t.Errorf("%#x is not a statement", bp)
		}
		// CFI: at a function's first instruction the CFA is rsp+8 and the return address at CFA-8.
		add, _ := f.FuncByName("add")
		fde := f.frames.find(add.Low)
		if fde == nil {
			t.Fatal("no FDE for add")
		}
		row, err := f.frames.rowAt(fde, add.Low)
		if err != nil || row.cfa.reg != 7 || row.cfa.off != 8 || row.regs[16].kind != ruleOffset || row.regs[16].off != -8 {
			t.Errorf("row at entry: %+v %v", row, err)
		}
		row, _ = f.frames.rowAt(fde, bp-f.Bias)
		if row.cfa.reg != 6 || row.cfa.off != 16 {
			t.Errorf("row after prologue: %+v", row)
		}
		// variables
		params, locals, err := f.FrameVars(pcs[0])
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, v := range append(params, locals...) {
			names = append(names, v.Name+":"+v.TypeName())
		}
		if got := strings.Join(names, " "); got != "argc:int argv:char ** i:int total:int" {
			t.Errorf("main's variables: %s", got)
		}
		wv, err := f.LookupVar(f.Bias+mustFunc(t, f, "work").Low+8, "p")
		if err != nil || wv.TypeName() != "struct point" || wv.Size() != 12 {
			t.Errorf("work's p: %+v %v", wv, err)
		}
		sl, err := f.StaticLocation(wv, bp)
		if err == nil {
			t.Errorf("p of work located at add's pc: %+v", sl)
		}
		sl, err = f.StaticLocation(wv, f.Bias+mustFunc(t, f, "work").Low+8)
		if err != nil || sl.Reg != 6 || sl.InReg {
			t.Errorf("static location of p: %+v %v", sl, err)
		}
		g, ok := f.Global("numbers")
		if !ok || g.TypeName() != "int [5]" {
			t.Fatalf("numbers: %+v", g)
		}
		gl, err := f.StaticLocation(g, 0)
		addr, _, _ := f.Symbol("numbers")
		if err != nil || gl.Reg != -1 || uint64(gl.Offset) != addr {
			t.Errorf("numbers at %+v (symbol %#x) %v", gl, addr, err)
		}
		for name, want := range map[string]string{"greeting": "const char *", "origin_ptr": "struct point *", "small": "unsigned short", "ratio": "double"} {
			if v, ok := f.Global(name); !ok || v.TypeName() != want {
				t.Errorf("%s: %v", name, v)
			}
		}
	}
}

func mustFunc(t *testing.T, f *File, name string) *Func {
	fn, ok := f.FuncByName(name)
	if !ok {
		t.Fatalf("no %s", name)
	}
	return fn
}

// fakeMem is memory as a map of words.
type fakeMem map[uint64]byte

func (m fakeMem) ReadMemory(addr uint64, n int) ([]byte, error) {
	b := make([]byte, n)
	for i := range b {
		b[i] = m[addr+uint64(i)]
	}
	return b, nil
}

func (m fakeMem) put32(a uint64, v uint32) {
	for i := range 4 {
		m[a+uint64(i)] = byte(v >> (8 * i))
	}
}

// Unwinding through a Cortex-M exception frame, on synthetic registers and stack: stopped
// at tick_work's first instruction, called from SysTick_Handler, which interrupted busy.
func TestCortexMExceptionUnwind(t *testing.T) {
	f := buildFW(t)
	if f.Arch.Machine != elf.EM_ARM || f.ELF.Entry&1 == 0 || f.Entry()&1 != 0 {
		t.Fatalf("arch %v entry %#x", f.Arch.Machine, f.ELF.Entry)
	}
	tick := mustFunc(t, f, "tick_work")
	handler := mustFunc(t, f, "SysTick_Handler")
	busy := mustFunc(t, f, "busy")
	// the handler's call to tick_work: a return address inside SysTick_Handler
	line := firmware.Line(t, "systick_call")
	callPCs, _, err := f.LineToPCs("fw.c", line)
	if err != nil {
		t.Fatal(err)
	}
	retInHandler := callPCs[0] + 4 | 1
	interrupted := busy.Low + 6
	mem := fakeMem{}
	const sp0 = 0x2000fe00
	// SysTick_Handler pushes {r7, lr} (gcc -O0): find its CFA offset after the prologue
	fde := f.frames.find(handler.Low)
	row, err := f.frames.rowAt(fde, callPCs[0])
	if err != nil || row.cfa.reg != 7 && row.cfa.reg != 13 {
		t.Fatalf("handler row %+v %v", row, err)
	}
	// Build the handler's frame: CFA = sp0 + cfaOff; saved lr at CFA+off(14).
	regs := regsOf(map[int]uint64{13: sp0, 7: sp0, 14: uint64(retInHandler), 15: tick.Low})
	cfa := uint64(int64(sp0) + row.cfa.off)
	for reg, r := range row.regs {
		if r.kind == ruleOffset {
			v := uint32(0x11110000 + reg)
			if reg == 14 {
				v = 0xFFFFFFF9
			}
			mem.put32(uint64(int64(cfa)+r.off), v)
		}
	}
	// the hardware frame at the handler's CFA
	for i, v := range []uint32{1, 2, 3, 4, 12, uint32(mustFunc(t, f, "main").Low + 9), uint32(interrupted), 0x61000000} {
		mem.put32(cfa+uint64(4*i), v)
	}
	frames, err := f.Unwind(regs, mem, 10)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fr := range frames {
		if fr.Func != nil {
			names = append(names, fr.Func.Name)
		}
	}
	if strings.Join(names[:3], " ") != "tick_work SysTick_Handler busy" || !frames[2].Interrupted || frames[2].PC != interrupted {
		t.Fatalf("frames %v, %+v", names, frames[2])
	}
	if r0, _ := frames[2].Register(0); r0 != 1 {
		t.Errorf("stacked r0 = %d", r0)
	}
	if sp, _ := frames[2].Register(13); sp != cfa+32 {
		t.Errorf("sp after the exception frame %#x, want %#x", sp, cfa+32)
	}
}

package elfsym

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

func TestMain(m *testing.M) {
	code := m.Run()
	firmware.RemoveCorpus()
	os.Exit(code)
}

// The source line of every code address (every address inside a function symbol, every 2
// bytes on Thumb) of every corpus build agrees with addr2line's, --gc-sections builds
// included.
func TestLinesAgreeWithAddr2line(t *testing.T) {
	total := 0
	for _, b := range firmware.CorpusBuilds() {
		path, f := openCorpus(t, b)
		tool := tools(b, "addr2line")
		realparts.Need(t, tool)
		addrs := codeAddrs(t, f)
		want := addr2line(t, tool, path, addrs)
		got := make([]string, len(addrs))
		var differ []int
		for i, a := range addrs {
			got[i] = "??"
			if loc, ok := f.PCToLine(a); ok {
				got[i] = fmt.Sprintf("%s:%d", filepath.Base(loc.File), loc.Line)
			}
			if got[i] != want[i] {
				differ = append(differ, i)
			}
		}
		// Where addr2line (binutils 2.40) and polydbg differ, gdb decides: addr2line still
		// reads a discarded sequence at 0 where it overlaps real code just above the vector
		// table, and of several rows at one address it takes the last even when that is not
		// a statement; gdb takes the last statement, and so does polydbg.
		judged := 0
		if len(differ) > 0 {
			gdb := tools(b, "gdb")
			realparts.Need(t, gdb)
			var as []uint64
			for _, i := range differ {
				as = append(as, addrs[i])
			}
			byGDB := gdbInfoLine(t, gdb, path, as)
			for k, i := range differ {
				if byGDB[k] == got[i] {
					judged++
					continue
				}
				t.Errorf("%s: %#x: polydbg %s, addr2line %s, gdb %s", b, addrs[i], got[i], want[i], byGDB[k])
			}
		}
		t.Logf("%s: %d addresses, %d agree with addr2line, %d with gdb where addr2line differs",
			b, len(addrs), len(addrs)-len(differ), judged)
		total += len(addrs)
	}
	if total < 10000 {
		t.Errorf("only %d addresses compared", total)
	}
}

// codeAddrs lists every address inside the function symbols of f.
func codeAddrs(t *testing.T, f *File) []uint64 {
	syms, err := f.ELF.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	step := uint64(1)
	if f.Arch.Machine == elf.EM_ARM {
		step = 2
	}
	seen := map[uint64]bool{}
	var out []uint64
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Section == elf.SHN_UNDEF || s.Size == 0 {
			continue
		}
		lo := f.ClearThumb(s.Value)
		for a := lo; a < lo+s.Size; a += step {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// addr2line asks tool for the file:line of each address ("??" when it knows none).
func addr2line(t *testing.T, tool, path string, addrs []uint64) []string {
	var in bytes.Buffer
	for _, a := range addrs {
		fmt.Fprintf(&in, "%#x\n", a)
	}
	cmd := exec.Command(tool, "-e", path)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var res []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		l, _, _ := strings.Cut(sc.Text(), " (discriminator")
		file, line, _ := strings.Cut(l, ":")
		if file == "??" || line == "?" || line == "0" {
			res = append(res, "??")
			continue
		}
		res = append(res, filepath.Base(file)+":"+line)
	}
	if len(res) != len(addrs) {
		t.Fatalf("%s answered %d lines for %d addresses", tool, len(res), len(addrs))
	}
	return res
}

// gdbInfoLine asks gdb for the file:line of each address ("??" when it knows none).
func gdbInfoLine(t *testing.T, gdb, path string, addrs []uint64) []string {
	args := []string{"-nx", "-batch", path}
	for _, a := range addrs {
		args = append(args, "-ex", fmt.Sprintf("info line *%#x", a))
	}
	out, err := exec.Command(gdb, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", gdb, err, out)
	}
	var res []string
	for _, l := range strings.Split(string(out), "\n") {
		var line int
		var file string
		switch {
		case strings.HasPrefix(l, "No line number"):
			res = append(res, "??")
		case strings.HasPrefix(l, "Line "):
			if _, err := fmt.Sscanf(l, "Line %d of %q", &line, &file); err != nil {
				t.Fatalf("gdb said %q", l)
			}
			res = append(res, fmt.Sprintf("%s:%d", filepath.Base(file), line))
		}
	}
	if len(res) != len(addrs) {
		t.Fatalf("%s answered %d lines for %d addresses:\n%s", gdb, len(res), len(addrs), out)
	}
	return res
}

// Code the linker discarded (--gc-sections) is not in the binary: its DWARF is ignored and
// a breakpoint on it is an error, where before it answered addresses in the vector table.
func TestDiscardedCode(t *testing.T) {
	for _, b := range []firmware.Variant{{Opt: "-O0", GC: true, NoEntry: true}, {Native: true, Opt: "-O2", GC: true}} {
		_, f := openCorpus(t, b)
		for _, name := range []string{"unused_sum", "unused_twice"} {
			if pc, err := f.FuncBreakpoint(name); !errors.Is(err, ErrNoCode) || !strings.Contains(err.Error(), "no code for "+name) {
				t.Errorf("%s: break %s = %#x, %v", b, name, pc, err)
			}
		}
		line := firmware.CorpusLine(t, "corpus.c", "unused_body")
		if pcs, _, err := f.LineToPCs("corpus.c", line); !errors.Is(err, ErrNoCode) {
			t.Errorf("%s: break corpus.c:%d = %#x, %v", b, line, pcs, err)
		}
		// a blank line between two functions still moves on to the next one, as in gdb
		leaf := firmware.CorpusLine(t, "corpus.c", "leaf")
		pcs, _, err := f.LineToPCs("corpus.c", leaf-3)
		if err != nil || len(pcs) != 1 {
			t.Fatalf("%s: break corpus.c:%d = %#x, %v", b, leaf-3, pcs, err)
		}
		if loc, _ := f.PCToLine(pcs[0]); loc.Line != leaf || loc.Function != "leaf" {
			t.Errorf("%s: break corpus.c:%d at %+v", b, leaf-3, loc)
		}
		if b.Native {
			continue
		}
		// Reset_Handler's address maps to startup_m3.c, not to a discarded sequence at 0
		rh := mustFunc(t, f, "Reset_Handler")
		if loc, ok := f.PCToLine(rh.Low); !ok || filepath.Base(loc.File) != "startup_m3.c" || loc.Function != "Reset_Handler" {
			t.Errorf("%s: Reset_Handler at %+v", b, loc)
		}
		for _, fn := range f.Funcs() {
			if fn.Low == 0 {
				t.Errorf("%s: function %s at 0", b, fn.Name)
			}
		}
	}
}

// `break FUNC` goes where gdb puts it, for every function of the corpus in every build
// (after the prologue, which in optimised code is often the function's first address).
func TestFuncBreakpointsAgreeWithGDB(t *testing.T) {
	n := 0
	for _, b := range firmware.CorpusBuilds() {
		path, f := openCorpus(t, b)
		gdb := tools(b, "gdb")
		realparts.Need(t, gdb)
		args := []string{"-nx", "-batch", path}
		var names []string
		for _, fn := range f.Funcs() {
			// the corpus's C functions (not libgcc's assembly, where gdb has other rules)
			loc, _ := f.PCToLine(fn.Low + f.Bias)
			if base := filepath.Base(loc.File); fn.entry != 0 && (base == "corpus.c" || base == "startup.c" || base == "startup_m3.c" || base == "native.c") {
				names = append(names, fn.Name)
				args = append(args, "-ex", "break "+fn.Name)
			}
		}
		out, err := exec.Command(gdb, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", gdb, err, out)
		}
		k := 0
		for _, l := range strings.Split(string(out), "\n") {
			var num int
			var addr uint64
			if _, err := fmt.Sscanf(l, "Breakpoint %d at %v", &num, &addr); err != nil {
				continue
			}
			if k >= len(names) {
				break
			}
			var got uint64
			pcs, err := f.FuncBreakpoints(names[k])
			if err == nil {
				got = pcs[0]
			}
			if fn, ok := f.FuncByName(names[k]); ok && err == nil && addr == fn.Low && overlapsDropped(f, fn) {
				// gdb reads the discarded sequence at 0 where it overlaps fn, and so
				// finds no prologue: polydbg does not read discarded code.
			} else if err != nil || got != addr {
				t.Errorf("%s: break %s: polydbg %#x %v, gdb %#x", b, names[k], got, err, addr)
			}
			k++
			n++
		}
		if k != len(names) {
			t.Errorf("%s: gdb set %d breakpoints for %d functions:\n%s", b, k, len(names), out)
		}
	}
	t.Logf("%d function breakpoints agree with gdb", n)
}

func overlapsDropped(f *File, fn *Func) bool {
	for _, sp := range f.dropped {
		if sp.lo < fn.High && fn.Low < sp.hi {
			return true
		}
	}
	return false
}

// openCorpus builds and opens a corpus build (closed when the test ends).
func openCorpus(t *testing.T, b firmware.Variant) (string, *File) {
	t.Helper()
	path := firmware.BuildCorpus(t, b)
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return path, f
}

// tools names the binutils or gdb program for the build's machine ("addr2line", "gdb").
func tools(b firmware.Variant, name string) string {
	switch {
	case b.Native:
		return name
	case name == "gdb":
		return "gdb-multiarch"
	}
	return "arm-none-eabi-" + name
}

// A Cortex-M image starts at its reset vector even when e_entry is not Reset_Handler (a
// linker script without ENTRY); an entry point that is not code is an error at once.
func TestStartAddress(t *testing.T) {
	for _, b := range []firmware.Variant{{Opt: "-O1", GC: true, NoEntry: true}, {Opt: "-O0"}} {
		_, f := openCorpus(t, b)
		start, err := f.StartAddress()
		if rh := mustFunc(t, f, "Reset_Handler"); err != nil || start != rh.Low {
			t.Errorf("%s: start %#x %v, Reset_Handler at %#x (e_entry %#x)", b, start, err, rh.Low, f.ELF.Entry)
		}
	}
	_, f := openCorpus(t, firmware.Variant{Native: true, Opt: "-O0"})
	if start, err := f.StartAddress(); err != nil || start != f.Entry() {
		t.Errorf("native start %#x %v, entry %#x", start, err, f.Entry())
	}
	bad := build(t, "gcc", "-g", "-Wl,--entry=global_counter", firmware.CorpusSource("corpus.c"), firmware.CorpusSource("native.c"), "-pthread")
	if start, err := bad.StartAddress(); err == nil || !strings.Contains(err.Error(), "is not code") {
		t.Errorf("entry in data: start %#x %v", start, err)
	}
}

// The parameter of leaf is in the first argument register at leaf's first instruction,
// read from a location list in DWARF 5 (.debug_loclists) and DWARF 4 (.debug_loc), and
// nowhere (an entry value) after it has been overwritten.
func TestLocationLists(t *testing.T) {
	for _, b := range []firmware.Variant{{Opt: "-O1"}, {Opt: "-O2", DWARF4: true}, {Native: true, Opt: "-O1"}, {Native: true, Opt: "-O2", DWARF4: true}} {
		_, f := openCorpus(t, b)
		leaf := mustFunc(t, f, "leaf")
		v, err := f.LookupVar(leaf.Low+f.Bias, "v")
		if err != nil {
			t.Fatalf("%s: v %+v %v", b, v, err)
		}
		sl, err := f.StaticLocation(v, leaf.Low+f.Bias)
		if want := map[bool]int{true: 5, false: 0}[b.Native]; err != nil || !sl.InReg || sl.Reg != want {
			t.Errorf("%s: v at leaf's entry: %+v %v", b, sl, err)
		}
		regs := regsOf(map[int]uint64{0: 99, 5: 99, 7: 0x1000, 13: 0x1000})
		val, err := f.ReadVar(v, &Frame{PC: leaf.Low + f.Bias, regs: regs}, fakeMem{})
		if err != nil || val.Text != "99" {
			t.Errorf("%s: v = %+v %v", b, val, err)
		}
		if b.Native {
			continue // on x86-64 leaf never overwrites rdi
		}
		if v.locList < 0 {
			t.Errorf("%s: v has no location list", b)
		}
		// at leaf's last instruction r0 holds the result: v is an entry value
		val, err = f.ReadVar(v, &Frame{PC: leaf.High - 1 + f.Bias, regs: regs}, fakeMem{})
		if !errors.Is(err, ErrOptimizedOut) || val.Text != "<optimized out>" {
			t.Errorf("%s: v at the end of leaf = %+v %v", b, val, err)
		}
	}
}

// A FreeRTOS task's outermost frame is the task function: the return address the kernel
// plants (prvTaskExitError) ends the backtrace instead of adding the function before it.
func TestTaskOutermostFrame(t *testing.T) {
	_, f := openCorpus(t, firmware.Variant{Opt: "-O0"})
	task := mustFunc(t, f, "leaf") // stands for a task function, stopped at its entry
	exit := mustFunc(t, f, "prvTaskExitError")
	regs := regsOf(map[int]uint64{13: 0x20001000, 14: exit.Low | 1, 15: task.Low})
	frames, err := f.Unwind(regs, fakeMem{}, 10)
	if err != nil || len(frames) != 1 || frames[0].Func != task {
		var names []string
		for _, fr := range frames {
			names = append(names, fr.Loc.String())
		}
		t.Fatalf("frames %v %v", names, err)
	}
}

// Inlined copies: square exists only inlined at -O2, so `break square` goes on each copy;
// a pc inside via_inline's copy in corpus_run is two frames, as in gdb.
func TestInlinedCopies(t *testing.T) {
	for _, b := range []firmware.Variant{{Opt: "-O2"}, {Native: true, Opt: "-O2"}} {
		_, f := openCorpus(t, b)
		if _, ok := f.FuncByName("square"); ok {
			t.Fatalf("%s: square has an out-of-line copy", b)
		}
		pcs, err := f.FuncBreakpoints("square")
		if err != nil || len(pcs) < 2 {
			t.Fatalf("%s: break square: %#x %v", b, pcs, err)
		}
		for _, c := range f.Inlines("square") {
			if c.Ranges[len(c.Ranges)-1][1] == c.Ranges[0][0] {
				continue // a copy left without code: its breakpoint is its entry
			}
			if pc := f.inlineBreakpoint(c); !c.contains(pc) {
				t.Errorf("%s: %#x is not in the copy of square it is for (%v)", b, pc, c.Ranges)
			}
		}
		via := f.Inlines("via_inline")
		if len(via) != 1 || via[0].CallLine != firmware.CorpusLine(t, "corpus.c", "run_via") {
			t.Fatalf("%s: via_inline copies %+v", b, via)
		}
		params, locals, err := f.FrameVars(via[0].Ranges[0][0] + f.Bias)
		if err != nil || len(params) != 1 || params[0].Name != "x" || len(locals) != 1 || locals[0].Name != "y" {
			t.Errorf("%s: via_inline's variables %v %v %v", b, params, locals, err)
		}
	}
}

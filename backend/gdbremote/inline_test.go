package gdbremote

// Inlined functions against gdb: `break FUNC` at every copy (testdata/native/inline.c).

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// buildInline builds testdata/native/inline.c with gcc -g and opt into a temp dir, or with
// fw as Cortex-M3 firmware.
func buildInline(t *testing.T, opt string, fw bool) (elf, src string) {
	t.Helper()
	src, err := filepath.Abs("testdata/native/inline.c")
	if err != nil {
		t.Fatal(err)
	}
	if fw {
		realparts.Need(t, "arm-none-eabi-gcc", "gdb-multiarch", "qemu-system-arm")
		return firmware.BuildC(t, src, "", opt), src
	}
	realparts.Need(t, "gcc", "gdb", "gdbserver")
	elf = filepath.Join(t.TempDir(), "inline")
	if b, err := exec.Command("gcc", "-g", opt, "-o", elf, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return elf, src
}

var gdbLocRE = regexp.MustCompile(`(?m)^\d+\.\d+\s+y\s+0x([0-9a-f]+) in (\w+) at `)

// gdbLocations is the link-time addresses gdb gives `break fn` (info breakpoints).
func gdbLocations(t *testing.T, elf, fn string) []uint64 {
	t.Helper()
	out, err := exec.Command("gdb", "-batch", "-nx", "-ex", "break "+fn, "-ex", "info breakpoints", elf).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	var pcs []uint64
	for _, g := range gdbLocRE.FindAllStringSubmatch(string(out), -1) {
		pc, _ := strconv.ParseUint(g[1], 16, 64)
		pcs = append(pcs, pc)
	}
	if len(pcs) == 0 { // one location: "Breakpoint 1 at 0x1190: file f.c, line 11."
		if m := regexp.MustCompile(`Breakpoint 1 at 0x([0-9a-f]+):`).FindStringSubmatch(string(out)); m != nil {
			pc, _ := strconv.ParseUint(m[1], 16, 64)
			pcs = append(pcs, pc)
		}
	}
	return pcs
}

// gdbHits runs the program under gdb with `break fn` and records, at each of the first n
// stops, the breakpoint location number ("1.3") and the innermost two frames.
func gdbHits(t *testing.T, elf, fn string, n int) []string {
	t.Helper()
	args := []string{"-batch", "-nx", "-ex", "set pagination off", "-ex", "break " + fn, "-ex", "run"}
	for i := 0; i < n; i++ {
		args = append(args, "-ex", "bt 2", "-ex", "echo ====STOP\\n", "-ex", "continue")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "gdb", append(args, elf)...).CombinedOutput()
	var hits []string
	var cur []string
	for _, l := range strings.Split(string(out), "\n") {
		if l == "====STOP" {
			hits = append(hits, strings.Join(cur, " "))
			cur = nil
		} else if g := gdbFrameLineRE.FindStringSubmatch(l); g != nil {
			cur = append(cur, g[2]+":"+g[5])
		}
	}
	return hits
}

// `break scale` binds at the out-of-line copy and at the three inlined copies, as gdb's
// "Breakpoint 1 at ...: scale. (4 locations)"; every copy stops with breakpoint 1, in the
// order and with the backtraces gdb shows.
func TestBreakAtEveryInlinedCopy(t *testing.T) {
	elf, _ := buildInline(t, "-O2", false)
	ctx := testCtx(t, 60*time.Second)
	tg, err := LaunchNative(ctx, elf, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	for _, fn := range []string{"scale", "twice", "work"} {
		bp, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: fn})
		if err != nil {
			t.Fatal(err)
		}
		sites, err := x.s.BreakpointSites(bp.ID)
		if err != nil {
			t.Fatal(err)
		}
		var ours []uint64
		for _, s := range sites {
			ours = append(ours, s.PC-tg.Symbols().Bias)
			if s.Func != fn && fn == "scale" {
				t.Errorf("break %s: a site in %q", fn, s.Func)
			}
		}
		gdbs := gdbLocations(t, elf, fn)
		t.Logf("break %s: polydbg %d locations %#x, gdb %d %#x", fn, len(ours), ours, len(gdbs), gdbs)
		slices.Sort(ours)
		slices.Sort(gdbs)
		if !slices.Equal(ours, gdbs) {
			t.Errorf("break %s: locations %#x, gdb %#x", fn, ours, gdbs)
		}
		if fn != "scale" {
			x.s.RemoveBreakpoint(bp.ID)
		}
	}
	want := gdbHits(t, elf, "scale", 8)
	if len(want) < 8 {
		t.Fatalf("gdb stopped %d times: %q", len(want), want)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range want {
		st := x.stopped()
		if st.Reason != engine.ReasonBreakpoint || st.BreakpointID != 1 {
			t.Fatalf("stop %+v, want breakpoint 1", st)
		}
		fs, err := tg.Stack()
		if err != nil {
			t.Fatal(err)
		}
		var two []string
		for _, f := range fs[:min(2, len(fs))] {
			two = append(two, f.Func+":"+strconv.Itoa(f.Location.Line))
		}
		got = append(got, strings.Join(two, " "))
		if fs[0].Func != "scale" || st.Location.Func != "scale" {
			t.Errorf("stopped in %q (%+v), want scale", fs[0].Func, st.Location)
		}
		if err := x.s.Resume(engine.Continue); err != nil {
			t.Fatal(err)
		}
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("stop %d: polydbg %s, gdb %s", i, got[i], want[i])
		}
	}
	if bps := x.s.Breakpoints(); len(bps) != 1 || bps[0].Hits != len(want) {
		t.Errorf("breakpoints %+v, want 1 with %d hits", bps, len(want))
	}
}

// `break FILE:LINE` on a line of an inlined function binds in every copy (and in the
// out-of-line one), one address per copy, the addresses gdb gives.
func TestBreakLineInEveryInlinedCopy(t *testing.T) {
	for _, opt := range []string{"-O1", "-O2"} {
		elf, src := buildInline(t, opt, false)
		tg, err := LaunchNative(testCtx(t, 60*time.Second), elf, nil, Config{})
		if err != nil {
			t.Fatal(err)
		}
		x := newSess(t, tg)
		for _, m := range []string{"scale_first", "scale_second", "scale_return", "twice_call", "twice_return", "work_first", "call_scale", "call_twice"} {
			line := srcLine(t, src, m)
			bp, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: src, Line: line})
			if err != nil {
				t.Fatal(err)
			}
			sites, err := x.s.BreakpointSites(bp.ID)
			if err != nil {
				t.Fatal(err)
			}
			var ours []uint64
			for _, s := range sites {
				ours = append(ours, s.PC-tg.Symbols().Bias)
			}
			gdbs := gdbLocations(t, elf, "inline.c:"+strconv.Itoa(line))
			slices.Sort(ours)
			slices.Sort(gdbs)
			t.Logf("%s break inline.c:%d (%s): polydbg %#x, gdb %#x", opt, line, m, ours, gdbs)
			if !slices.Equal(ours, gdbs) {
				t.Errorf("%s break inline.c:%d (%s): locations %#x, gdb %#x", opt, line, m, ours, gdbs)
			}
			if err := x.s.RemoveBreakpoint(bp.ID); err != nil {
				t.Fatal(err)
			}
		}
		x.s.Terminate()
	}
}

// gdbSteps runs the program under gdb (firmware: gdb-multiarch and QEMU) to `break bp`,
// then does each of cmds (step, next, finish), and returns the innermost three frames
// ("func:line") at the breakpoint and after each command.
func gdbSteps(t *testing.T, elf, bp string, cmds []string, fw bool) [][]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	gdb, run := "gdb", "run"
	if fw {
		stub, err := StartQEMU(ctx, "mps2-an385", elf, StubOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer stub.Stop()
		gdb, run = "gdb-multiarch", "target remote "+stub.Addr+"\ncontinue"
	}
	script := []string{"set pagination off", "set confirm off", "break " + bp, run, "bt 3", "echo ====STOP\\n"}
	for _, c := range cmds {
		script = append(script, c, "bt 3", "echo ====STOP\\n")
	}
	path := filepath.Join(t.TempDir(), "steps.gdb")
	if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.CommandContext(ctx, gdb, "-batch", "-nx", "-x", path, elf).CombinedOutput()
	var stops [][]string
	var cur []string
	for _, l := range strings.Split(string(out), "\n") {
		if l == "====STOP" {
			stops = append(stops, cur)
			cur = nil
		} else if g := gdbFrameLineRE.FindStringSubmatch(l); g != nil {
			cur = append(cur, g[2]+":"+g[5])
		}
	}
	return stops
}

// step enters an inlined call (its frame appears at its first line), next runs over one,
// finish in an inlined frame stops at the next statement around it: the same lines and
// frames as gdb, command for command.
func TestStepInlinedCallsAsGDB(t *testing.T) {
	for _, c := range []struct {
		opt, bp string
		cmds    []string
		fw      bool // Cortex-M3 firmware in QEMU
	}{
		{"-O1", "work", []string{"step", "step", "step", "step", "step", "step", "step", "step", "step", "step", "step"}, false},
		{"-O1", "work", []string{"next", "next", "next", "next", "next"}, false},
		{"-O1", "work", []string{"step", "step", "step", "finish", "next", "step", "step", "step", "finish", "next"}, false},
		{"-O1", "work", []string{"step", "next", "step", "step", "next", "next"}, false},
		{"-O1", "work", []string{"step", "step", "next", "step", "step", "finish"}, false},
		{"-O1", "twice", []string{"step", "step", "finish", "next"}, false},
		{"-O2", "work", []string{"step", "step", "step", "step", "step", "step", "step", "step", "step"}, false},
		{"-O2", "work", []string{"next", "next", "next", "next"}, false},
		{"-O2", "work", []string{"step", "step", "finish", "next", "step", "finish"}, false},
		{"-O1", "work", []string{"step", "step", "step", "step", "step", "step", "step", "step", "step", "step"}, true},
		{"-O1", "work", []string{"next", "next", "next", "next"}, true},
		{"-O1", "work", []string{"step", "step", "step", "finish", "next", "step", "step", "finish"}, true},
		{"-O2", "work", []string{"step", "step", "step", "step", "step", "step", "step", "step"}, true},
		{"-O2", "twice", []string{"step", "step", "finish", "next"}, true},
	} {
		name := c.opt + " " + c.bp + " " + strings.Join(c.cmds, ",")
		if c.fw {
			name = "fw" + name
		}
		t.Run(name, func(t *testing.T) {
			elf, _ := buildInline(t, c.opt, c.fw)
			want := gdbSteps(t, elf, c.bp, c.cmds, c.fw)
			if len(want) != len(c.cmds)+1 {
				t.Fatalf("gdb made %d stops: %q", len(want), want)
			}
			ctx := testCtx(t, 60*time.Second)
			var tg *Target
			var err error
			if c.fw {
				tg, err = StartQEMUTarget(ctx, "mps2-an385", elf, Config{})
			} else {
				tg, err = LaunchNative(ctx, elf, nil, Config{})
			}
			if err != nil {
				t.Fatal(err)
			}
			x := newSess(t, tg)
			if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: c.bp}); err != nil {
				t.Fatal(err)
			}
			if err := x.s.Start(false); err != nil {
				t.Fatal(err)
			}
			x.stopped()
			modes := map[string]engine.ResumeMode{"step": engine.StepInto, "next": engine.StepOver, "finish": engine.StepOut}
			for i := 0; i <= len(c.cmds); i++ {
				if i > 0 {
					st := x.resume(modes[c.cmds[i-1]])
					if st.Reason != engine.ReasonStep && st.Reason != engine.ReasonBreakpoint {
						t.Fatalf("%s: stop %+v", c.cmds[i-1], st)
					}
				}
				fs, err := tg.Stack()
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, f := range fs[:min(3, len(fs))] {
					got = append(got, f.Func+":"+strconv.Itoa(f.Location.Line))
				}
				what := "the breakpoint"
				if i > 0 {
					what = fmt.Sprintf("%s (command %d)", c.cmds[i-1], i)
				}
				if !slices.Equal(got, want[i]) {
					t.Errorf("after %s: polydbg %v, gdb %v", what, got, want[i])
				}
			}
		})
	}
}

package gdbremote

// DW_OP_entry_value against gdb (testdata/native/entry.c).

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// buildEntry builds testdata/native/entry.c at -O2.
func buildEntry(t *testing.T) (elf, src string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdb", "gdbserver")
	src, err := filepath.Abs("testdata/native/entry.c")
	if err != nil {
		t.Fatal(err)
	}
	elf = filepath.Join(t.TempDir(), "entry")
	if b, err := exec.Command("gcc", "-g", "-O2", "-o", elf, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return elf, src
}

// A breakpoint condition on a parameter that is an entry value (evaluated in the innermost
// frame alone, without a backtrace) is recovered from the caller too: "a == 5" is true in
// the first call; in the second a is optimized out and the condition fails, which stops
// and says why, as gdb does.
func TestConditionOnEntryValue(t *testing.T) {
	elf, src := buildEntry(t)
	tg, err := LaunchNative(testCtx(t, 60*time.Second), elf, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	bp, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: src,
		Line: srcLine(t, src, "second_touch"), Condition: "a == 5"})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	b, _ := x.s.Evaluate(0, "b", engine.EvalMode{Pure: true})
	if st.BreakpointID != bp.ID || st.Text != "" || b.Value != "0" {
		t.Fatalf("first stop %+v (b = %s), want the first call with a true condition", st, b.Value)
	}
	st = x.resume(engine.Continue)
	b, _ = x.s.Evaluate(0, "b", engine.EvalMode{Pure: true})
	if st.BreakpointID != bp.ID || !strings.Contains(st.Text, "optimized out") || b.Value != "7" {
		t.Fatalf("second stop %+v (b = %s), want the second call, a optimized out", st, b.Value)
	}
}

// Parameters described by the value a register had on entry are recovered from the
// caller's call site where gdb recovers them, and are <optimized out> where gdb says so:
// every frame and variable of six stops agree.
func TestEntryValuesAsGDB(t *testing.T) {
	elf, _ := buildEntry(t)
	const stops = 6
	// gdb
	args := []string{"-batch", "-nx", "-ex", "set pagination off", "-ex", "set print entry-values no",
		"-ex", "break touch", "-ex", "run"}
	for i := 0; i < stops; i++ {
		args = append(args, "-ex", "bt full", "-ex", "echo ====STOP\\n", "-ex", "continue")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "gdb", append(args, elf)...).CombinedOutput()
	var theirs [][]oFrame
	var cur []oFrame
	for _, l := range strings.Split(string(out), "\n") {
		if l == "====STOP" {
			theirs, cur = append(theirs, cur), nil
		} else if g := gdbFrameLineRE.FindStringSubmatch(l); g != nil {
			line, _ := strconv.Atoi(g[5])
			f := oFrame{fn: g[2], line: line, vars: map[string][]string{}}
			for _, a := range splitArgs(g[3]) {
				if n, v, ok := strings.Cut(a, "="); ok {
					f.vars[n] = append(f.vars[n], v)
				}
			}
			cur = append(cur, f)
		} else if g := gdbLocalRE.FindStringSubmatch(l); g != nil && len(cur) > 0 {
			cur[len(cur)-1].vars[g[1]] = append(cur[len(cur)-1].vars[g[1]], g[2])
		}
	}
	if len(theirs) != stops {
		t.Fatalf("gdb made %d stops:\n%s", len(theirs), out)
	}
	// polydbg
	tg, err := LaunchNative(testCtx(t, 60*time.Second), elf, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "touch"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	var ours [][]oFrame
	for i := 0; i < stops; i++ {
		x.stopped()
		ours = append(ours, frameVars(t, tg))
		if err := x.s.Resume(engine.Continue); err != nil {
			t.Fatal(err)
		}
	}
	var tally oracleTally
	compareStops(&tally, firmware.Variant{Native: true, Opt: "-O2"}, ours, theirs)
	for _, d := range tally.disagreements {
		t.Error(d)
	}
	if tally.vars < 30 || tally.varAgree != tally.vars || tally.frameAgree != tally.frames {
		t.Errorf("frames %d/%d, variables %d/%d agree", tally.frameAgree, tally.frames, tally.varAgree, tally.vars)
	}
	// the entry value that gdb recovers: callee's a in the first call
	if got := ours[1][1].vars["a"]; len(got) != 1 || got[0] != "5" {
		t.Errorf("a = %v in the first call, want 5 (its entry value)", got)
	}
}

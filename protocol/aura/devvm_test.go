package aura

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const wait = "AURA_DEBUG_WAIT=1"

func abs(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPlainRunWithoutProtocol(t *testing.T) {
	a := start(t, false, nil, "testdata/loop.kite")
	if code := a.exit(); code != 3 {
		t.Fatalf("exit code %d, want 3 (45 %% 7)", code)
	}
	if got := a.sequence(); !slices.Equal(got, []string{"total 45"}) {
		t.Fatalf("stdout %q, want only the program's output", got)
	}
}

func TestPlainRunUncaughtError(t *testing.T) {
	a := start(t, false, nil, "testdata/fail.kite")
	if code := a.exit(); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if got := a.sequence(); !slices.Equal(got, []string{"before"}) {
		t.Fatalf("stdout %q", got)
	}
	if !strings.Contains(a.stderrText(), "fail.kite:3:") {
		t.Fatalf("stderr %q lacks the error location", a.stderrText())
	}
}

func TestCompileError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.kite")
	writeFile(t, bad, "let x = \nlet = 3\n")
	a := start(t, true, nil, bad)
	if code := a.exit(); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if ev := a.events(); !slices.Equal(ev, []string{"hello"}) {
		t.Fatalf("events %v", ev)
	}
	if !strings.Contains(a.stderrText(), "bad.kite:2:") {
		t.Fatalf("stderr %q", a.stderrText())
	}
}

// TestHelloAndDefaultEnable: without any command the original's defaults apply
// (start_paused false, perf true): the program runs and a perfReport follows.
func TestHelloAndDefaultEnable(t *testing.T) {
	a := start(t, true, nil, "testdata/loop.kite")
	var hello HelloEvent
	a.expectInto("hello", &hello)
	if hello.Protocol != 1 || !slices.Equal(hello.Capabilities, Capabilities) {
		t.Fatalf("hello %+v", hello)
	}
	for _, c := range []string{"devvm.pause", "devvm.step", "devvm.breakpoints", "devvm.watches", "native.launch",
		"native.terminate", "native.exit", "perf.timeline", "perf.flame.folded", "perf.memory",
		"devvm.stepIn", "devvm.stepOver", "devvm.stepOut"} {
		if !slices.Contains(hello.Capabilities, c) {
			t.Errorf("capability %s missing", c)
		}
	}
	a.expect("perfReport")
	if code := a.exit(); code != 3 {
		t.Fatalf("exit code %d", code)
	}
	if got := a.sequence(); !slices.Equal(got, []string{"@hello", "total 45", "@perfReport"}) {
		t.Fatalf("stdout %q", got)
	}
}

// TestWaitEnableStartPaused: with AURA_DEBUG_WAIT nothing runs before enable; the IDE's
// camelCase startPaused is honoured and the first stop is before the first statement.
func TestWaitEnableStartPaused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		flags  []string
		enable string
	}{
		{"camelCase", []string{wait}, nil, `{"cmd":"enable","startPaused":true,"perf":false}`},
		{"snake_case", []string{wait}, nil, `{"cmd":"enable","start_paused":true,"perf":false}`},
		{"flag", nil, []string{"--wait-enable"}, `{"cmd":"enable","startPaused":true,"perf":false}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := start(t, true, tc.env, append(tc.flags, "testdata/spin.kite")...)
			a.expect("hello")
			a.send(`{"cmd":"continue"}`)
			a.waitStderr("ignored continue: the program has not started (waiting for enable)")
			if got := a.programLines(); len(got) != 0 {
				t.Fatalf("the program ran before enable: %q", got)
			}
			a.send(tc.enable)
			st := a.stopped("pause", 1)
			if st.File != abs(t, "testdata/spin.kite") || st.Col != 1 || len(st.Env) != 0 && st.Env["n"] != "" {
				t.Fatalf("stop %+v", st)
			}
			if got := a.programLines(); len(got) != 0 {
				t.Fatalf("output before the first statement: %q", got)
			}
			a.send(`{"cmd":"step"}`)
			st = a.stopped("step", 2)
			if st.Env["n"] != "0" {
				t.Fatalf("env %v", st.Env)
			}
			a.send(`{"cmd":"terminate"}`)
			a.expect("terminated")
			if code := a.exit(); code != ExitTerminated {
				t.Fatalf("exit code %d", code)
			}
			if slices.Contains(a.events(), "perfReport") {
				t.Fatal("perfReport sent with perf:false")
			}
		})
	}
}

func TestBreakpointsConditionsAndWatches(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":5},{"line":9,"condition":"i == 7"}]}`)
	a.send(`{"cmd":"setWatches","watches":[{"expr":"total"},{"expr":"total * 2 + 1"},{"expr":"len(items)"},{"expr":"append(items, 1)"},{"expr":"total = 99"},{"expr":"add(1, 2)"}]}`)
	a.send(`{"cmd":"enable","start_paused":false,"perf":false}`)
	var bps BreakpointsEvent
	a.expectInto("breakpoints", &bps)
	want := []BreakpointResult{{ID: 1, RequestedLine: 5, Line: 6, Verified: true}, {ID: 2, RequestedLine: 9, Line: 9, Verified: true}}
	if !reflect.DeepEqual(bps.Breakpoints, want) {
		t.Fatalf("breakpoints %+v, want %+v", bps.Breakpoints, want)
	}
	st := a.stopped("breakpoint", 6) // line 5 is blank: the breakpoint moved to line 6
	if st.BreakpointID != 1 {
		t.Fatalf("breakpoint id %d", st.BreakpointID)
	}
	a.send(`{"cmd":"continue"}`)
	st = a.stopped("breakpoint", 9)
	if st.Env["i"] != "7" || st.Env["total"] != "21" || st.Env["items"] != "[]" || st.Env["add"] != "<fn add>" {
		t.Fatalf("env %v", st.Env)
	}
	ws := map[string]string{}
	for _, w := range st.Watches {
		if w.Value != nil {
			ws[w.Expr] = "= " + *w.Value
		} else {
			ws[w.Expr] = "! " + w.Error
		}
	}
	if ws["total"] != "= 21" || ws["total * 2 + 1"] != "= 43" || ws["len(items)"] != "= 0" {
		t.Fatalf("watches %v", ws)
	}
	for _, e := range []string{"append(items, 1)", "total = 99", "add(1, 2)"} {
		if !strings.HasPrefix(ws[e], "! ") {
			t.Fatalf("watch %s was allowed: %v", e, ws[e])
		}
	}
	if len(st.Watches) != 6 || st.Watches[0].Expr != "total" {
		t.Fatalf("watches out of order: %+v", st.Watches)
	}
	// A new watch list while stopped is evaluated at once.
	a.send(`{"cmd":"setWatches","watches":[{"expr":"i * 10"}]}`)
	var we WatchesEvent
	a.expectInto("watches", &we)
	if len(we.Watches) != 1 || we.Watches[0].Value == nil || *we.Watches[0].Value != "70" {
		t.Fatalf("watches event %+v", we)
	}
	// Replace the set: only the new breakpoint remains.
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":11}]}`)
	a.expectInto("breakpoints", &bps)
	a.send(`{"cmd":"continue"}`)
	st = a.stopped("breakpoint", 11)
	if st.Env["total"] != "45" || st.Env["items"] != "[]" {
		t.Fatalf("the watches changed the program: env %v", st.Env)
	}
	a.send(`{"cmd":"continue"}`)
	if code := a.exit(); code != 3 {
		t.Fatalf("exit code %d", code)
	}
	if got := a.programLines(); !slices.Equal(got, []string{"total 45"}) {
		t.Fatalf("output %q", got)
	}
}

// TestConditionErrors: a condition that fails to evaluate, or that the pure mode refuses,
// still stops, and the stopped event says why.
func TestConditionErrors(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":9,"condition":"items[5] > 1"},{"line":2,"condition":"add(a, 1) > 2"}]}`)
	a.send(`{"cmd":"enable","perf":false}`)
	var bps BreakpointsEvent
	a.expectInto("breakpoints", &bps)
	if b := bps.Breakpoints[1]; !b.Verified || b.Error != `condition "add(a, 1) > 2": calling add is not allowed in pure mode (only pure builtins)` {
		t.Fatalf("breakpoint with a refused condition: %+v", b)
	}
	st := a.stopped("breakpoint", 9)
	if st.Error != `breakpoint 1: condition "items[5] > 1" failed: index 5 out of range (list of length 0)` || st.BreakpointID != 1 {
		t.Fatalf("stop error %q", st.Error)
	}
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":2,"condition":"add(a, 1) > 2"}]}`)
	a.send(`{"cmd":"continue"}`)
	st = a.stopped("breakpoint", 2)
	if !strings.Contains(st.Error, "not allowed in pure mode") || st.Env["a"] != "0" {
		t.Fatalf("stop %+v", st)
	}
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":99}]}`)
	var none BreakpointsEvent
	a.expectInto("breakpoints", &none)
	if b := none.Breakpoints[0]; b.Verified || b.ID != 0 || b.Error == "" || b.RequestedLine != 99 {
		t.Fatalf("breakpoint after the last line: %+v", b)
	}
	a.send(`{"cmd":"continue"}`)
	if code := a.exit(); code != 3 {
		t.Fatalf("exit code %d", code)
	}
}

// TestSignalToPolydbg: SIGTERM to polydbg terminates the Dev-VM program cleanly.
func TestSignalToPolydbg(t *testing.T) {
	a := start(t, true, nil, "testdata/spin.kite")
	a.waitStdout("spinning")
	if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	a.expect("terminated")
	if code := a.exit(); code != ExitTerminated {
		t.Fatalf("exit code %d", code)
	}
}

func TestHitCondition(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":2,"hitCondition":"== 4"}]}`)
	a.send(`{"cmd":"enable","perf":false}`)
	st := a.stopped("breakpoint", 2)
	if st.Env["b"] != "3" {
		t.Fatalf("stopped on hit with b=%s, want the 4th call (b=3)", st.Env["b"])
	}
	a.send(`{"cmd":"continue"}`)
	if code := a.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
}

func TestSteps(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":9}]}`)
	a.send(`{"cmd":"enable","perf":false}`)
	a.stopped("breakpoint", 9)
	a.send(`{"cmd":"setBreakpoints","breakpoints":[]}`)
	a.send(`{"cmd":"stepIn"}`)
	st := a.stopped("step", 2)
	if st.Func != "add" || st.Env["a"] != "0" || st.Env["b"] != "0" {
		t.Fatalf("step in: %+v", st)
	}
	a.send(`{"cmd":"stepOver"}`)
	st = a.stopped("step", 3)
	if st.Env["s"] != "0" {
		t.Fatalf("step over: env %v", st.Env)
	}
	a.send(`{"cmd":"stepOut"}`)
	st = a.stopped("step", 9) // back in the caller right after the call, mid-line
	if st.Func != "main" || st.Env["total"] != "0" {
		t.Fatalf("step out: %+v", st)
	}
	a.send(`{"cmd":"step"}`) // the rest of the line, then the loop's next iteration
	st = a.stopped("step", 8)
	if st.Env["total"] != "0" {
		t.Fatalf("step: env %v", st.Env)
	}
	a.send(`{"cmd":"step"}`)
	st = a.stopped("step", 9)
	if st.Env["i"] != "1" {
		t.Fatalf("step: env %v", st.Env)
	}
	a.send(`{"cmd":"stepOver"}`) // over the call to add
	st = a.stopped("step", 8)
	if st.Env["total"] != "1" {
		t.Fatalf("step over a call: env %v", st.Env)
	}
	a.send(`{"cmd":"step"}`)
	a.stopped("step", 9)
	a.send(`{"cmd":"step"}`) // statement step enters the call
	a.stopped("step", 2)
	a.send(`{"cmd":"continue"}`)
	if code := a.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
}

// TestPauseInTightLoop pauses a loop without calls twice, and terminates it while stopped.
func TestPauseInTightLoop(t *testing.T) {
	a := start(t, true, nil, "testdata/spin.kite")
	a.send(`{"cmd":"setWatches","watches":[{"expr":"n > 0"}]}`)
	a.waitStdout("spinning")
	a.send(`{"cmd":"pause"}`)
	st := a.stopped("pause", 0)
	if st.Line != 3 && st.Line != 4 {
		t.Fatalf("paused at line %d, want in the loop", st.Line)
	}
	n1, err := strconv.Atoi(st.Env["n"])
	if err != nil {
		t.Fatalf("env %v", st.Env)
	}
	a.send(`{"cmd":"pause"}`) // already paused: a no-op
	a.send(`{"cmd":"continue"}`)
	a.send(`{"cmd":"pause"}`)
	st = a.stopped("pause", 0)
	n2, _ := strconv.Atoi(st.Env["n"])
	if n2 < n1 {
		t.Fatalf("n went back between pauses: %d then %d", n1, n2)
	}
	a.send(`{"cmd":"terminate"}`)
	var te TerminatedEvent
	a.expectInto("terminated", &te)
	if te.Target != "devvm" {
		t.Fatalf("terminated %+v", te)
	}
	if code := a.exit(); code != ExitTerminated {
		t.Fatalf("exit code %d", code)
	}
	if n := len(a.events()); a.events()[n-1] != "terminated" {
		t.Fatalf("events %v", a.events())
	}
}

// TestTerminateInfiniteLoop terminates a running infinite loop; the perf report of what
// ran comes before the terminated event. A second terminate after the end is a no-op.
func TestTerminateInfiniteLoop(t *testing.T) {
	a := start(t, true, nil, "testdata/spin.kite")
	a.waitStdout("spinning")
	a.send(`{"cmd":"terminate"}`)
	a.send(`{"cmd":"terminate"}`)
	a.expect("perfReport")
	a.expect("terminated")
	if code := a.exit(); code != ExitTerminated {
		t.Fatalf("exit code %d", code)
	}
	if got := a.sequence(); !slices.Equal(got, []string{"@hello", "spinning", "@perfReport", "@terminated"}) {
		t.Fatalf("stdout %q", got)
	}
}

// TestLateStartPaused: without AURA_DEBUG_WAIT the program already runs when enable
// arrives; startPaused then pauses it as soon as possible.
func TestLateStartPaused(t *testing.T) {
	a := start(t, true, nil, "testdata/spin.kite")
	a.waitStdout("spinning")
	a.send(`{"cmd":"enable","startPaused":true}`)
	a.stopped("pause", 0)
	a.send(`{"cmd":"terminate"}`)
	a.expect("terminated")
	a.exit()
}

func TestExceptions(t *testing.T) {
	t.Run("stop", func(t *testing.T) {
		a := start(t, true, []string{wait}, "testdata/fail.kite")
		a.send(`{"cmd":"enable","stopOnException":true,"perf":false}`)
		st := a.stopped("exception", 3)
		if !strings.Contains(st.Error, "index") || st.Env["xs"] != "[1, 2]" {
			t.Fatalf("stop %+v", st)
		}
		a.send(`{"cmd":"continue"}`)
		if code := a.exit(); code != 1 {
			t.Fatalf("exit %d", code)
		}
		if !strings.Contains(a.stderrText(), "fail.kite:3:") {
			t.Fatalf("stderr %q", a.stderrText())
		}
	})
	t.Run("default", func(t *testing.T) {
		a := start(t, true, nil, "testdata/fail.kite")
		if code := a.exit(); code != 1 {
			t.Fatalf("exit %d", code)
		}
		if slices.Contains(a.events(), "stopped") {
			t.Fatal("stopped on an exception without stopOnException")
		}
	})
}

// TestInvalidLines: each invalid line gives one line on stderr; the program goes on.
func TestInvalidLines(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":11}]}`)
	a.send(`{"cmd":"enable","perf":false}`)
	a.stopped("breakpoint", 11)
	bad := []string{
		`garbage`,
		`{"cmd":"fly"}`,
		`{"cmd":5}`,
		`{"nocmd":true}`,
		`[1,2]`,
		`{"cmd":"setBreakpoints","breakpoints":[{"line":"x"}]}`,
		`{"cmd":"setBreakpoints","breakpoints":[{"line":-3}]}`,
		`{"cmd":"pause"} {"cmd":"continue"}`,
		`{"cmd":"setWatches","watches":[{"exp":"x"}]}`,
		"{\"cmd\":\"continue\",\"x\":\"" + strings.Repeat("a", MaxLineBytes) + "\"}",
	}
	for _, l := range bad {
		a.send(l)
	}
	a.send(`{"cmd":"setWatches","watches":["total"],"unknown_field":1}`) // unknown fields are ignored
	var we WatchesEvent
	a.expectInto("watches", &we)
	if len(we.Watches) != 1 || *we.Watches[0].Value != "45" {
		t.Fatalf("watches %+v", we)
	}
	// stderr is its own pipe: its lines may trail the watches event on stdout.
	var errLines []string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		errLines = strings.Split(strings.TrimSpace(a.stderrText()), "\n")
		if len(errLines) >= len(bad) || time.Now().After(deadline) {
			break
		}
	}
	if len(errLines) != len(bad) {
		t.Fatalf("%d stderr lines for %d invalid lines:\n%s", len(errLines), len(bad), a.stderrText())
	}
	for _, l := range errLines {
		if !strings.HasPrefix(l, "aura: ignored command line: ") {
			t.Fatalf("stderr line %q", l)
		}
	}
	a.send(`{"cmd":"continue"}`)
	if code := a.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
	if got := a.programLines(); !slices.Equal(got, []string{"total 45"}) {
		t.Fatalf("output %q", got)
	}
}

// TestStdinEndsWhileStopped: when the client goes away nothing can resume a stop, so the
// program runs on to its end.
func TestStdinEndsWhileStopped(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":9}]}`)
	a.send(`{"cmd":"enable","perf":false}`)
	a.stopped("breakpoint", 9)
	a.stdin.Close()
	if code := a.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
	if got := a.programLines(); !slices.Equal(got, []string{"total 45"}) {
		t.Fatalf("output %q", got)
	}
}

func TestCommandsBeforeEnable(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/loop.kite")
	a.send(`{"cmd":"step"}`)
	a.send(`{"cmd":"setWatches","watches":[{"expr":"total"}]}`)
	a.send(`{"cmd":"pause"}`) // before the start: start paused
	a.send(`{"cmd":"enable"}`)
	st := a.stopped("pause", 1)
	if len(st.Watches) != 1 || st.Watches[0].Error == "" {
		t.Fatalf("watch of a global not yet defined: %+v", st.Watches)
	}
	a.send(`{"cmd":"continue"}`)
	a.expect("perfReport")
	if code := a.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func decode[T any](t *testing.T, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

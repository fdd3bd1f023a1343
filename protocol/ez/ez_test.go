package ez

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestIDEStepsThroughRecursion drives fact.kite as the EZ IDE does: stepInto, and
// getVariables after every stopped, from entry to exit. Every variableUpdate must agree with
// the variables read right after it, and a variable that did not change is never reported.
func TestIDEStepsThroughRecursion(t *testing.T) {
	file := prog(t, "fact.kite")
	c := initialized(t, file)
	c.send("start", nil)
	c.expect("started")
	c.stopped("entry", 2)
	if v := c.vars(0); len(v) != 0 {
		t.Fatalf("variables at entry: %v", v)
	}
	var (
		steps, maxDepth int
		output          strings.Builder
		updates         = map[string][]string{} // name -> values reported
		lines           []int
	)
	for done := false; !done; {
		c.send("stepInto", nil)
		var stop ev
		var upd []ev
	events:
		for {
			e := c.next()
			switch e.Event {
			case "stopped":
				stop = e
				c.send("getVariables", map[string]any{"frameIndex": 0}) // as the IDE does
			case "variableUpdate":
				if stop.Event == "" {
					t.Fatalf("variableUpdate before stopped: %s", e.Raw)
				}
				upd = append(upd, e)
				if e.num("frameIndex") != 0 {
					t.Fatalf("update of frame %d", e.num("frameIndex"))
				}
				updates[e.str("name")] = append(updates[e.str("name")], e.str("value"))
			case "variables":
				// Every update agrees with the variables read after it.
				vars := map[string]string{}
				for _, x := range e.Data["variables"].([]any) {
					m := x.(map[string]any)
					vars[m["name"].(string)] = fmt.Sprintf("%v:%v", m["value"], m["type"])
				}
				for _, u := range upd {
					if got := vars[u.str("name")]; got != u.str("value")+":"+u.str("type") {
						t.Fatalf("update %s but getVariables says %s", u.Raw, got)
					}
				}
				break events
			case "output":
				output.WriteString(e.str("text"))
			case "exited":
				if e.num("exitCode") != 0 {
					t.Fatalf("exit %s", e.Raw)
				}
				done = true
				break events
			default:
				t.Fatalf("unexpected %s", e.Raw)
			}
		}
		if done {
			break
		}
		if stop.str("reason") != "step" {
			t.Fatalf("stop %s", stop.Raw)
		}
		lines = append(lines, stop.line())
		maxDepth = max(maxDepth, len(c.stack()))
		steps++
		if steps > 200 {
			t.Fatal("too many steps")
		}
	}
	if output.String() != "fact 120\n" {
		t.Fatalf("output %q", output.String())
	}
	if maxDepth != 6 {
		t.Fatalf("deepest stack %d frames, want 6 (main + 5 × fact)", maxDepth)
	}
	if got := updates["greeting"]; !slices.Equal(got, []string{`"hi"`}) {
		t.Fatalf("greeting updates %v", got)
	}
	if got := updates["result"]; !slices.Equal(got, []string{"120"}) {
		t.Fatalf("result updates %v", got)
	}
	if !slices.Contains(updates["sub"], "24") {
		t.Fatalf("sub updates %v", updates["sub"])
	}
	if lines[0] != 10 || !slices.Contains(lines, 3) || !slices.Contains(lines, 7) || lines[len(lines)-1] != 12 {
		t.Fatalf("stepped lines %v", lines)
	}
}

func TestVariablesValuesTypesAndOrder(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "vals.kite")
	src := "let name = \"Alice\"\nlet items = [1, 2, 3]\nlet m = {\"k\": 1.5}\nlet none = nil\nfn f(a, b) {\n    let c = a\n    return c\n}\nf(true, \"x\\n\")\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 7})
	c.expect("breakpointSet")
	c.send("start", nil)
	c.expect("started")
	c.stopped("breakpoint", 7)
	c.send("getVariables", map[string]any{"frameIndex": 0})
	e := c.expect("variables")
	want := `{"frameIndex":0,"variables":[` +
		`{"name":"a","value":"true","type":"bool","scope":"local"},` +
		`{"name":"b","value":"\"x\\n\"","type":"string","scope":"local"},` +
		`{"name":"c","value":"true","type":"bool","scope":"local"},` +
		`{"name":"name","value":"\"Alice\"","type":"string","scope":"global"},` +
		`{"name":"items","value":"[1, 2, 3]","type":"list","scope":"global"},` +
		`{"name":"m","value":"{\"k\": 1.5}","type":"map","scope":"global"},` +
		`{"name":"none","value":"nil","type":"nil","scope":"global"},` +
		`{"name":"f","value":"<fn f>","type":"fn","scope":"global"}]}`
	if !strings.Contains(e.Raw, `"data":`+want) {
		t.Fatalf("got  %s\nwant data %s", e.Raw, want)
	}
	// Frame 1 is the top level: no locals, the same globals.
	if v := c.vars(1); len(v) != 5 || v["items"] != "[1, 2, 3]:list" {
		t.Fatalf("frame 1 variables %v", v)
	}
	c.send("continue", nil)
	c.expect("exited")
}

// TestBreakpointsBeforeAndDuringRun sets breakpoints before start (on a blank line: it
// moves), while stopped (with a condition) and clears one.
func TestBreakpointsBeforeAndDuringRun(t *testing.T) {
	file := prog(t, "fact.kite")
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 9})
	bp := c.expect("breakpointSet")
	if bp.num("line") != 10 || bp.num("id") != 1 || bp.num("requestedLine") != 9 || bp.str("file") != file {
		t.Fatalf("breakpointSet %s", bp.Raw)
	}
	c.send("start", nil) // a breakpoint is set: no entry stop
	c.expect("started")
	if e := c.stopped("breakpoint", 10); e.num("breakpointId") != 1 {
		t.Fatalf("stop %s", e.Raw)
	}
	c.send("setBreakpoint", map[string]any{"file": file, "line": 7, "condition": "n == 3"})
	if e := c.expect("breakpointSet"); e.num("id") != 2 || e.num("line") != 7 || e.Data["requestedLine"] != nil {
		t.Fatalf("breakpointSet %s", e.Raw)
	}
	c.send("continue", nil)
	if e := c.stopped("breakpoint", 7); e.num("breakpointId") != 2 {
		t.Fatalf("stop %s", e.Raw)
	}
	if e := c.eval("n", 0); e.str("result") != "3" {
		t.Fatalf("n = %s", e.Raw)
	}
	c.send("clearBreakpoint", map[string]any{"file": file, "line": 7})
	if e := c.expect("breakpointCleared"); e.num("line") != 7 || e.num("id") != 2 {
		t.Fatalf("cleared %s", e.Raw)
	}
	c.send("setBreakpoint", map[string]any{"file": file, "line": 12})
	if e := c.expect("breakpointSet"); e.num("id") != 3 {
		t.Fatalf("ids must increase: %s", e.Raw)
	}
	c.send("continue", nil)
	if e := c.stopped("breakpoint", 12); e.num("breakpointId") != 3 {
		t.Fatalf("stop %s", e.Raw)
	}
	c.send("continue", nil)
	if e := c.expect("output"); e.str("text") != "fact 120\n" {
		t.Fatalf("output %s", e.Raw)
	}
	c.expect("exited")
}

func TestBreakpointSetWhileRunning(t *testing.T) {
	file := prog(t, "loop.kite")
	c := initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	c.send("stepInto", nil)
	c.expectError("stepInto", "Cannot stepInto: program is running")
	c.send("getVariables", map[string]any{"frameIndex": 0})
	c.expectError("getVariables", "program is running")
	c.send("setBreakpoint", map[string]any{"file": file, "line": 3})
	if e := c.expect("breakpointSet"); e.num("id") != 1 || e.num("line") != 3 {
		t.Fatalf("breakpointSet %s", e.Raw)
	}
	if e := c.stopped("breakpoint", 3); e.num("breakpointId") != 1 {
		t.Fatalf("stop %s", e.Raw)
	}
	if e := c.eval("i > 0", 0); e.str("result") != "true" || e.str("type") != "bool" {
		t.Fatalf("evaluate %s", e.Raw)
	}
	c.send("terminate", nil)
	c.expect("terminated")
}

func TestStepOutOfDeepRecursionAndEvaluateInFrames(t *testing.T) {
	file := prog(t, "fact.kite")
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 4})
	c.expect("breakpointSet")
	c.send("start", nil)
	c.expect("started")
	c.stopped("breakpoint", 4)
	want := []string{"fact:4", "fact:6", "fact:6", "fact:6", "fact:6", "main:11"}
	if got := c.stack(); !slices.Equal(got, want) {
		t.Fatalf("stack %v, want %v", got, want)
	}
	for _, tc := range []struct {
		expr          string
		frame         int
		result, typ   string
		errorContains string
	}{
		{"n", 0, "1", "int", ""},
		{"n", 2, "3", "int", ""},
		{"n * 10 + len(greeting)", 4, "52", "int", ""},
		{"greeting", 5, `"hi"`, "string", ""},
		{"str(n) + \"!\"", 1, `"2!"`, "string", ""},
		{"nosuch + 1", 0, "", "", "nosuch"},
		{"fact(3)", 0, "", "", ""}, // pure: no user function calls
		{"n +", 0, "", "", ""},
		{"n", 9, "", "", "no such frame"},
	} {
		e := c.eval(tc.expr, tc.frame)
		if tc.result != "" {
			if e.Event != "evaluateResult" || e.str("expression") != tc.expr || e.str("result") != tc.result || e.str("type") != tc.typ {
				t.Errorf("evaluate %q in frame %d: %s", tc.expr, tc.frame, e.Raw)
			}
			continue
		}
		if e.Event != "error" || e.str("command") != "evaluate" || !strings.Contains(e.str("message"), tc.errorContains) {
			t.Errorf("evaluate %q in frame %d: %s, want an error", tc.expr, tc.frame, e.Raw)
		}
	}
	// The REPL extension may call functions.
	c.send("evaluate", map[string]any{"expression": "fact(3)", "frameIndex": 0, "sideEffects": true})
	if e := c.expect("evaluateResult"); e.str("result") != "6" {
		t.Fatalf("fact(3) = %s", e.Raw)
	}

	c.send("clearBreakpoint", map[string]any{"file": file, "line": 4})
	c.expect("breakpointCleared")
	// A step out lands in the caller right after the call returned, mid-line (sub is
	// assigned by the rest of the line), one activation at a time.
	for _, n := range []int{2, 3, 4} {
		c.send("stepOut", nil)
		c.stopped("step", 6)
		if e := c.expect("variableUpdate"); e.str("name") != "n" || e.str("value") != fmt.Sprint(n) {
			t.Fatalf("after stepOut to n=%d: update %s", n, e.Raw)
		}
		if got := c.stack(); len(got) != 7-n {
			t.Fatalf("after stepOut to n=%d: stack %v", n, got)
		}
		c.send("stepOver", nil) // the rest of the line: sub = fact(n - 1)
		c.stopped("step", 7)
		if e := c.expect("variableUpdate"); e.str("name") != "sub" || e.str("value") != fmt.Sprint(fact(n-1)) {
			t.Fatalf("after the line in fact(%d): update %s", n, e.Raw)
		}
	}
	c.send("stepOver", nil) // return n * sub in fact(4): back in fact(5), mid-line 6
	c.stopped("step", 6)
	if e := c.expect("variableUpdate"); e.str("name") != "n" || e.str("value") != "5" {
		t.Fatalf("update %s", e.Raw)
	}
	c.send("stepOut", nil) // out of fact(5): back at the top level, mid-line 11
	c.stopped("step", 11)
	c.send("stepOver", nil)
	c.stopped("step", 12)
	// Frame 0 is now the top level: the globals were there before (unchanged: not
	// reported) but for result, which is new.
	if e := c.expect("variableUpdate"); e.str("name") != "result" || e.str("value") != "120" {
		t.Fatalf("update %s", e.Raw)
	}
	c.send("continue", nil)
	c.expect("output")
	c.expect("exited")
}

func TestTerminateDuringInfiniteLoop(t *testing.T) {
	file := prog(t, "loop.kite")
	c := initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	c.send("terminate", nil)
	c.expect("terminated")
	c.send("stepInto", nil)
	c.expectError("stepInto", "Cannot stepInto: program has ended")
	c.send("terminate", nil) // again: still answered
	c.expect("terminated")
	c.send("start", nil)
	c.expectError("start", "send initialize")
	// A new initialize gives a fresh session.
	c.send("initialize", map[string]any{"file": file})
	c.expect("initialized")
	c.send("start", nil)
	c.expect("started")
	c.stopped("entry", 1)
	c.send("terminate", nil)
	c.expect("terminated")
	if rest := c.rest(); len(rest) != 0 {
		t.Fatalf("events after terminate: %v", rest)
	}
}

func TestTerminateBeforeStartAndWhileStopped(t *testing.T) {
	file := prog(t, "simple.kite")
	c := initialized(t, file)
	c.send("terminate", nil)
	c.expect("terminated")
	c.send("initialize", map[string]any{"file": file})
	c.expect("initialized")
	c.send("start", nil)
	c.expect("started")
	c.stopped("entry", 5)
	c.send("terminate", nil)
	c.expect("terminated")
}

func TestRuntimeErrorFlow(t *testing.T) {
	file := prog(t, "divzero.kite")
	c := initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	if e := c.expect("output"); e.str("text") != "before\n" || e.str("category") != "stdout" {
		t.Fatalf("output %s", e.Raw)
	}
	e := c.expect("error")
	if e.str("message") != "division by zero" || e.line() != 2 || e.Data["location"].(map[string]any)["file"] != file {
		t.Fatalf("error %s", e.Raw)
	}
	if e := c.stopped("exception", 2); e.str("function") != "div" {
		t.Fatalf("stop %s", e.Raw)
	}
	if v := c.vars(0); v["a"] != "10:int" || v["b"] != "0:int" {
		t.Fatalf("variables %v", v)
	}
	if got := c.stack(); !slices.Equal(got, []string{"div:2", "main:5"}) {
		t.Fatalf("stack %v", got)
	}
	c.send("continue", nil)
	e = c.expect("output")
	if e.str("category") != "stderr" || !strings.Contains(e.str("text"), "division by zero") {
		t.Fatalf("output %s", e.Raw)
	}
	if e := c.expect("exited"); e.num("exitCode") != 1 {
		t.Fatalf("exited %s", e.Raw)
	}
}

func TestExitCodeAndOutputCategories(t *testing.T) {
	file := prog(t, "exit3.kite")
	c := initialized(t, file)
	c.send("start", nil) // no breakpoint: entry stop
	c.expect("started")
	c.stopped("entry", 1)
	c.send("continue", nil)
	if e := c.expect("output"); e.str("category") != "stdout" || e.str("text") != "out\n" {
		t.Fatalf("output %s", e.Raw)
	}
	if e := c.expect("output"); e.str("category") != "stderr" || e.str("text") != "err\n" {
		t.Fatalf("output %s", e.Raw)
	}
	if e := c.expect("exited"); e.num("exitCode") != 3 {
		t.Fatalf("exited %s", e.Raw)
	}
	c.send("terminate", nil) // after the end: still answered
	c.expect("terminated")
}

func TestStartRules(t *testing.T) {
	file := prog(t, "fact.kite")
	// Explicit stopOnEntry with a breakpoint: entry first, then the breakpoint.
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 11})
	c.expect("breakpointSet")
	c.send("start", map[string]any{"stopOnEntry": true})
	c.expect("started")
	c.stopped("entry", 2)
	c.send("start", nil) // start while stopped resumes ("Begin or resume")
	c.expect("started")
	c.stopped("breakpoint", 11)
	c.send("continue", nil)
	c.expect("output")
	c.expect("exited")

	// Explicit stopOnEntry false and no breakpoint: runs to the end.
	c = initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	c.expect("output")
	c.expect("exited")
}

func TestPauseExtension(t *testing.T) {
	file := prog(t, "loop.kite")
	c := initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	c.send("pause", nil)
	e := c.stopped("pause", 0)
	if l := e.line(); l != 2 && l != 3 {
		t.Fatalf("paused at %s", e.Raw)
	}
	c.send("pause", nil)
	c.expectError("pause", "already stopped")
	c.send("stepOver", nil)
	c.stopped("step", 0)
	c.send("continue", nil)
	c.send("terminate", nil)
	c.skipTo("terminated")
}

func TestLogpointsAndHitConditions(t *testing.T) {
	file := prog(t, "fact.kite")
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 3, "logMessage": "n=${n}"})
	c.expect("breakpointSet")
	c.send("setBreakpoint", map[string]any{"file": file, "line": 7, "hitCondition": "== 2"})
	c.expect("breakpointSet")
	c.send("start", nil)
	c.expect("started")
	var out []string
	for {
		e := c.next()
		if e.Event == "output" {
			out = append(out, e.str("text"))
			continue
		}
		if e.Event != "stopped" || e.line() != 7 || e.num("breakpointId") != 2 {
			t.Fatalf("got %s", e.Raw)
		}
		break
	}
	if !slices.Equal(out, []string{"n=5\n", "n=4\n", "n=3\n", "n=2\n", "n=1\n"}) {
		t.Fatalf("logpoint output %q", out)
	}
	if e := c.eval("n", 0); e.str("result") != "3" { // second return: fact(3)
		t.Fatalf("n = %s", e.Raw)
	}
	c.send("continue", nil)
	if e := c.expect("output"); e.str("text") != "fact 120\n" {
		t.Fatalf("output %s", e.Raw)
	}
	c.expect("exited")
}

func TestBreakpointPathsAreNormalised(t *testing.T) {
	file := prog(t, "fact.kite")
	dir := filepath.Dir(file)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	c := newClient(t, Options{})
	c.send("initialize", map[string]any{"file": "fact.kite", "workingDir": dir})
	if e := c.expect("initialized"); e.str("file") != file {
		t.Fatalf("initialized %s", e.Raw)
	}
	for i, name := range []string{"./fact.kite", "sub/../fact.kite", filepath.Join(link, "fact.kite"), ""} {
		c.send("setBreakpoint", map[string]any{"file": name, "line": 10 + i%2})
		e := c.expect("breakpointSet")
		if want := name; (want != "" && e.str("file") != want) || (want == "" && e.str("file") != file) {
			t.Fatalf("breakpointSet %s", e.Raw)
		}
	}
	c.send("setBreakpoint", map[string]any{"file": filepath.Join(dir, "other.kite"), "line": 3})
	c.expectError("setBreakpoint", "not part of the program")
	// Lines 10 and 11 were set twice each under other names: the second replaced the
	// first, so ids 3 (line 10) and 4 (line 11) remain.
	c.send("start", nil)
	c.expect("started")
	if e := c.stopped("breakpoint", 10); e.num("breakpointId") != 3 {
		t.Fatalf("stop %s", e.Raw)
	}
	c.send("clearBreakpoint", map[string]any{"file": filepath.Join(link, "./fact.kite"), "line": 11})
	if e := c.expect("breakpointCleared"); e.num("line") != 11 || e.num("id") != 4 {
		t.Fatalf("cleared %s", e.Raw)
	}
	c.send("clearBreakpoint", map[string]any{"id": 3})
	if e := c.expect("breakpointCleared"); e.num("line") != 10 || e.num("id") != 3 {
		t.Fatalf("cleared %s", e.Raw)
	}
	c.send("clearBreakpoint", map[string]any{"file": file, "line": 10})
	c.expectError("clearBreakpoint", "no breakpoint")
	c.send("continue", nil)
	c.expect("output")
	c.expect("exited")
}

func TestInitializeErrorsKeepSessionUsable(t *testing.T) {
	dir := t.TempDir()
	c := newClient(t, Options{})
	c.send("initialize", map[string]any{"file": "missing.kite", "workingDir": dir})
	if e := c.expectError("initialize", "missing.kite"); !strings.Contains(e.str("message"), "no such file") {
		t.Fatalf("error %s", e.Raw)
	}
	c.send("initialize", nil)
	c.expectError("initialize", "no file")

	broken := prog(t, "broken.kite")
	c.send("initialize", map[string]any{"file": broken})
	e := c.expectError("initialize", "unexpected")
	errs, _ := e.Data["errors"].([]any)
	if len(errs) < 2 || e.line() != 1 {
		t.Fatalf("want every compile error: %s", e.Raw)
	}
	var lines []int
	for _, x := range errs {
		m := x.(map[string]any)
		l := m["location"].(map[string]any)
		if l["file"] != broken || m["message"] == "" {
			t.Fatalf("compile error %v", m)
		}
		lines = append(lines, int(l["line"].(float64)))
		if !strings.Contains(e.str("message"), m["message"].(string)) {
			t.Fatalf("message %q lacks %q", e.str("message"), m["message"])
		}
	}
	if !slices.Contains(lines, 1) || !slices.Contains(lines, 3) {
		t.Fatalf("error lines %v", lines)
	}
	c.send("stepInto", nil)
	c.expectError("stepInto", "initialize first")

	// Still usable.
	file := prog(t, "simple.kite")
	c.send("initialize", map[string]any{"file": file})
	c.expect("initialized")
	c.send("start", nil)
	c.expect("started")
	c.stopped("entry", 5)

	// A failed initialize while a program is loaded leaves it loaded.
	c.send("initialize", map[string]any{"file": broken})
	c.expect("error")
	c.send("stepInto", nil)
	c.stopped("step", 6)
}

func TestFileFromCommandLine(t *testing.T) {
	file := prog(t, "simple.kite")
	c := newClient(t, Options{File: filepath.Base(file), WorkingDir: filepath.Dir(file)})
	c.send("initialize", map[string]any{})
	if e := c.expect("initialized"); e.str("file") != file {
		t.Fatalf("initialized %s", e.Raw)
	}
}

// TestBadInput sends every kind of command that cannot be done: each gets an error event
// naming the command, and the server keeps serving.
func TestBadInput(t *testing.T) {
	file := prog(t, "simple.kite")
	c := newClient(t, Options{MaxLine: 4096})
	for _, cmd := range []string{"start", "stepInto", "stepOver", "stepOut", "continue", "pause", "setBreakpoint",
		"clearBreakpoint", "getVariables", "getStackTrace", "evaluate", "terminate"} {
		c.send(cmd, map[string]any{"expression": "1", "line": 1})
		c.expectError(cmd, "initialize first")
	}
	for _, tc := range []struct {
		line, command, message string
	}{
		{`{"type":"command","command":"frobnicate","params":{}}`, "frobnicate", `unknown command "frobnicate"`},
		{`{"type":"command","command":"stepInto"`, "stepInto", "malformed JSON"},
		{`not json at all`, "", "malformed JSON"},
		{`[1,2,3]`, "", "malformed JSON"},
		{`{"type":"command","params":{}}`, "", "missing \"command\""},
		{`{"type":"event","command":"start"}`, "start", "not \"command\""},
		{`{"type":"command","command":"initialize","params":{"file":42}}`, "initialize", "invalid params"},
		{`{"type":"command","command":"initialize","params":"x"}`, "initialize", "invalid params"},
		{"\xff\xfe{}", "", "malformed JSON"},
		{strings.Repeat("x", 5000), "", "longer than 4096 bytes"},
	} {
		c.raw(tc.line + "\n")
		c.expectError(tc.command, tc.message)
	}
	c.raw("\n   \r\n")                                                          // blank lines are ignored
	c.raw(`{"command":"initialize","params":{"file":"` + file + `"}}` + "\r\n") // "type" may be left out; CRLF works
	c.expect("initialized")
	for _, tc := range []struct {
		cmd     string
		params  map[string]any
		message string
	}{
		{"stepInto", nil, "Cannot stepInto: program not started"},
		{"continue", nil, "Cannot continue: program not started"},
		{"getVariables", nil, "program not started"},
		{"getStackTrace", nil, "program not started"},
		{"evaluate", map[string]any{"expression": "x"}, "program not started"},
		{"evaluate", map[string]any{"expression": "  "}, "empty expression"},
		{"setBreakpoint", map[string]any{"file": file, "line": 0}, "invalid line"},
		{"setBreakpoint", map[string]any{"file": file, "line": 99}, "no code"},
		{"setBreakpoint", map[string]any{"file": file, "line": 5, "hitCondition": "sometimes"}, "hit condition"},
		{"setBreakpoint", map[string]any{"file": file, "line": 5, "condition": "x ==="}, "condition"},
		{"setBreakpoint", map[string]any{"file": file, "line": 5, "logMessage": "x=${x"}, "unclosed"},
		{"setBreakpoint", map[string]any{"file": file, "line": "five"}, "invalid params"},
		{"clearBreakpoint", map[string]any{"file": file, "line": 5}, "no breakpoint"},
		{"clearBreakpoint", map[string]any{"id": 7}, "no breakpoint 7"},
		{"getVariables", map[string]any{"frameIndex": "zero"}, "invalid params"},
	} {
		c.send(tc.cmd, tc.params)
		c.expectError(tc.cmd, tc.message)
	}
	c.send("start", nil)
	c.expect("started")
	c.stopped("entry", 5)
	c.send("start", map[string]any{"stopOnEntry": "yes"})
	c.expectError("start", "invalid params")
	c.send("getVariables", map[string]any{"frameIndex": 3})
	c.expectError("getVariables", "no such frame")
	c.send("getVariables", map[string]any{"frameIndex": -1})
	c.expectError("getVariables", "no such frame")
	// After all that, the session works.
	c.send("stepInto", nil)
	c.stopped("step", 6)
	c.expect("variableUpdate")
}

// TestLineLimit checks the real limit: a command line over 1 MiB is refused and skipped,
// one just under it is read.
func TestLineLimit(t *testing.T) {
	c := newClient(t, Options{})
	pad := func(n int) string {
		line := `{"type":"command","command":"evaluate","params":{"expression":"1"},"pad":"`
		return line + strings.Repeat("a", n-len(line)-2) + `"}`
	}
	c.raw(pad(MaxLine+1) + "\n")
	c.expectError("", "longer than 1048576 bytes")
	c.raw(pad(MaxLine) + "\n")
	c.expectError("evaluate", "initialize first") // read and parsed
	c.raw(strings.Repeat("z", 3*MaxLine) + "\n")
	c.expectError("", "longer than")
	c.send("getStackTrace", nil)
	c.expectError("getStackTrace", "initialize first")
}

// TestEndOfInput: closing stdin terminates a running program and Serve returns nil, leaving
// no goroutine behind.
func TestEndOfInput(t *testing.T) {
	before := runtime.NumGoroutine()
	file := prog(t, "loop.kite")
	c := initialized(t, file)
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	if rest := c.rest(); !slices.Equal(rest, []string{"terminated"}) {
		t.Fatalf("events after end of input: %v", rest)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestFailingConditionStopsWithError: a condition that cannot be evaluated stops the program
// with an error event saying why, then stopped at the breakpoint.
func TestFailingConditionStopsWithError(t *testing.T) {
	file := prog(t, "fact.kite")
	c := initialized(t, file)
	c.send("setBreakpoint", map[string]any{"file": file, "line": 3, "condition": "10 / (n - 3) > 0"})
	c.expect("breakpointSet")
	c.send("start", nil)
	c.expect("started")
	c.stopped("breakpoint", 3) // n == 5: 10 / 2 > 0
	c.send("continue", nil)
	c.stopped("breakpoint", 3) // n == 4
	c.send("continue", nil)
	e := c.expect("error")
	if !strings.Contains(e.str("message"), "division by zero") || e.line() != 3 {
		t.Fatalf("error %s", e.Raw)
	}
	if e := c.stopped("breakpoint", 3); e.num("breakpointId") != 1 {
		t.Fatalf("stop %s", e.Raw)
	}
	if e := c.eval("n", 0); e.str("result") != "3" {
		t.Fatalf("n = %s", e.Raw)
	}
	c.send("terminate", nil)
	c.expect("terminated")

	// A step after a runtime error ends the program like continue.
	c = initialized(t, prog(t, "divzero.kite"))
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	c.expect("output")
	c.expect("error")
	c.stopped("exception", 2)
	c.send("stepInto", nil)
	if e := c.skipTo("exited"); e.num("exitCode") != 1 {
		t.Fatalf("exited %s", e.Raw)
	}
}

func fact(n int) int {
	if n <= 1 {
		return 1
	}
	return n * fact(n-1)
}

package dap

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A native program that runs without a stop gets its threads' thread events (started,
// exited) while it runs, before its exited event, with the threads' ids; with
// "threadEvents": false it gets none.
func TestThreadEventsLive(t *testing.T) {
	if got, want := threadEvents(t, nil); len(want) != 6 || !slices.Equal(got, want) {
		t.Fatalf("thread events before the exit: %v, want %v", got, want)
	}
	if got, _ := threadEvents(t, map[string]any{"threadEvents": false}); len(got) != 0 {
		t.Fatalf("thread events with threadEvents false: %v", got)
	}
}

// threadEvents runs testdata threads.c to its end with the launch options extra and returns
// the thread events it got and the ones its printed thread ids call for.
func threadEvents(t *testing.T, extra map[string]any) (got, want []string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdbserver")
	src, _ := filepath.Abs("../../backend/gdbremote/testdata/native/threads.c")
	exe := filepath.Join(t.TempDir(), "threads")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	args := map[string]any{"kind": "native", "program": exe}
	for k, v := range extra {
		args[k] = v
	}
	c.do("launch", args)
	c.event("initialized")
	c.do("configurationDone", nil)
	var out strings.Builder
	c.next("exited event", func(m map[string]any) bool {
		if m["type"] != "event" {
			return false
		}
		b, _ := m["body"].(map[string]any)
		switch m["event"] {
		case "thread":
			got = append(got, fmt.Sprint(b["reason"], " ", b["threadId"]))
		case "output":
			out.WriteString(fmt.Sprint(b["output"]))
		case "stopped":
			t.Fatalf("the program stopped: %v", b)
		}
		return m["event"] == "exited"
	})
	for _, m := range regexp.MustCompile(`tid (\d+)`).FindAllStringSubmatch(out.String(), -1) {
		want = append(want, "started "+m[1], "exited "+m[1])
	}
	return got, want
}

// In the debug console (repl) a C program's function can be called, as gdb's call does; a
// hover, which is pure, refuses and the program is not run.
func TestReplCallsAFunction(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "sq", "int square(int x) { return x * x; }\nint main(void) {\n    int n = 3;\n    return square(n) - 9;\n}\n")
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 4}}})
	c.do("configurationDone", nil)
	st := c.event("stopped")
	tid := st["threadId"]
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	fid := frames[0].(map[string]any)["id"]
	if r := c.do("evaluate", map[string]any{"expression": "square(n + 4) + 1", "frameId": fid, "context": "repl"}); r["result"] != "50" {
		t.Errorf("repl square(n + 4) + 1 = %v, want 50", r["result"])
	}
	if msg := c.fail("evaluate", map[string]any{"expression": "square(2)", "frameId": fid, "context": "hover"}); !strings.Contains(msg, "would run the program's code") {
		t.Errorf("hover square(2): %q", msg)
	}
	if r := c.do("evaluate", map[string]any{"expression": "n", "frameId": fid, "context": "hover"}); r["result"] != "3" {
		t.Errorf("n after the call = %v, want 3", r["result"])
	}
	c.do("continue", map[string]any{"threadId": tid})
	if e := c.event("exited"); e["exitCode"] != float64(0) {
		t.Errorf("exit code %v, want 0 (the call left the program as it was)", e["exitCode"])
	}
}

// A native program that a signal ends: the console says so in gdb's words before the
// exited event, whose code is the shell's (128 + the signal's number).
func TestSignalEndIsTold(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildC(t, "segv", "#include <signal.h>\nint main(void) {\n    raise(SIGSEGV);\n    return 0;\n}\n")
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("configurationDone", nil)
	st := c.event("stopped") // gdb's default for SIGSEGV: stop
	if st["reason"] != "exception" {
		t.Fatalf("stopped for %v, want exception", st["reason"])
	}
	c.do("continue", map[string]any{"threadId": st["threadId"]})
	var said strings.Builder
	e := c.next("exited event", func(m map[string]any) bool {
		if m["event"] == "output" {
			b, _ := m["body"].(map[string]any)
			said.WriteString(fmt.Sprint(b["output"]))
		}
		return m["event"] == "exited"
	})
	if b, _ := e["body"].(map[string]any); b["exitCode"] != float64(139) {
		t.Errorf("exited %v, want exit code 139", e["body"])
	}
	if want := "Program terminated with signal SIGSEGV, Segmentation fault.\n"; !strings.Contains(said.String(), want) {
		t.Errorf("the console said %q, want %q", said.String(), want)
	}
}

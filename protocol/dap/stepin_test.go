package dap

import (
	"fmt"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// callsProg calls three functions on one line: sq twice for the arguments, then add.
const callsProg = `int sq(int x) { return x * x; }
int add(int a, int b) { return a + b; }
int main(void) {
  int x = add(sq(2), sq(3));
  return x == 13 ? 0 : 1;
}
`

// stepInTargets lists the calls of the line the program stopped on, in the order they run
// (the arguments' first); stepIn with one's id enters that call, running the others: the
// program stops in add with sq's results as its arguments. A target id of another stop is
// refused, a frame other than the top one has none.
func TestStepInTargetsNative(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "calls", callsProg)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	caps := c.event("capabilities")["capabilities"].(map[string]any)
	if caps["supportsStepInTargetsRequest"] != true {
		t.Fatalf("capabilities: %v", caps)
	}
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 4}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	top := frames[0].(map[string]any)["id"]
	targets := c.do("stepInTargets", map[string]any{"frameId": top})["targets"].([]any)
	var labels []string
	for _, tg := range targets {
		labels = append(labels, tg.(map[string]any)["label"].(string))
	}
	if len(labels) != 3 || labels[0] != "sq" || labels[1] != "sq" || labels[2] != "add" {
		t.Fatalf("targets: %v", targets)
	}
	if line := targets[2].(map[string]any)["line"]; line != float64(4) {
		t.Errorf("add's line %v, want 4", line)
	}
	if len(frames) > 1 {
		if none := c.do("stepInTargets", map[string]any{"frameId": frames[1].(map[string]any)["id"]})["targets"].([]any); len(none) != 0 {
			t.Errorf("a caller's frame has targets: %v", none)
		}
	}
	c.do("stepIn", map[string]any{"threadId": tid, "targetId": targets[2].(map[string]any)["id"]})
	if st := c.event("stopped"); st["reason"] != "step" {
		t.Fatalf("stop: %v", st)
	}
	frames = c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	if name := frames[0].(map[string]any)["name"]; name != "add" {
		t.Fatalf("stepped into %v, want add", name)
	}
	for expr, want := range map[string]string{"a": "4", "b": "9"} {
		if got := c.do("evaluate", map[string]any{"expression": expr, "frameId": frames[0].(map[string]any)["id"]})["result"]; got != want {
			t.Errorf("%s = %v, want %s", expr, got, want)
		}
	}
	if msg := c.fail("stepIn", map[string]any{"threadId": tid, "targetId": 2}); msg == "" {
		t.Error("a target id of another stop was taken")
	}
	c.do("continue", map[string]any{"threadId": tid})
	if e := c.event("exited"); e["exitCode"] != float64(0) {
		t.Errorf("exit code %v, want 0", e["exitCode"])
	}
}

// On a Kite program the line's calls of Kite functions are listed with their columns
// (print, a builtin, is not), and stepIn with one enters it.
func TestStepInTargetsKite(t *testing.T) {
	c := newTestClient(t, Options{})
	path := writeKite(t, "fn sq(x) {\n    return x * x\n}\nfn add(a, b) {\n    return a + b\n}\nprint(add(sq(2), sq(3)))\n")
	launchKite(t, c, path, false, 7)
	st := c.event("stopped")
	tid := st["threadId"]
	top := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)[0].(map[string]any)["id"]
	targets := c.do("stepInTargets", map[string]any{"frameId": top})["targets"].([]any)
	var got []string
	for _, tg := range targets {
		m := tg.(map[string]any)
		got = append(got, fmt.Sprintf("%v@%v:%v", m["label"], m["line"], m["column"]))
	}
	if strings.Join(got, " ") != "sq@7:11 sq@7:18 add@7:7" {
		t.Fatalf("targets: %v", got)
	}
	c.do("stepIn", map[string]any{"threadId": tid, "targetId": targets[1].(map[string]any)["id"]})
	c.event("stopped")
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	if name := frames[0].(map[string]any)["name"]; name != "sq" {
		t.Fatalf("stepped into %v, want sq", name)
	}
	if x := c.do("evaluate", map[string]any{"expression": "x", "frameId": frames[0].(map[string]any)["id"]})["result"]; x != "3" {
		t.Errorf("x = %v, want 3 (the second call's)", x)
	}
}

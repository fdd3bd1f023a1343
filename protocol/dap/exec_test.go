package dap

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// until collects the events up to the first named end, which it returns last.
func (c *testClient) until(end ...string) []map[string]any {
	c.t.Helper()
	var seen []map[string]any
	c.next("event "+strings.Join(end, " or "), func(m map[string]any) bool {
		if m["type"] != "event" {
			return false
		}
		seen = append(seen, m)
		for _, e := range end {
			if m["event"] == e {
				return true
			}
		}
		return false
	})
	return seen
}

// A program that execs is followed in a DAP session: the console says so, the breakpoint
// set in the source is placed again in the new program and reached there; when the program
// then runs one that has no place for it, a breakpoint event says it is unverified, with
// why, and the run goes on to the end.
func TestExecNative(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "execs", realparts.ExecProg)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe, "args": []string{"/bin/true"}})
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 3}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	x := func() any {
		frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
		return c.do("evaluate", map[string]any{"expression": "x", "frameId": frames[0].(map[string]any)["id"]})["result"]
	}
	if got := x(); got != "1" {
		t.Fatalf("first stop: x = %v, want 1", got)
	}
	c.do("continue", map[string]any{"threadId": tid})
	said := false
	for _, e := range c.until("stopped", "exited") {
		body, _ := e["body"].(map[string]any)
		said = said || e["event"] == "output" && strings.Contains(body["output"].(string), "is executing new program: "+exe)
		if e["event"] == "exited" {
			t.Fatalf("the program ended before its exec's breakpoint: %v", e)
		}
	}
	if !said {
		t.Error("the console did not say the program runs a new one")
	}
	if got := x(); got != "41" {
		t.Fatalf("after the exec: x = %v, want 41", got)
	}
	c.do("continue", map[string]any{"threadId": tid})
	unverified := false
	for _, e := range c.until("exited") {
		body, _ := e["body"].(map[string]any)
		if e["event"] == "breakpoint" {
			bp := body["breakpoint"].(map[string]any)
			msg, _ := bp["message"].(string)
			unverified = unverified || bp["verified"] == false && strings.Contains(msg, "no source file")
		}
		if e["event"] == "exited" && body["exitCode"] != float64(0) {
			t.Errorf("exit code %v, want 0", body["exitCode"])
		}
	}
	if !unverified {
		t.Error("no breakpoint event said the breakpoint has no place in /bin/true")
	}
}

package dap

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// "followForkMode": "child" debugs the child of the program's fork, as gdb's
// follow-fork-mode child: the console says so, the breakpoint (the parent's, copied) stops
// the child, whose thread is another than the one launched, with its variables; the exit
// is the child's. Without it the child runs free and the parent's exit is told. A Kite
// program, which does not fork, and a mode that is neither answer an error.
func TestFollowForkChild(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "forks", realparts.ForkProg)
	for _, mode := range []string{"child", "parent"} {
		c := newTestClient(t, Options{})
		c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
		c.do("launch", map[string]any{"kind": "native", "program": exe, "followForkMode": mode})
		c.event("initialized")
		c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 6}}})
		c.do("configurationDone", nil)
		if mode == "parent" {
			if code := c.event("exited")["exitCode"]; code != float64(0) {
				t.Errorf("following the parent: exit code %v, want the parent's 0", code)
			}
			c.do("disconnect", map[string]any{"terminateDebuggee": true})
			continue
		}
		var console strings.Builder
		for _, e := range c.until("stopped") {
			if b, _ := e["body"].(map[string]any); e["event"] == "output" {
				console.WriteString(b["output"].(string))
			}
		}
		if !strings.Contains(console.String(), "[Detaching after fork from parent process") {
			t.Errorf("the console did not tell of the fork followed:\n%s", console.String())
		}
		threads := c.do("threads", nil)["threads"].([]any)
		if len(threads) != 1 {
			t.Fatalf("threads %v, want the child's one", threads)
		}
		tid := threads[0].(map[string]any)["id"]
		frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
		if top := frames[0].(map[string]any); top["name"] != "work" || top["line"] != float64(6) {
			t.Errorf("top frame %v, want work at line 6", top)
		}
		ref := c.do("scopes", map[string]any{"frameId": frames[0].(map[string]any)["id"]})["scopes"].([]any)[0].(map[string]any)["variablesReference"]
		if v := c.do("variables", map[string]any{"variablesReference": ref})["variables"].([]any)[0].(map[string]any); v["name"] != "n" || v["value"] != "5" {
			t.Errorf("work's argument %v, want n = 5", v)
		}
		c.do("continue", map[string]any{"threadId": tid})
		if code := c.event("exited")["exitCode"]; code != float64(3) {
			t.Errorf("following the child: exit code %v, want the child's 3", code)
		}
		c.do("disconnect", map[string]any{"terminateDebuggee": true})
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg"})
	if msg := c.fail("launch", map[string]any{"program": writeKite(t, "print(1)\n"), "followForkMode": "child"}); !strings.Contains(msg, "does not follow forks") {
		t.Errorf("a Kite program with followForkMode child: %q", msg)
	}
	if msg := c.fail("launch", map[string]any{"kind": "native", "program": exe, "followForkMode": "both"}); !strings.Contains(msg, `"parent" or "child"`) {
		t.Errorf("followForkMode both: %q", msg)
	}
}

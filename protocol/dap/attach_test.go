package dap

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// attach with "processId" (VS Code's, as its C/C++ adapters take it) debugs a process that
// was running already: a breakpoint its loop reaches stops it, its stack and variables are
// read, and disconnect lets it go on (detached, its breakpoint taken out) to its own end.
func TestAttachToProcessID(t *testing.T) {
	realparts.NeedAttach(t)
	src, exe := realparts.BuildC(t, "attachloop", realparts.LoopProg)
	prog := realparts.StartReady(t, exe, "ready")
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("attach", map[string]any{"processId": prog.Pid()})
	c.event("initialized")
	bps := c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": realparts.LoopLine}}})
	if b := bps["breakpoints"].([]any)[0].(map[string]any); b["verified"] != true {
		t.Fatalf("breakpoint: %v", b)
	}
	c.do("configurationDone", nil)
	st := c.event("stopped")
	if st["reason"] != "breakpoint" {
		t.Fatalf("stopped: %v", st)
	}
	frames := c.do("stackTrace", map[string]any{"threadId": st["threadId"]})["stackFrames"].([]any)
	if f := frames[0].(map[string]any); f["name"] != "main" || f["line"] != float64(realparts.LoopLine) {
		t.Fatalf("top frame %v", f)
	}
	if r := c.do("evaluate", map[string]any{"expression": "n > 0", "frameId": frames[0].(map[string]any)["id"], "context": "watch"}); r["result"] != "1" {
		t.Errorf("n > 0: %v", r["result"])
	}
	c.do("disconnect", nil)
	prog.EndedNormally(t, "done 3000\n")
}

// attach refuses a configuration it cannot honour: a process id beside a stub's address, a
// negative one, neither.
func TestAttachConfigurationsRefused(t *testing.T) {
	for _, args := range []map[string]any{
		{"processId": 1, "address": "127.0.0.1:1"},
		{"processId": -3},
		{},
	} {
		c := newTestClient(t, Options{})
		c.do("initialize", nil)
		if r := c.response(c.send("attach", args)); r["success"] != false || r["message"] == "" {
			t.Errorf("attach %v: %v", args, r)
		}
	}
}

package dap

import (
	"strings"
	"testing"
)

// TestSetVariableAndExpression changes a parameter through its scope and another through
// setExpression, and sees the program use both; bad requests are errors that keep serving.
func TestSetVariableAndExpression(t *testing.T) {
	c := newTestClient(t, Options{})
	path := writeKite(t, prog)
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"program": path})
	caps := c.event("capabilities")["capabilities"].(map[string]any)
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": []any{map[string]any{"line": 2}}})
	c.do("configurationDone", nil)
	if caps["supportsSetVariable"] != true || caps["supportsSetExpression"] != true {
		t.Fatalf("capabilities: %v", caps)
	}
	c.event("stopped") // add(0, 0)
	top := c.do("stackTrace", map[string]any{"threadId": 1})["stackFrames"].([]any)[0].(map[string]any)
	locals := c.do("scopes", map[string]any{"frameId": top["id"]})["scopes"].([]any)[0].(map[string]any)
	r := c.do("setVariable", map[string]any{"variablesReference": locals["variablesReference"], "name": "a", "value": "40"})
	if r["value"] != "40" || r["type"] != "int" {
		t.Fatalf("setVariable: %v", r)
	}
	r = c.do("setExpression", map[string]any{"expression": "b", "value": "a / 20", "frameId": top["id"]})
	if r["value"] != "2" {
		t.Fatalf("setExpression: %v", r)
	}
	for _, bad := range []struct {
		cmd  string
		args map[string]any
		want string
	}{
		{"setVariable", map[string]any{"variablesReference": 9999, "name": "a", "value": "1"}, "no such variable"},
		{"setVariable", map[string]any{"variablesReference": locals["variablesReference"], "name": "a", "value": "1 +"}, "expected"},
		{"setExpression", map[string]any{"expression": "a + b", "value": "1", "frameId": top["id"]}, "cannot assign"},
		{"setExpression", map[string]any{"expression": "a", "value": "", "frameId": top["id"]}, "a name and a value"},
	} {
		if msg := c.fail(bad.cmd, bad.args); !strings.Contains(msg, bad.want) {
			t.Errorf("%s %v: %q, want %q", bad.cmd, bad.args, msg, bad.want)
		}
	}
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": []any{}})
	c.do("continue", map[string]any{"threadId": 1})
	out := c.next("output total", func(m map[string]any) bool {
		b, _ := m["body"].(map[string]any)
		return m["event"] == "output" && strings.HasPrefix(b["output"].(string), "total")
	})
	if got := out["body"].(map[string]any)["output"]; got != "total 52\n" {
		t.Fatalf("the program printed %q, want total 52 (add(40, 2) then 1 + 2 + 3 + 4)", got)
	}
}

package dap

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

const prog = `fn add(a, b) {
    let s = a + b
    return s
}
let big = range(0, 1000000)
let total = 0
for i in range(0, 5) {
    total = add(total, i)
}
print("total ${total}")
`

// launchKite initializes, launches prog and sets a breakpoint on line before starting.
func launchKite(t *testing.T, c *testClient, path string, stopOnEntry bool, lines ...int) {
	t.Helper()
	caps := c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	if caps["supportsConfigurationDoneRequest"] != true || caps["supportsLogPoints"] != true {
		t.Fatalf("capabilities: %v", caps)
	}
	c.do("launch", map[string]any{"program": path, "stopOnEntry": stopOnEntry})
	c.event("initialized")
	var bps []map[string]any
	for _, l := range lines {
		bps = append(bps, map[string]any{"line": l})
	}
	if len(lines) > 0 {
		c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": path}, "breakpoints": bps})
	}
	c.do("configurationDone", nil)
}

func TestBadInputKeepsServing(t *testing.T) {
	c := newTestClient(t, Options{})
	cases := []struct {
		name string
		send func()
		want string
	}{
		{"garbage header", func() { c.raw([]byte("hello there\r\n\r\n")) }, "malformed header"},
		{"no length", func() { c.raw([]byte("X-Other: 1\r\n\r\n")) }, "no Content-Length"},
		{"bad length", func() { c.raw([]byte("Content-Length: -5\r\n\r\n")) }, "bad Content-Length"},
		{"not JSON", func() { c.raw([]byte("Content-Length: 5\r\n\r\n{{{{{")) }, "bad message"},
		{"huge frame", func() {
			c.raw([]byte("Content-Length: 100000000\r\n\r\n"))
			chunk := bytes.Repeat([]byte("x"), 1<<20)
			for i := 0; i < 100000000/len(chunk); i++ {
				c.raw(chunk)
			}
			c.raw(chunk[:100000000%len(chunk)])
		}, "refused"},
		{"unknown command", func() { c.send("frobnicate", nil) }, `unknown command "frobnicate"`},
		{"wrong types", func() { c.send("setBreakpoints", map[string]any{"source": 3, "breakpoints": "x"}) }, "bad arguments"},
		{"wrong state", func() { c.send("next", map[string]any{"threadId": 1}) }, "no debuggee"},
		{"event from client", func() { c.raw(frameOf(`{"seq":9,"type":"event","event":"x"}`)) }, "bad message"},
	}
	for _, tc := range cases {
		tc.send()
		m := c.next(tc.name, func(m map[string]any) bool { return m["type"] == "response" })
		if m["success"] != false || !strings.Contains(fmt.Sprint(m["message"]), tc.want) {
			t.Errorf("%s: got %v, want an error with %q", tc.name, m, tc.want)
		}
	}
	// still serving
	if caps := c.do("initialize", map[string]any{"adapterID": "x"}); caps["supportsCancelRequest"] != true {
		t.Errorf("initialize after bad input: %v", caps)
	}
}

func frameOf(s string) []byte { return []byte(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(s), s)) }

func TestKiteSession(t *testing.T) {
	c := newTestClient(t, Options{})
	path := writeKite(t, prog)
	launchKite(t, c, path, false, 2)
	st := c.event("stopped")
	if st["reason"] != "breakpoint" || len(st["hitBreakpointIds"].([]any)) != 1 {
		t.Fatalf("stopped: %v", st)
	}
	frames := c.do("stackTrace", map[string]any{"threadId": 1, "startFrame": 0, "levels": 1})
	if frames["totalFrames"].(float64) != 2 || len(frames["stackFrames"].([]any)) != 1 {
		t.Fatalf("stackTrace paging: %v", frames)
	}
	top := frames["stackFrames"].([]any)[0].(map[string]any)
	if top["name"] != "add" || top["line"].(float64) != 2 {
		t.Fatalf("top frame: %v", top)
	}
	scopes := c.do("scopes", map[string]any{"frameId": top["id"]})["scopes"].([]any)
	locals := scopes[0].(map[string]any)
	vars := c.do("variables", map[string]any{"variablesReference": locals["variablesReference"]})["variables"].([]any)
	if got := fmt.Sprint(vars); !strings.Contains(got, "name:a") || !strings.Contains(got, "name:b") {
		t.Fatalf("locals: %v", got)
	}
	// the million-item list, paged
	globals := scopes[1].(map[string]any)
	gv := c.do("variables", map[string]any{"variablesReference": globals["variablesReference"]})["variables"].([]any)
	var big map[string]any
	for _, v := range gv {
		if v.(map[string]any)["name"] == "big" {
			big = v.(map[string]any)
		}
	}
	if big == nil || big["indexedVariables"].(float64) != 1000000 {
		t.Fatalf("big: %v", big)
	}
	if v := big["value"].(string); len(v) > 1000 || !strings.HasSuffix(v, ", ... 999900 more]") {
		t.Errorf("a million-item list's value text should be a short preview: %d bytes, ends %q", len(v), v[max(0, len(v)-30):])
	}
	page := c.do("variables", map[string]any{"variablesReference": big["variablesReference"], "filter": "indexed", "start": 999998, "count": 5})["variables"].([]any)
	if len(page) != 2 || page[1].(map[string]any)["name"] != "999999" || page[1].(map[string]any)["value"] != "999999" {
		t.Fatalf("last page of big: %v", page)
	}
	// watch is pure, repl may assign
	if msg := c.fail("evaluate", map[string]any{"expression": "print(1)", "context": "watch", "frameId": top["id"]}); msg == "" {
		t.Error("a watch calling print should fail")
	}
	if r := c.do("evaluate", map[string]any{"expression": "a + b", "context": "hover", "frameId": top["id"]}); r["result"] != "0" {
		t.Errorf("hover a+b: %v", r)
	}
	// a hex value format, as VS Code's "View as hex" asks
	if r := c.do("evaluate", map[string]any{"expression": "[255, -1]", "context": "watch", "frameId": top["id"], "format": map[string]any{"hex": true}}); r["result"] != "[0xff, 0xffffffffffffffff]" {
		t.Errorf("hex evaluate: %v", r)
	}
	comp := c.do("completions", map[string]any{"text": "to", "column": 3, "frameId": top["id"]})
	if !strings.Contains(fmt.Sprint(comp["targets"]), "label:total") {
		t.Errorf("completions: %v", comp)
	}
	// an index of a million-element list: the first ones, at once, replacing what was typed
	comp = c.do("completions", map[string]any{"text": "big[99", "column": 7, "frameId": top["id"]})
	if ts := comp["targets"].([]any); len(ts) == 0 || len(ts) > 1000 || ts[0].(map[string]any)["label"] != "99]" ||
		ts[0].(map[string]any)["start"] != float64(4) || ts[0].(map[string]any)["length"] != float64(2) {
		t.Errorf("completions of big[99: %v", ts[:min(len(ts), 3)])
	}
	// step out lands in the caller
	c.do("stepOut", map[string]any{"threadId": 1})
	if st := c.event("stopped"); st["reason"] != "step" {
		t.Fatalf("after stepOut: %v", st)
	}
	frames = c.do("stackTrace", map[string]any{"threadId": 1})
	if f := frames["stackFrames"].([]any)[0].(map[string]any); f["line"].(float64) != 8 {
		t.Errorf("after stepOut at %v, want line 8", f)
	}
	// replace the breakpoint with a logpoint and run to the end
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": path},
		"breakpoints": []any{map[string]any{"line": 2, "logMessage": "a=${a}"}}})
	c.do("continue", map[string]any{"threadId": 1})
	var outs []string
	for {
		m := c.next("output or exit", func(m map[string]any) bool {
			return m["type"] == "event" && (m["event"] == "output" || m["event"] == "exited")
		})
		b := m["body"].(map[string]any)
		if m["event"] == "exited" {
			if b["exitCode"].(float64) != 0 {
				t.Errorf("exit code %v", b["exitCode"])
			}
			break
		}
		outs = append(outs, fmt.Sprint(b["category"], ":", b["output"]))
	}
	got := strings.Join(outs, "")
	if !strings.Contains(got, "console:a=1\n") || !strings.Contains(got, "stdout:total 10\n") {
		t.Errorf("output: %q", got)
	}
	c.event("terminated")
	if msg := c.fail("stackTrace", map[string]any{"threadId": 1}); !strings.Contains(msg, "ended") {
		t.Errorf("stackTrace after the end: %q", msg)
	}
	c.do("disconnect", nil)
}

// A cancel request reaches a request that is running: an attach to a stub that never
// answers ends at once with "cancelled", and the connection keeps serving.
func TestCancelRunningAttach(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accepts and says nothing
		}
	}()
	c := newTestClient(t, Options{})
	c.do("initialize", nil)
	exe, _ := os.Executable()
	seq := c.send("attach", map[string]any{"address": l.Addr().String(), "elf": exe})
	c.event("progressStart")
	start := time.Now()
	c.send("cancel", map[string]any{"requestId": seq})
	r := c.response(seq)
	if r["success"] != false || r["message"] != "cancelled" || time.Since(start) > 20*time.Second {
		t.Fatalf("attach after cancel: %v after %v", r, time.Since(start))
	}
	if caps := c.do("initialize", nil); caps["supportsCancelRequest"] != true {
		t.Fatal("not serving after a cancel")
	}
}

// A request cut short (not JSON) is answered with an error for the seq and command it still
// shows, so that the client knows which request failed; a body with neither gets seq 0.
func TestTruncatedRequestIsAnsweredForItsSeq(t *testing.T) {
	c := newTestClient(t, Options{})
	for body, want := range map[string]string{
		`{"seq":12,"type":"request","command":"stackTrace","arguments":`: "12 stackTrace",
		`{"seq": 13 , "command": "next"`:                                 "13 next",
		`{"seq":1234567890123,"command":"next"`:                          "0 next",
		`{{{{`:                                                           "0 ",
	} {
		c.raw(frameOf(body))
		m := c.next(body, func(m map[string]any) bool { return m["type"] == "response" })
		got := fmt.Sprintf("%v %v", m["request_seq"], m["command"])
		if m["success"] != false || got != want {
			t.Errorf("%s: answered %q (%v), want %q", body, got, m, want)
		}
	}
}

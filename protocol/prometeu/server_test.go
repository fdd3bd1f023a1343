package prometeu

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/kite/compile"
)

func TestHandshakeRules(t *testing.T) {
	rt := startRuntime(t, cartDir("colorsquare"), console.Options{}, false) // runs unpaced
	c := dial(t, rt.addr)
	h := c.read()
	want := `map[cartridge:map[app_id:1 app_mode:Debug app_version:1.0.0 title:ColorSquare] protocol_version:1 runtime_version:0.1.0 type:handshake]`
	if fmt.Sprint(h) != want {
		t.Fatalf("handshake %v\nwant %s", h, want)
	}
	// Nothing but answers to the handshake is accepted before it, and no event arrives
	// (the console runs and sends telemetry meanwhile).
	for _, line := range []string{`{"type":"getState","id":"a"}`, `{"type":"pause","id":2}`, `{"type":"resume"}`} {
		c.sendLine(line)
		r := c.read()
		if r["type"] != "response" || r["ok"] != false || !strings.Contains(r["error"].(string), "answer the handshake with start or ok first") {
			t.Fatalf("%s before the handshake: %v", line, r)
		}
	}
	c.sendLine(`{"type":"getState","id":"a"}`)
	if r := c.read(); r["id"] != "a" || r["request"] != "getState" {
		t.Fatalf("error response %v", r)
	}
	r := c.must("start", nil) // start on a running console only answers the handshake
	if r["request"] != "start" {
		t.Fatalf("response %v", r)
	}
	st := c.must("getState", nil)
	if st["state"] != "running" || num(st["app_id"]) != 1 {
		t.Fatalf("state %v", st)
	}
	c.event("telemetry") // events flow once the handshake is answered
}

func TestBadInput(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	tests := []struct{ line, want string }{
		{`{"type":`, "malformed JSON"},
		{`not json at all`, "malformed JSON"},
		{`[1, 2]`, "a request must be a JSON object"},
		{`null`, "a request must be a JSON object"},
		{`"getState"`, "a request must be a JSON object"},
		{`{"id": 5}`, "type is missing"},
		{`{"type": 7, "id": 5}`, "type must be a string"},
		{`{"type": "fly", "id": 5}`, `unknown request type "fly"`},
		{`{"type": "setBreakpoint", "id": 5}`, "setBreakpoint: pc is missing"},
		{`{"type": "setBreakpoint", "pc": "12", "id": 5}`, "setBreakpoint: pc must be an integer"},
		{`{"type": "setBreakpoint", "pc": 1.5, "id": 5}`, "setBreakpoint: pc must be an integer"},
		{`{"type": "setBreakpoint", "pc": -1, "id": 5}`, "setBreakpoint: pc must be between 0 and"},
		{`{"type": "setBreakpoint", "pc": 100000, "id": 5}`, "outside the program"},
		{`{"type": "clearBreakpoint", "pc": 3, "id": 5}`, "no breakpoint at pc 3"},
		{`{"type": "disassemble", "pc": 0, "count": 0, "id": 5}`, "count must be between 1 and 1000"},
		{`{"type": "setInput", "buttons": 256, "id": 5}`, "buttons must be between 0 and 255"},
		{`{"type": "setTelemetry", "interval_frames": null, "id": 5}`, "interval_frames must be an integer"},
		{`{"type": "getSource", "id": 5}`, "getSource: pc is missing"},
		{`{"type": "pause", "id": {"nested": [1, 2]}}`, ""}, // any id is echoed
	}
	for _, tc := range tests {
		c.sendLine(tc.line)
		r := c.read()
		if r["type"] != "response" {
			t.Fatalf("%s: got %v", tc.line, r)
		}
		if tc.want == "" {
			if r["ok"] != true || fmt.Sprint(r["id"]) != "map[nested:[1 2]]" {
				t.Fatalf("%s: %v", tc.line, r)
			}
			continue
		}
		if r["ok"] != false || !strings.Contains(fmt.Sprint(r["error"]), tc.want) {
			t.Fatalf("%s: %v, want error %q", tc.line, r, tc.want)
		}
		if strings.Contains(tc.line, `"id": 5`) && fmt.Sprint(r["id"]) != "5" {
			t.Fatalf("%s: id not echoed: %v", tc.line, r)
		}
	}
	// Empty lines are ignored; a line over 1 MiB gets an error and is skipped; the
	// connection keeps working after all of it.
	c.sendLine("")
	c.sendLine("   \r")
	c.sendLine(`{"type":"getState","pad":"` + strings.Repeat("x", MaxLine) + `"}`)
	if r := c.read(); r["ok"] != false || !strings.Contains(r["error"].(string), "longer than 1 MiB") {
		t.Fatalf("long line: %v", r)
	}
	if st := c.must("getState", nil); st["state"] != "stopped" || st["reason"] != "entry" {
		t.Fatalf("state %v", st)
	}
}

// A breakpoint on a pc inside frame() hits once per frame, with that frame's index (the
// cartridge logs frame_index() just before).
func TestBreakpointFrameIndex(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	pc := rt.pcOfLine(6) // let a = n * 2
	r := c.must("setBreakpoint", msg{"pc": pc})
	if num(r["pc"]) != int64(pc) || num(r["line"]) != 6 || r["file"] != "main.kite" || r["function"] != "frame" || r["text"] != "    let a = n * 2" {
		t.Fatalf("setBreakpoint %v", r)
	}
	if again := c.must("setBreakpoint", msg{"pc": pc}); num(again["breakpoint_id"]) != num(r["breakpoint_id"]) {
		t.Fatalf("the same pc twice: %v", again)
	}
	c.must("start", nil)
	for f := int64(0); f < 3; f++ {
		l := c.event("log")
		hit := c.event("breakpointHit")
		if l["msg"] != fmt.Sprintf("frame %d", f) || num(hit["pc"]) != int64(pc) || num(hit["frame_index"]) != f || num(hit["line"]) != 6 {
			t.Fatalf("frame %d: log %v, hit %v", f, l, hit)
		}
		st := c.must("getState", nil)
		if num(st["pc"]) != int64(pc) || num(st["frame_index"]) != f || st["function"] != "frame" || st["state"] != "stopped" || st["reason"] != "breakpoint" {
			t.Fatalf("state %v", st)
		}
		if f == 2 {
			c.must("clearBreakpoint", msg{"pc": pc})
		}
		c.must("resume", nil)
	}
	c.event("telemetry") // runs on: 60 frames later
}

// step executes exactly one instruction: the VM's step counter moves by one, cycles by
// the instruction's cost, and the pc to the next instruction.
func TestStepOneInstruction(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	prog := rt.con.Cartridge().Program
	pc := rt.pcOfLine(6)
	c.must("setBreakpoint", msg{"pc": pc})
	c.must("start", nil)
	c.event("breakpointHit")
	st := c.must("getState", nil)
	if st["stack_top"] != nil {
		t.Fatalf("operand stack at a statement start: %v", st["stack_top"])
	}
	for i := 0; i < 4; i++ { // loadglobal n, smallint 2, mul, storelocal a
		before := c.must("getState", nil)
		c.must("step", nil)
		stop := c.event("stopped")
		after := c.must("getState", nil)
		op := compile.Op(prog.Code[pc])
		if stop["reason"] != "step" || num(stop["pc"]) != int64(pc+1) || num(after["pc"]) != int64(pc+1) {
			t.Fatalf("step %d from pc %d (%s): %v / %v", i, pc, op, stop, after)
		}
		if d := num(after["vm_steps"]) - num(before["vm_steps"]); d != 1 {
			t.Fatalf("step %d moved %d instructions", i, d)
		}
		if d := num(after["cycles"]) - num(before["cycles"]); d != int64(compile.Cycles[op]) {
			t.Fatalf("step %d (%s) cost %d cycles, want %d", i, op, d, compile.Cycles[op])
		}
		if i == 1 && after["stack_top"] != "2" { // after smallint 2
			t.Fatalf("stack top after smallint: %v", after["stack_top"])
		}
		if i == 2 && after["stack_top"] != "2" { // n (1) * 2
			t.Fatalf("stack top after mul: %v", after["stack_top"])
		}
		pc++
	}
	if c.must("getState", nil)["line"] != c.must("getSource", msg{"pc": pc})["line"] {
		t.Fatal("getState and getSource disagree")
	}
}

// stepFrame runs to the next frame boundary: exactly one frame (one frame() call, one
// frame_index) from a boundary, the rest of the frame from a breakpoint.
func TestStepFrame(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	c.must("stepFrame", nil) // from the entry stop: top level, then frame 0
	stop := c.event("stopped")
	if stop["reason"] != "frame" || num(stop["frame_index"]) != 1 || stop["function"] != "frame" {
		t.Fatalf("stop %v", stop)
	}
	for f := int64(1); f < 4; f++ {
		c.must("stepFrame", nil)
		l := c.event("log")
		stop := c.event("stopped", "log")
		if l["msg"] != fmt.Sprintf("frame %d", f) || stop["type"] != "stopped" || stop["reason"] != "frame" || num(stop["frame_index"]) != f+1 {
			t.Fatalf("frame %d: %v then %v", f, l, stop)
		}
		if st := c.must("getState", nil); num(st["frame_index"]) != f+1 || st["reason"] != "frame" {
			t.Fatalf("state %v", st)
		}
	}
	// From a breakpoint in the middle of frame 4: to its end.
	c.must("setBreakpoint", msg{"pc": rt.pcOfLine(7)})
	c.must("resume", nil)
	if hit := c.event("breakpointHit"); num(hit["frame_index"]) != 4 {
		t.Fatalf("hit %v", hit)
	}
	c.must("clearBreakpoint", msg{"pc": rt.pcOfLine(7)})
	c.must("stepFrame", nil)
	if stop := c.event("stopped", "log"); stop["type"] != "stopped" || num(stop["frame_index"]) != 5 {
		t.Fatalf("stop %v", stop)
	}
	// getFramebuffer shows the frame: n = 5 was plotted at (5, 11).
	fb := c.must("getFramebuffer", nil)
	data, _ := base64.StdEncoding.DecodeString(fb["data"].(string))
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || img.At(5, 11) != console.Palette[7] || img.At(6, 13) != console.Palette[0] || img.At(4, 9) != console.Palette[7] {
		t.Fatalf("framebuffer: %v %v", err, img.At(5, 11))
	}
}

// Telemetry carries the VM's counters: at a frame stop right after a telemetry event,
// getState reads the same numbers from the VM.
func TestTelemetryMatchesCounters(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	if r := c.must("setTelemetry", msg{"interval_frames": 1}); num(r["interval_frames"]) != 1 {
		t.Fatal(r)
	}
	c.must("stepFrame", nil)
	for f := int64(0); f < 3; f++ {
		tel := c.event("telemetry")
		c.event("stopped")
		st := c.must("getState", nil)
		if num(tel["frame_index"]) != f || num(st["frame_index"]) != f+1 {
			t.Fatalf("telemetry %v state %v", tel, st)
		}
		for _, k := range []string{"vm_steps", "cycles", "syscalls"} {
			if num(tel[k]) != num(st[k]) || num(tel[k]) == 0 {
				t.Fatalf("%s: telemetry %v, VM %v", k, tel[k], st[k])
			}
		}
		if num(tel["syscalls"]) != 3*(f+1) { // log, frame_index, btn... and pset
			if num(tel["syscalls"]) != 4*(f+1) {
				t.Fatalf("syscalls %v", tel["syscalls"])
			}
		}
		c.must("stepFrame", nil)
	}
	c.must("setTelemetry", msg{"interval_frames": 0})
}

func TestCertEvents(t *testing.T) {
	rt := startRuntime(t, cartDir("overbudget"), console.Options{}, false)
	c := attach(t, rt.addr)
	rules := map[string]msg{}
	for len(rules) < 4 {
		e := c.event("cert")
		rules[e["rule"].(string)] = e
	}
	if e := rules["logs_per_frame"]; num(e["used"]) != 3 || num(e["limit"]) != 2 {
		t.Fatalf("cert %v", e)
	}
	if e := rules["cycles_per_frame"]; num(e["frame_index"])%4 != 3 || num(e["used"]) < 20000 {
		t.Fatalf("cert %v", e)
	}
}

// Several clients receive the events; one that leaves takes nothing from the others,
// and a paused console stays paused.
func TestSeveralClients(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{FPS: 240}, false)
	a := attach(t, rt.addr)
	b := attach(t, rt.addr)
	a.must("pause", nil)
	for _, c := range []*tclient{a, b} {
		if st := c.event("stopped"); st["reason"] != "pause" {
			t.Fatalf("stop %v", st)
		}
	}
	a.c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for rt.srv.Clients() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the server did not notice the disconnect")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st := b.must("getState", nil); st["state"] != "stopped" {
		t.Fatalf("state %v", st)
	}
	c := attach(t, rt.addr)
	b.must("setBreakpoint", msg{"pc": rt.pcOfLine(7)})
	c.must("resume", nil)
	for _, cl := range []*tclient{b, c} {
		if r := cl.event("resumed"); r["mode"] != "continue" {
			t.Fatal(r)
		}
		if hit := cl.event("breakpointHit"); num(hit["pc"]) != int64(rt.pcOfLine(7)) {
			t.Fatal(hit)
		}
	}
	if r := b.request("resume", nil); r["ok"] != true {
		t.Fatal(r)
	}
	if r := b.request("step", nil); r["ok"] != false && r["ok"] != true {
		t.Fatal(r)
	}
}

func TestPauseResumeAndInput(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{FPS: 120}, false)
	c := attach(t, rt.addr)
	if r := c.request("step", nil); r["ok"] != false || !strings.Contains(r["error"].(string), "running") {
		t.Fatalf("step while running: %v", r)
	}
	c.must("setInput", msg{"buttons": 1 << 4})
	if l := c.event("log"); l["msg"] != "A is down" {
		for l["msg"] != "A is down" {
			l = c.event("log")
		}
	}
	c.must("pause", nil)
	st := c.event("stopped")
	if st["reason"] != "pause" {
		t.Fatal(st)
	}
	c.must("pause", nil) // already paused: nothing to do
	c.must("resume", nil)
	c.event("resumed")
	if r := c.request("resume", nil); r["ok"] != false {
		t.Fatalf("resume while running: %v", r)
	}
}

func TestSourceAndDisassembly(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{}, true)
	c := attach(t, rt.addr)
	pc := rt.pcOfLine(6)
	d := c.must("disassemble", msg{"pc": pc, "count": 4})
	ins := d["instructions"].([]any)
	var ops []string
	for _, i := range ins {
		m := i.(map[string]any)
		operand, _ := m["operand"].(string)
		ops = append(ops, fmt.Sprint(m["op"], " ", operand))
	}
	if got := strings.Join(ops, "|"); got != "loadglobal 0  ; n|smallint 2|mul |storelocal 0" {
		t.Fatalf("disassembly %q", got)
	}
	last := c.must("disassemble", msg{"pc": len(rt.con.Cartridge().Program.Code) - 1, "count": 10})
	if n := len(last["instructions"].([]any)); n != 1 {
		t.Fatalf("%d instructions at the end", n)
	}
}

// When the cartridge ends, clients get exited.
func TestExited(t *testing.T) {
	rt := startRuntime(t, cartDir("counter"), console.Options{Frames: 3}, true)
	c := attach(t, rt.addr)
	c.must("start", nil)
	if e := c.event("exited"); num(e["code"]) != 0 || num(e["frame_index"]) != 3 {
		t.Fatal(e)
	}
	if st := c.must("getState", nil); st["state"] != "exited" || num(st["frame_index"]) != 3 {
		t.Fatal(st)
	}
	if r := c.request("resume", nil); r["ok"] != false || !strings.Contains(r["error"].(string), "ended") {
		t.Fatal(r)
	}
}

func TestTokenGuardsTheHandshake(t *testing.T) {
	r := startRuntimeWith(t, cartDir("colorsquare"), console.Options{}, Options{AppMode: "Debug", Token: "s3cret"})
	for _, tc := range []struct {
		answer string
		ok     bool
	}{
		{`{"type":"start","id":1}`, false},
		{`{"type":"ok","token":"wrong","id":2}`, false},
		{`{"type":"start","token":7,"id":3}`, false},
		{`{"type":"start","token":"s3cret","id":4}`, true},
	} {
		c := dial(t, r.addr)
		if h := c.read(); h["type"] != "handshake" {
			t.Fatalf("first message %v", h)
		}
		c.sendLine(tc.answer)
		resp := c.read()
		if resp["type"] != "response" || resp["ok"] != tc.ok {
			t.Fatalf("%s: %v", tc.answer, resp)
		}
		if !tc.ok {
			if resp := c.request("getState", nil); resp["ok"] != false {
				t.Fatalf("served before a good token: %v", resp)
			}
		}
	}
}

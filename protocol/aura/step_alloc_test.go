package aura

import "testing"

// A step's command and its stopped event cost few allocations: parsing {"cmd":"stepIn"}
// and encoding a stop with its environment and watches. A regression on the hot path
// fails here.
func TestStepAllocations(t *testing.T) {
	line := []byte(`{"cmd":"stepIn"}`)
	n := testing.AllocsPerRun(200, func() {
		if c, err := ParseCommand(line); err != nil || c.Cmd != "stepIn" {
			t.Fatal(c, err)
		}
	})
	if n > 3 { // measured: 3 (the wire struct, the command's name and its pointer)
		t.Errorf("ParseCommand allocates %v objects, want at most 3", n)
	}
	v := "3"
	ev := StoppedEvent{Event: "stopped", Reason: "step", File: "/tmp/a.kite", Line: 4, Col: 5, Func: "main",
		Env: map[string]string{"i": "3", "total": "6"}, Watches: []WatchResult{{Expr: "i", Value: &v}}}
	want := `AURA_DEBUG_EVENT {"event":"stopped","reason":"step","file":"/tmp/a.kite","line":4,"col":5,` +
		`"env":{"i":"3","total":"6"},"watches":[{"expr":"i","value":"3"}],"func":"main"}` + "\n"
	if got := string(encodeEvent(ev)); got != want {
		t.Fatalf("got %s", got)
	}
	n = testing.AllocsPerRun(200, func() { encodeEvent(ev) })
	if n > 3 { // measured: 2 (the line, the event's boxing); 11 before wirejson's map path
		t.Errorf("encodeEvent allocates %v objects, want at most 3", n)
	}
}

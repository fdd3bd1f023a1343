package aura

import (
	"slices"
	"testing"
)

// TestDocumentExamples replays every command example of aura.md, verbatim, and checks the
// events the document shows (testdata/doc.kite has code on lines 12 and 20 and a variable x).
func TestDocumentExamples(t *testing.T) {
	a := start(t, true, []string{wait}, "testdata/doc.kite")
	line := a.expect("hello")
	hello := decode[HelloEvent](t, line)
	docCaps := []string{"devvm.pause", "devvm.step", "devvm.breakpoints", "devvm.watches", "native.launch",
		"native.terminate", "native.exit", "perf.timeline", "perf.flame.folded", "perf.memory"}
	if hello.Protocol != 1 || !slices.Equal(hello.Capabilities[:len(docCaps)], docCaps) {
		t.Fatalf("hello %s", line)
	}
	a.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":12},{"line":20,"condition":"x > 0"}]}`)
	a.send(`{"cmd":"setWatches","watches":[{"expr":"x"},{"expr":"x + 1"}]}`)
	a.send(`{"cmd":"enable","start_paused":false,"perf":true}`)

	st := a.stopped("breakpoint", 12)
	if st.Env["x"] != "0" || *st.Watches[0].Value != "0" || *st.Watches[1].Value != "1" {
		t.Fatalf("stop at 12: %+v", st)
	}
	a.send(`{"cmd":"step"}`)
	if st = a.stopped("step", 4); st.Env["v"] != "0" {
		t.Fatalf("step: %+v", st)
	}
	a.send(`{"cmd":"continue"}`)
	st = a.stopped("breakpoint", 20)
	if st.Env["x"] != "1" || *st.Watches[1].Value != "2" {
		t.Fatalf("stop at 20: %+v", st)
	}
	a.send(`{"cmd":"continue"}`)
	a.waitStdout("x is 2")
	a.send(`{"cmd":"pause"}`)
	a.stopped("pause", 0)
	a.send(`{"cmd":"continue"}`)
	a.send(`{"cmd":"terminate"}`)
	a.expect("perfReport")
	if got := string(a.expect("terminated")); got != `{"event":"terminated","target":"devvm"}` {
		t.Fatalf("terminated %s", got)
	}
	if code := a.exit(); code != ExitTerminated {
		t.Fatalf("exit %d", code)
	}
}

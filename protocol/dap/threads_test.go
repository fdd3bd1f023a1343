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
// exited) while it runs, before its exited event, with the threads' ids.
func TestThreadEventsLive(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	src, _ := filepath.Abs("../../backend/gdbremote/testdata/native/threads.c")
	exe := filepath.Join(t.TempDir(), "threads")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("configurationDone", nil)
	var got []string
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
	var want []string
	for _, m := range regexp.MustCompile(`tid (\d+)`).FindAllStringSubmatch(out.String(), -1) {
		want = append(want, "started "+m[1], "exited "+m[1])
	}
	if len(want) != 6 || !slices.Equal(got, want) {
		t.Fatalf("thread events before the exit: %v, want %v (the program printed %q)", got, want, out.String())
	}
}

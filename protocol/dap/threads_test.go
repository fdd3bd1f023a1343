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
// exited) while it runs, before its exited event, with the threads' ids; with
// "threadEvents": false it gets none.
func TestThreadEventsLive(t *testing.T) {
	if got, want := threadEvents(t, nil); len(want) != 6 || !slices.Equal(got, want) {
		t.Fatalf("thread events before the exit: %v, want %v", got, want)
	}
	if got, _ := threadEvents(t, map[string]any{"threadEvents": false}); len(got) != 0 {
		t.Fatalf("thread events with threadEvents false: %v", got)
	}
}

// threadEvents runs testdata threads.c to its end with the launch options extra and returns
// the thread events it got and the ones its printed thread ids call for.
func threadEvents(t *testing.T, extra map[string]any) (got, want []string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdbserver")
	src, _ := filepath.Abs("../../backend/gdbremote/testdata/native/threads.c")
	exe := filepath.Join(t.TempDir(), "threads")
	if out, err := exec.Command("gcc", "-g", "-O0", "-pthread", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	args := map[string]any{"kind": "native", "program": exe}
	for k, v := range extra {
		args[k] = v
	}
	c.do("launch", args)
	c.event("initialized")
	c.do("configurationDone", nil)
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
	for _, m := range regexp.MustCompile(`tid (\d+)`).FindAllStringSubmatch(out.String(), -1) {
		want = append(want, "started "+m[1], "exited "+m[1])
	}
	return got, want
}

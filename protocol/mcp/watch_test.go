package mcp_test

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// An agent watches sum in the Kite program and in the same program in C: each change stops
// with the old and new value, the watch is listed and removed with the breakpoints, and on
// Kite it ends with its function.
func TestWatch(t *testing.T) {
	ctx := timeout(t, 60*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	src := testdata(t, "average.kite")
	bp := []any{map[string]any{"file": src, "line": line(t, src, "loop")}}
	id := must(t, ctx, cs, "start", map[string]any{"program": src, "breakpoints": bp})["session"]
	must(t, ctx, cs, "clear_breakpoints", map[string]any{"session": id})
	w := must(t, ctx, cs, "watch", map[string]any{"session": id, "expression": "sum"})
	if w["watch"] != "sum" || w["access"] != "write" || w["verified"] != true {
		t.Fatalf("watch: %v", w)
	}
	list := must(t, ctx, cs, "list_breakpoints", map[string]any{"session": id})
	if get(list, "breakpoints", 0, "watch") != "sum" {
		t.Fatalf("list: %v", list)
	}
	var texts []any
	for range 3 {
		sc := must(t, ctx, cs, "continue", map[string]any{"session": id})
		if sc["reason"] != "data breakpoint" || sc["breakpointId"] != w["id"] {
			t.Fatalf("stop: %v", sc)
		}
		texts = append(texts, sc["text"])
	}
	if texts[0] != "sum: 0 -> 4" || texts[1] != "sum: 4 -> 12" || texts[2] != "sum: out of scope, the watchpoint is deleted as average returns" {
		t.Fatalf("stops %q", texts)
	}
	if l := must(t, ctx, cs, "list_breakpoints", map[string]any{"session": id}); len(get(l, "breakpoints").([]any)) != 0 {
		t.Fatalf("the watch outlived its function: %v", l)
	}
	mustFail(t, ctx, cs, "watch", map[string]any{"session": id, "expression": "nope"}, "cannot watch nope")
	mustFail(t, ctx, cs, "watch", map[string]any{"session": id, "expression": "scores[0]", "access": "read"}, "no read watchpoints")
	w = must(t, ctx, cs, "watch", map[string]any{"session": id, "expression": "avg"})
	must(t, ctx, cs, "clear_breakpoints", map[string]any{"session": id, "id": w["id"]})
	if sc := must(t, ctx, cs, "continue", map[string]any{"session": id}); sc["state"] != "exited" {
		t.Fatalf("a removed watch stopped: %v", sc)
	}

	realparts.Need(t, "gcc", "gdbserver")
	realparts.NeedHardwareWatchpoints(t)
	csrc := testdata(t, "average.c")
	exe := filepath.Join(t.TempDir(), "average")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, csrc).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	bp = []any{map[string]any{"file": csrc, "line": line(t, csrc, "loop")}}
	id = must(t, ctx, cs, "start", map[string]any{"program": exe, "breakpoints": bp})["session"]
	must(t, ctx, cs, "clear_breakpoints", map[string]any{"session": id})
	if w = must(t, ctx, cs, "watch", map[string]any{"session": id, "expression": "sum"}); w["verified"] != true {
		t.Fatalf("watch: %v", w)
	}
	sc := must(t, ctx, cs, "continue", map[string]any{"session": id})
	if sc["reason"] != "data breakpoint" || sc["text"] != "sum: 0 -> 4" {
		t.Fatalf("native stop: %v", sc)
	}
}

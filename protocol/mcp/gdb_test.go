package mcp_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// The gdb tool answers gdb's commands as gdb does: each answer at the stop in average is
// compared with gdb's own at the same stop, in the frame the call selects. The commands
// that run the program are refused, and without --allow-write so are those that change it.
func TestGDBToolAsGDB(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver", "gdb")
	src := testdata(t, "average.c")
	exe := filepath.Join(t.TempDir(), "average")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx := timeout(t, 60*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	ret := line(t, src, "ret")
	id := must(t, ctx, cs, "start", map[string]any{"program": exe,
		"breakpoints": []any{map[string]any{"file": src, "line": ret}}})["session"]
	asked := append(realparts.InFrame(0, "p sum", "p/x sum + n", "x/3dw xs", "info args", "info locals", "bt",
		"ptype xs", "info frame", "p xs[1] * 2", "info line", "output n", "p nosuch", "whatis scores"),
		realparts.InFrame(1, "info locals", "p scores", "p/x scores[2]", "p $1 + 1")...)
	var ours []string
	for _, q := range asked {
		r := must(t, ctx, cs, "gdb", map[string]any{"session": id, "commands": q.Cmd, "frame": q.Frame})
		ours = append(ours, strings.TrimSuffix(str(r["output"]), "\n"))
	}
	realparts.CompareAnswers(t, "MCP gdb tool", asked, ours, realparts.GDBAnswers(t, exe, "break average.c:"+strconv.Itoa(ret)+"\nrun", asked))

	r := must(t, ctx, cs, "gdb", map[string]any{"session": id, "commands": "next\nset var sum = 18\ncall average(xs, 1)\np sum"})
	for _, want := range []string{"next: not here", "set: refused", "call: refused", "= 12\n"} {
		if !strings.Contains(str(r["output"]), want) {
			t.Errorf("gdb without --allow-write: no %q in\n%s", want, r["output"])
		}
	}
	if sc := must(t, ctx, cs, "continue", map[string]any{"session": id, "waitMs": 30000}); !strings.Contains(str(sc["output"]), "average: 4") {
		later := must(t, ctx, cs, "output", map[string]any{"session": id})
		t.Errorf("the program went on to print %q, want average: 4 (sum unchanged); the answer: %v; its whole output now: %v", sc["output"], sc, later)
	}
}

// A local declared by a step is new even when the frame had no locals before it (an empty
// snapshot is a snapshot).
func TestNewLocalAfterNone(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	src := filepath.Join(t.TempDir(), "f.kite")
	if err := os.WriteFile(src, []byte("fn f() {\n    let a = 1\n    return a\n}\nprint(f())\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := must(t, ctx, cs, "start", map[string]any{"program": src, "breakpoints": []any{map[string]any{"file": src, "line": 2}}})
	if v, _ := local(sc, "a"); v != "<none>" {
		t.Fatalf("a before its let: %q", v)
	}
	sc = must(t, ctx, cs, "next", map[string]any{"session": sc["session"]})
	if v, change := local(sc, "a"); v != "1" || change != "new" {
		t.Fatalf("a after its let: %q, change %q; want 1, new", v, change)
	}
}

// An agent asks to stop where C++ exceptions are thrown: the stop's text names the
// exception and its what(), and the stack shows who threw it.
func TestCatchThrowForAgents(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildCXX(t, "throws", `#include <stdexcept>
int parse(int n) {
  if (n > 2) throw std::invalid_argument("n too large");
  return n;
}
int main() {
  int total = 0;
  for (int i = 0; i < 5; i++) {
    try { total += parse(i); } catch (const std::exception &) { total--; }
  }
  return total;
}
`)
	ctx := timeout(t, 60*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	sc := must(t, ctx, cs, "start", map[string]any{"program": exe, "catch": []string{"throw"}})
	if sc["reason"] != "exception" || sc["text"] != "exception thrown: std::invalid_argument: n too large" {
		t.Fatalf("stop: reason %v, text %q", sc["reason"], sc["text"])
	}
	stack := fmt.Sprint(sc["stack"])
	if !strings.Contains(stack, "parse") {
		t.Errorf("the thrower is not in the stack: %s", stack)
	}
	sc = must(t, ctx, cs, "continue", map[string]any{"session": sc["session"]})
	if sc["text"] != "exception thrown: std::invalid_argument: n too large" {
		t.Errorf("second throw: %q", sc["text"])
	}
	bad := must(t, ctx, cs, "start", map[string]any{"program": exe, "catch": []string{"nosuch"}})
	if notes := fmt.Sprint(bad["notes"]); !strings.Contains(notes, "catch nosuch") {
		t.Errorf("an unknown event is not noted: %v", notes)
	}
}

package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/internal/realparts"
)

// The bug hunt on a native program under gdbserver, over stdio and HTTP; closing the
// client leaves no process behind.
func TestAgentBugHuntNative(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	src := testdata(t, "average.c")
	exe := filepath.Join(t.TempDir(), "average")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			ctx := timeout(t, 60*time.Second)
			var cs *sdk.ClientSession
			if tr == "stdio" {
				// Without --allow-exec a native program is refused, saying why.
				plain := connectStdio(t, ctx)
				mustFail(t, ctx, plain, "start", map[string]any{"program": exe}, "--allow-exec")
				cs = connectStdio(t, ctx, "--allow-exec")
			} else {
				cs = connectHTTP(t, ctx, startHTTP(t, "--allow-exec"))
			}
			bugHuntNative(t, ctx, cs, src, exe)
			_ = cs.Close()
			waitNoProcess(t, exe)
		})
	}
}

func bugHuntNative(t *testing.T, ctx context.Context, cs *sdk.ClientSession, src, exe string) {
	ret, call := line(t, src, "ret"), line(t, src, "call")
	sc := must(t, ctx, cs, "start", map[string]any{"program": exe,
		"breakpoints": []any{map[string]any{"file": src, "line": ret}}})
	id := str(sc["session"])
	if sc["reason"] != "breakpoint" || get(sc, "location", "line") != float64(ret) || get(sc, "stack", 0, "func") != "average" {
		t.Fatalf("first stop: %v", sc)
	}
	if v, _ := local(sc, "sum"); v != "12" {
		t.Fatalf("sum = %s; locals %v", v, sc["locals"])
	}
	if !strings.HasPrefix(str(get(sc, "location", "pc")), "0x") {
		t.Fatalf("a native pc is an address: %v", sc["location"])
	}
	if v := must(t, ctx, cs, "evaluate", map[string]any{"session": id, "expression": "n"}); v["value"] != "3" {
		t.Fatalf("n = %v", v)
	}
	if r := must(t, ctx, cs, "registers", map[string]any{"session": id}); len(get(r, "registers").([]any)) < 8 {
		t.Fatalf("registers: %v", r)
	}
	dis := must(t, ctx, cs, "disassemble", map[string]any{"session": id, "count": 3})
	if ins := get(dis, "instructions").([]any); len(ins) != 3 || get(ins[0], "current") != true || str(get(ins[0], "text")) == "" {
		t.Fatalf("disassemble at the stop: %v", dis)
	}
	mustFail(t, ctx, cs, "write_memory", map[string]any{"session": id, "address": "0x1000", "hex": "00"}, "--allow-write")
	sc = must(t, ctx, cs, "finish", map[string]any{"session": id})
	if get(sc, "location", "line") != float64(call) || get(sc, "returnValue", "value") != "4" {
		t.Fatalf("finish: %v", sc)
	}
	sc = must(t, ctx, cs, "continue", map[string]any{"session": id})
	if sc["state"] != "exited" || get(sc, "exitCode") != float64(0) {
		t.Fatalf("continue to the end: %v", sc)
	}
	// A second session, left running at a stop: closing the client must end it.
	sc = must(t, ctx, cs, "start", map[string]any{"program": exe, "stopOnEntry": true})
	if sc["state"] != "stopped" || str(sc["session"]) == id {
		t.Fatalf("second session: %v", sc)
	}
	if l := must(t, ctx, cs, "sessions", map[string]any{}); len(get(l, "sessions").([]any)) != 2 {
		t.Fatalf("sessions: %v", l)
	}
}

// waitNoProcess waits until no process runs exe (nor gdbserver for it).
func waitNoProcess(t *testing.T, exe string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := processesWith(exe)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left behind: %v", left)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func processesWith(s string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
			continue // a zombie is gone already
		}
		if cl := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cl, s) {
			out = append(out, e.Name()+": "+cl)
		}
	}
	return out
}

// A program that a signal ends: the answer names the signal beside the shell's exit code,
// and a later call on the session says how it ended.
func TestSignalEndIsTold(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	_, exe := realparts.BuildC(t, "segv", "#include <signal.h>\nint main(void) {\n    raise(SIGSEGV);\n    return 0;\n}\n")
	ctx := timeout(t, 60*time.Second)
	cs := connectStdio(t, ctx, "--allow-exec")
	sc := must(t, ctx, cs, "start", map[string]any{"program": exe})
	if sc["reason"] != "exception" {
		t.Fatalf("start: %v, want a stop for the signal", sc)
	}
	id := str(sc["session"])
	sc = must(t, ctx, cs, "continue", map[string]any{"session": id})
	if sc["state"] != "exited" || get(sc, "exitCode") != float64(139) || sc["signal"] != "SIGSEGV" {
		t.Fatalf("continue: %v, want exited by SIGSEGV (139)", sc)
	}
	mustFail(t, ctx, cs, "step", map[string]any{"session": id}, "was ended by signal SIGSEGV, Segmentation fault")
}

// An agent sees the calls of the line it stopped on in the stop context, in the order they
// run, and steps into the one it wants: step with into enters add, running both calls of
// sq first; a name the line does not call steps over every call.
func TestStepIntoACallForAgents(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	src := filepath.Join(t.TempDir(), "calls.c")
	if err := os.WriteFile(src, []byte("int sq(int x) { return x * x; }\nint add(int a, int b) { return a + b; }\n"+
		"int main(void) {\n  int x = add(sq(2), sq(3));\n  x += add(1, 1);\n  return x == 15 ? 0 : 1;\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := strings.TrimSuffix(src, ".c")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx := timeout(t, 60*time.Second)
	cs := connectStdio(t, ctx, "--allow-exec")
	sc := must(t, ctx, cs, "start", map[string]any{"program": exe, "breakpoints": []any{map[string]any{"file": src, "line": 4}}})
	id := str(sc["session"])
	if calls, _ := sc["calls"].([]any); len(calls) != 3 || calls[0] != "sq" || calls[2] != "add" {
		t.Fatalf("calls at line 4: %v", sc["calls"])
	}
	sc = must(t, ctx, cs, "step", map[string]any{"session": id, "into": "add"})
	if get(sc, "stack", 0, "func") != "add" || get(sc, "stack", 1, "func") != "main" {
		t.Fatalf("step into add: %v", sc)
	}
	if v, _ := local(sc, "b"); v != "9" {
		t.Fatalf("b = %s; locals %v", v, sc["locals"])
	}
	must(t, ctx, cs, "finish", map[string]any{"session": id})
	sc = must(t, ctx, cs, "next", map[string]any{"session": id})
	if get(sc, "location", "line") != float64(5) {
		t.Fatalf("next: %v", sc)
	}
	sc = must(t, ctx, cs, "step", map[string]any{"session": id, "into": "nosuch"})
	if get(sc, "location", "line") != float64(6) || get(sc, "stack", 0, "func") != "main" {
		t.Fatalf("step into a function the line does not call: %v", sc)
	}
}

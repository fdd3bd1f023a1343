package mcp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The bug hunt an agent follows, through the SDK's own client against the built binary,
// over stdio and over streamable HTTP: set a breakpoint, run, read the stop context, step,
// evaluate, terminate; then bad input, each an MCP error while the server goes on serving.
func TestAgentBugHuntKite(t *testing.T) {
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			ctx := timeout(t, 60*time.Second)
			var cs *sdk.ClientSession
			if tr == "stdio" {
				cs = connectStdio(t, ctx)
			} else {
				cs = connectHTTP(t, ctx, startHTTP(t))
			}
			bugHuntKite(t, ctx, cs)
			badInput(t, ctx, cs)
		})
	}
}

func bugHuntKite(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	src := testdata(t, "average.kite")
	ret, call := line(t, src, "ret"), line(t, src, "call")

	sc := must(t, ctx, cs, "start", map[string]any{"program": src, "breakpoints": []any{map[string]any{"line": ret}}})
	id := str(sc["session"])
	if sc["state"] != "stopped" || sc["reason"] != "breakpoint" || get(sc, "location", "line") != float64(ret) {
		t.Fatalf("first stop: %v", sc)
	}
	if get(sc, "breakpoints", 0, "verified") != true {
		t.Fatalf("breakpoint not verified: %v", sc["breakpoints"])
	}
	if !strings.Contains(str(sc["output"]), "scoring 3 players") {
		t.Fatalf("output before the stop: %q", sc["output"])
	}
	if v, _ := local(sc, "sum"); v != "12" {
		t.Fatalf("sum at the return: %s (locals %v)", v, sc["locals"])
	}
	cur := false
	for _, l := range get(sc, "source").([]any) {
		if get(l, "current") == true {
			cur = get(l, "line") == float64(ret) && strings.Contains(str(get(l, "text")), "return sum")
		}
	}
	if !cur || get(sc, "stack", 0, "func") != "average" || get(sc, "stackDepth") != float64(2) {
		t.Fatalf("source/stack: %v %v", sc["source"], sc["stack"])
	}

	// The agent checks its hypothesis: the loop stopped one short.
	if v := must(t, ctx, cs, "evaluate", map[string]any{"session": id, "expression": "len(xs)"}); v["value"] != "3" {
		t.Fatalf("len(xs) = %v", v)
	}
	if v := must(t, ctx, cs, "evaluate", map[string]any{"session": id, "expression": "xs[0] + xs[1] + xs[2]"}); v["value"] != "18" {
		t.Fatalf("the whole sum = %v", v)
	}
	dis := must(t, ctx, cs, "disassemble", map[string]any{"session": id, "count": 4})
	if ins := get(dis, "instructions").([]any); len(ins) != 4 || get(ins[0], "current") != true || get(ins[0], "pc") != get(sc, "location", "pc") {
		t.Fatalf("disassemble at the stop: %v", dis)
	}
	// finish: back in the caller with the returned value.
	sc = must(t, ctx, cs, "finish", map[string]any{"session": id})
	if sc["reason"] != "step" || get(sc, "location", "line") != float64(call) || get(sc, "returnValue", "value") != "4" {
		t.Fatalf("finish: %v", sc)
	}
	// next, to the print, then over it: its output comes with the answer.
	sc = must(t, ctx, cs, "next", map[string]any{"session": id})
	if sc["state"] != "stopped" || get(sc, "location", "line") != float64(call+1) {
		t.Fatalf("next: %v", sc)
	}
	if v, ch := local(sc, "avg"); v != "4" || ch != "new" {
		t.Fatalf("next: avg = %s (%s), want 4 marked new; locals %v", v, ch, sc["locals"])
	}
	if v, _ := local(sc, "token"); strings.Contains(v, "abcd1234") || !strings.Contains(v, "redacted") {
		t.Fatalf("a key-looking string was not redacted: %s", v)
	}
	sc = must(t, ctx, cs, "next", map[string]any{"session": id})
	if !strings.Contains(str(sc["output"]), "average: 4") {
		t.Fatalf("next over the print: %v", sc)
	}
	// terminate, then a step on the ended session is an error that says so.
	sc = must(t, ctx, cs, "terminate", map[string]any{"session": id})
	if st := sc["state"]; st != "terminated" && st != "exited" {
		t.Fatalf("terminate: %v", sc)
	}
	mustFail(t, ctx, cs, "step", map[string]any{"session": id}, "has ended")
	must(t, ctx, cs, "close_session", map[string]any{"session": id})
}

func badInput(t *testing.T, ctx context.Context, cs *sdk.ClientSession) {
	mustFail(t, ctx, cs, "no_such_tool", map[string]any{}, "no_such_tool")
	mustFail(t, ctx, cs, "evaluate", map[string]any{"session": 7, "expression": true}, "validating")
	mustFail(t, ctx, cs, "continue", map[string]any{"session": "9999"}, "no session")
	mustFail(t, ctx, cs, "evaluate", map[string]any{"session": "1", "expression": strings.Repeat("x", 10<<20)}, "limit")
	mustFail(t, ctx, cs, "start", map[string]any{"program": "/bin/true", "kind": "native"}, "--allow-exec")
	// Still serving.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 20 {
		t.Fatalf("after bad input: %v, %d tools", err, len(tools.Tools))
	}
}

package mcp_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// An agent fixes the bug of average.kite at run time: it sets the loop's bound variable
// and a list item through refs, and sum by name, and sees the program use them.
func TestSetVariableKite(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	src := testdata(t, "average.kite")
	sc := must(t, ctx, cs, "start", map[string]any{"program": src,
		"breakpoints": []any{map[string]any{"file": src, "line": line(t, src, "ret")}}})
	id := sc["session"]
	if v := must(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "sum", "value": "sum + xs[2]"}); v["value"] != "18" || v["type"] != "int" {
		t.Fatalf("set sum: %v", v)
	}
	scopes := must(t, ctx, cs, "variables", map[string]any{"session": id})
	var globals float64
	for _, s := range get(scopes, "variables").([]any) {
		if get(s, "name") == "Globals" {
			globals = get(s, "ref").(float64)
		}
	}
	vars := must(t, ctx, cs, "variables", map[string]any{"session": id, "ref": globals})
	var scores float64
	for _, v := range get(vars, "variables").([]any) {
		if get(v, "name") == "scores" {
			scores = get(v, "ref").(float64)
		}
	}
	if v := must(t, ctx, cs, "set_variable", map[string]any{"session": id, "ref": scores, "name": "0", "value": "40"}); v["value"] != "40" {
		t.Fatalf("set scores[0] through its ref: %v", v)
	}
	if v := must(t, ctx, cs, "evaluate", map[string]any{"session": id, "expression": "scores"}); v["value"] != "[40, 8, 6]" {
		t.Fatalf("scores after the set: %v", v)
	}
	mustFail(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "len(xs)", "value": "1"}, "cannot assign")
	mustFail(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "nothing", "value": "1"}, "no global variable nothing")
	sc = must(t, ctx, cs, "continue", map[string]any{"session": id})
	if out := str(sc["output"]); !strings.Contains(out, "average: 6") {
		t.Fatalf("the program printed %q, want average: 6 (18 / 3)", out)
	}
}

// On a native program set_variable needs --allow-write; with it, a C variable is set in
// the program's memory.
func TestSetVariableNativeGuarded(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	src := testdata(t, "average.c")
	exe := filepath.Join(t.TempDir(), "average")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx := timeout(t, 60*time.Second)
	bp := []any{map[string]any{"file": src, "line": line(t, src, "ret")}}
	_, plain := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	id := must(t, ctx, plain, "start", map[string]any{"program": exe, "breakpoints": bp})["session"]
	mustFail(t, ctx, plain, "set_variable", map[string]any{"session": id, "name": "sum", "value": "18"}, "--allow-write")
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true, AllowWrite: true}, nil)
	id = must(t, ctx, cs, "start", map[string]any{"program": exe, "breakpoints": bp})["session"]
	if v := must(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "sum", "value": "18"}); v["value"] != "18" || v["type"] != "int" {
		t.Fatalf("set sum: %v", v)
	}
	if v := must(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "xs[2]", "value": "0x10"}); v["value"] != "16" {
		t.Fatalf("set xs[2] through the pointer: %v", v)
	}
	mustFail(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "sum", "value": "'ab'"}, "Invalid character constant.")
	sc := must(t, ctx, cs, "finish", map[string]any{"session": id})
	if get(sc, "returnValue", "value") != "6" {
		t.Fatalf("average returned %v after sum = 18", get(sc, "returnValue"))
	}
}

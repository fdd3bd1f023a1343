package mcp_test

import (
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// An agent debugs a program's own shared library: a breakpoint on the library's source,
// given to start before the library is loaded, waits for it and is reached; the stack
// names the library's function over the program's; set_breakpoint on a plugin's source
// before its dlopen answers unverified with an id, and the run stops there once loaded.
func TestSharedLibraryBreakpoints(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	ctx := timeout(t, 60*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	_, exe, libSrc := realparts.BuildWithLibrary(t)
	sc := must(t, ctx, cs, "start", map[string]any{"program": exe,
		"breakpoints": []any{map[string]any{"file": libSrc, "line": 12}}})
	if sc["reason"] != "breakpoint" || get(sc, "location", "line") != float64(12) || get(sc, "stack", 0, "func") != "foo_add" ||
		get(sc, "stack", 1, "func") != "main" {
		t.Fatalf("start with a breakpoint in the library: %v", sc)
	}
	if v := must(t, ctx, cs, "evaluate", map[string]any{"session": sc["session"], "expression": "scale"}); v["value"] != "3" {
		t.Errorf("the library's static: %v", v)
	}

	_, host, _, plugSrc := realparts.BuildPlugin(t)
	sc = must(t, ctx, cs, "start", map[string]any{"program": host, "stopOnEntry": true})
	id := sc["session"]
	bp := must(t, ctx, cs, "set_breakpoint", map[string]any{"session": id, "file": plugSrc, "line": 4})
	if bp["verified"] != false || bp["id"] == nil || bp["message"] == nil {
		t.Fatalf("a breakpoint in a plugin not loaded yet: %v", bp)
	}
	sc = must(t, ctx, cs, "continue", map[string]any{"session": id})
	if sc["reason"] != "breakpoint" || get(sc, "stack", 0, "func") != "plug_run" || get(sc, "location", "line") != float64(4) {
		t.Fatalf("after the plugin's dlopen: %v", sc)
	}
}

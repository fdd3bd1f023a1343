package dap

import (
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// "debugFileDirectory" says where the libraries' separate debug files are: the stripped
// library's scale is then a frame with its source, line and arguments; with [] (no
// folder) it is known by its symbol alone, a frame without a source. The program's own
// debug file is found by its debug link either way.
func TestDebugFileDirectory(t *testing.T) {
	realparts.Need(t, "gdbserver")
	dir, exe, debugDir := realparts.BuildStripped(t)
	for _, dirs := range [][]string{{debugDir}, {}} {
		c := newTestClient(t, Options{})
		c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
		c.do("launch", map[string]any{"kind": "native", "program": exe, "debugFileDirectory": dirs})
		c.event("initialized")
		c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "scale"}}})
		c.do("configurationDone", nil)
		tid := c.event("stopped")["threadId"]
		frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
		top, caller := frames[0].(map[string]any), frames[1].(map[string]any)
		src, _ := top["source"].(map[string]any)
		if csrc, _ := caller["source"].(map[string]any); caller["name"] != "main" || csrc["path"] != filepath.Join(dir, "prog.c") {
			t.Errorf("%v: the program's frame %v, want main in prog.c (its debug link)", dirs, caller)
		}
		switch {
		case len(dirs) > 0 && (top["name"] != "scale" || src["path"] != filepath.Join(dir, "lib.c") || top["line"] != float64(3)):
			t.Errorf("with the debug folder: top frame %v, want scale at lib.c:3", top)
		case len(dirs) > 0:
			ref := c.do("scopes", map[string]any{"frameId": top["id"]})["scopes"].([]any)[0].(map[string]any)["variablesReference"]
			vars := c.do("variables", map[string]any{"variablesReference": ref})["variables"].([]any)
			if v := vars[0].(map[string]any); v["name"] != "v" || v["value"] != "5" {
				t.Errorf("scale's first argument: %v, want v = 5", v)
			}
		case top["name"] != "scale" || src != nil && src["path"] != nil:
			t.Errorf("without a debug folder: top frame %v, want scale without a source", top)
		}
		c.do("disconnect", map[string]any{"terminateDebuggee": true})
	}
}

package dap

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

func TestSourceMapBothWays(t *testing.T) {
	m := newSourceMap(map[string]string{"/build": "/home/me/src", "/build/vendor": "/opt/vendor", "": "/x"})
	for file, want := range map[string]string{"/build/a.c": "/home/me/src/a.c", "/build/vendor/b.c": "/opt/vendor/b.c",
		"/buildx/a.c": "/buildx/a.c", "/other/a.c": "/other/a.c"} {
		if got := m.local(file); got != want {
			t.Errorf("local(%q) = %q, want %q", file, got, want)
		}
		if got := m.built(m.local(file)); got != file {
			t.Errorf("built(local(%q)) = %q", file, got)
		}
	}
}

// With sourceFileMap, a program whose sources moved since it was built is debugged on
// the files where they are now: a breakpoint set on the moved file binds, frames name the
// moved file, and the console lists it.
func TestSourceFileMap(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "moved", "int twice(int x) {\n\treturn 2 * x;\n}\nint main(void) {\n\treturn twice(3) - 6;\n}\n")
	local := filepath.Join(t.TempDir(), "checkout")
	if err := os.MkdirAll(local, 0o755); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(local, filepath.Base(src))
	if err := os.Rename(src, moved); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe, "sourceFileMap": map[string]any{filepath.Dir(src): local}})
	c.event("initialized")
	bps := c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": moved}, "breakpoints": []any{map[string]any{"line": 2}}})["breakpoints"].([]any)
	if bp := bps[0].(map[string]any); bp["verified"] != true || bp["source"].(map[string]any)["path"] != moved {
		t.Fatalf("breakpoint on the moved file: %v", bp)
	}
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	top := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)[0].(map[string]any)
	if top["source"].(map[string]any)["path"] != moved || top["line"] != float64(2) {
		t.Errorf("top frame %v, want %s:2", top, moved)
	}
	if r := c.do("evaluate", map[string]any{"expression": "-exec list 1,2", "context": "repl"}); r["result"] != "1\tint twice(int x) {\n2\t\treturn 2 * x;" {
		t.Errorf("-exec list 1,2: %q", r["result"])
	}
}

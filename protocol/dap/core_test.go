package dap

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// launch with "coreDumpPath" (VS Code's C/C++ adapter's name) inspects a core dump: the
// program stopped for good by the signal that ended it, its stack and variables; continue
// is refused, saying why.
func TestLaunchCoreDump(t *testing.T) {
	realparts.Need(t, "gdb", "gcc")
	_, exe := realparts.BuildC(t, "crash", "struct point { int x, y; };\nvoid crash(struct point *p, int *q) {\n\t*q = p->x;\n}\n"+
		"int main(void) {\n\tstruct point pt = {3, 4};\n\tcrash(&pt, 0);\n\treturn 0;\n}\n")
	core := filepath.Join(t.TempDir(), "crash.core")
	if out, err := exec.Command("gdb", "-nx", "-batch", "-ex", "run", "-ex", "gcore "+core, exe).CombinedOutput(); err != nil {
		t.Fatalf("gdb gcore: %v\n%s", err, out)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"program": exe, "coreDumpPath": core})
	c.event("initialized")
	c.do("configurationDone", nil)
	st := c.event("stopped")
	if st["reason"] != "exception" || !strings.Contains(str(st["description"])+str(st["text"]), "SIGSEGV") {
		t.Errorf("stopped: %v", st)
	}
	frames := c.do("stackTrace", map[string]any{"threadId": st["threadId"]})["stackFrames"].([]any)
	if len(frames) < 2 || frames[0].(map[string]any)["name"] != "crash" || frames[1].(map[string]any)["name"] != "main" {
		t.Fatalf("frames %v", frames)
	}
	if r := c.do("evaluate", map[string]any{"expression": "p->y", "frameId": frames[0].(map[string]any)["id"], "context": "watch"}); r["result"] != "4" {
		t.Errorf("p->y: %v", r["result"])
	}
	if msg := c.fail("continue", map[string]any{"threadId": st["threadId"]}); !strings.Contains(msg, "core dump") {
		t.Errorf("continue on a core dump: %q", msg)
	}
	c.do("disconnect", nil)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

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

// An agent inspects a core dump (start with core; with --allow-exec only, since a dump
// names the files its memory is read from): the stop context of the crash, and what a
// program that has ended cannot do.
func TestStartCoreDump(t *testing.T) {
	realparts.Need(t, "gdb", "gcc")
	_, exe := realparts.BuildC(t, "crash", "void crash(int *q, int v) {\n\t*q = v;\n}\nint main(void) {\n\tcrash(0, 42);\n\treturn 0;\n}\n")
	core := filepath.Join(t.TempDir(), "crash.core")
	if out, err := exec.Command("gdb", "-nx", "-batch", "-ex", "run", "-ex", "gcore "+core, exe).CombinedOutput(); err != nil {
		t.Fatalf("gdb gcore: %v\n%s", err, out)
	}
	ctx := timeout(t, 60*time.Second)
	_, refusing := inProcess(t, ctx, mcp.Options{}, nil)
	mustFail(t, ctx, refusing, "start", map[string]any{"core": core, "program": exe}, "--allow-exec")
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	sc := must(t, ctx, cs, "start", map[string]any{"core": core, "program": exe})
	if s := str(sc); !strings.Contains(s, "crash") || !strings.Contains(s, "SIGSEGV") {
		t.Errorf("stop context of the dump:\n%v", sc)
	}
	if v, _ := local(sc, "v"); v != "42" {
		t.Errorf("v = %q, want 42", v)
	}
	mustFail(t, ctx, cs, "continue", map[string]any{"session": sc["session"]}, "core dump")
}

package mcp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// An agent attaches to a running process by pid (with --allow-exec only): the process is
// stopped where it is, its stack read, a breakpoint its loop reaches stops it, and closing
// the session lets it run on to its own end.
func TestAttachByPID(t *testing.T) {
	realparts.NeedAttach(t)
	src, exe := realparts.BuildC(t, "attachloop", realparts.LoopProg)
	ctx := timeout(t, 60*time.Second)
	prog := realparts.StartReady(t, exe, "ready")
	_, refusing := inProcess(t, ctx, mcp.Options{}, nil)
	mustFail(t, ctx, refusing, "attach", map[string]any{"pid": prog.Pid()}, "--allow-exec")
	_, cs := inProcess(t, ctx, mcp.Options{AllowExec: true}, nil)
	mustFail(t, ctx, cs, "attach", map[string]any{"pid": prog.Pid(), "address": "127.0.0.1:1"}, "not both")
	sc := must(t, ctx, cs, "attach", map[string]any{"pid": prog.Pid(), "stopOnEntry": true})
	id := sc["session"]
	if !strings.Contains(str(sc), "main") {
		t.Errorf("the stop context does not reach main:\n%v", sc)
	}
	must(t, ctx, cs, "set_breakpoint", map[string]any{"session": id, "file": src, "line": realparts.LoopLine})
	if sc := must(t, ctx, cs, "continue", map[string]any{"session": id}); !strings.Contains(str(sc), "breakpoint") {
		t.Errorf("continue did not stop at the breakpoint:\n%v", sc)
	}
	must(t, ctx, cs, "close_session", map[string]any{"session": id})
	prog.EndedNormally(t, "done 3000\n")
}

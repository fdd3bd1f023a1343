package gdbremote

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// A child the program forks runs a function with a breakpoint: it is let go without the
// parent's breakpoints (as gdb's detach-on-fork) and ends normally, and the parent still
// stops at that breakpoint. Before, the child inherited the breakpoint instruction
// untraced and died of SIGTRAP ("child killed by signal 5").
func TestForkedChildLetGoWithoutBreakpoints(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, nativeFile(t, "fork.c"))
	tg, err := LaunchNative(testCtx(t, 30*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "work"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	if st.Reason != engine.ReasonBreakpoint || st.Location.Func != "work" {
		t.Fatalf("stopped %+v, want the parent at work", st)
	}
	if got := x.eval("n"); got != "1" {
		t.Errorf("n = %s in the parent's stop, want 1 (the child's call, n = 21, must not stop)", got)
	}
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	if e := x.next(engine.EventExited, engine.EventTerminated); e.Kind != engine.EventExited || e.ExitCode != 0 {
		t.Fatalf("the program ended with %v code %d", e.Kind, e.ExitCode)
	}
	tg.stub.DrainOutput()
	if out := tg.stub.Output(); !strings.Contains(out, "child exited 7") {
		t.Errorf("output %q: the child did not end normally", out)
	}
}

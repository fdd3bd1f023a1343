package gdbremote

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

const watchCallProg = `#include <stdio.h>
volatile int counter;
void bump(void) {
    counter += 5;
}
int main(void) {
    bump();
    bump();
    printf("%d\n", counter);
    return 0;
}
`

// A data breakpoint hit inside a call that next steps over, or that step out finishes,
// ends the step there, as gdb reports it.
func TestDataBreakpointInsideSteppedCall(t *testing.T) {
	prog := buildC(t, watchCallProg)
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "main"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	w, _, err := x.s.DataBreakpointInfo(0, "counter")
	if err != nil {
		t.Fatal(err)
	}
	w.Access = engine.DataWrite
	if ws, err := x.s.SetDataBreakpoints([]engine.Watchpoint{w}); err != nil || !ws[0].Verified {
		t.Fatalf("SetDataBreakpoints: %+v %v", ws, err)
	}
	st := x.resume(engine.StepOver) // over bump(): the write inside it stops the step
	if st.Reason != engine.ReasonData || !strings.Contains(st.Text, "0 -> 5") {
		t.Fatalf("next over the first bump: %+v", st)
	}
	if st = x.resume(engine.StepOut); st.Reason != engine.ReasonStep || st.Location.Func != "main" {
		t.Fatalf("step out of bump: %+v", st)
	}
	st = x.resume(engine.StepInto) // into the second bump
	if st = x.resume(engine.StepOut); st.Reason != engine.ReasonData || !strings.Contains(st.Text, "5 -> 10") {
		t.Fatalf("step out of the second bump, over its write: %+v", st)
	}
}

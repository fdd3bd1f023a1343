package gdbremote

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
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
	x := watchedAtMain(t, watchCallProg, "counter")
	st := x.resume(engine.StepOver) // over bump(): the write inside it stops the step
	if st.Reason != engine.ReasonData || !strings.Contains(st.Text, "0 -> 5") {
		t.Fatalf("next over the first bump: %+v", st)
	}
	if st = x.resume(engine.StepOut); st.Reason != engine.ReasonStep || st.Location.Func != "main" {
		t.Fatalf("step out of bump: %+v", st)
	}
	x.resume(engine.StepInto) // into the second bump
	if st = x.resume(engine.StepOut); st.Reason != engine.ReasonData || !strings.Contains(st.Text, "5 -> 10") {
		t.Fatalf("step out of the second bump, over its write: %+v", st)
	}
}

const watchSameProg = `#include <stdio.h>
volatile int level;
int main(void) {
    for (int i = 0; i < 3; i++)
        level = 1;
    level = 2;
    printf("%d\n", level);
    return 0;
}
`

// A write watchpoint stops when the value changes, not at a write of the value already
// there (gdb's watch, VS Code's "break on value change"): the three writes of 1 stop once.
func TestWriteWatchpointStopsOnChange(t *testing.T) {
	x := watchedAtMain(t, watchSameProg, "level")
	var texts []string
	for range 4 {
		if err := x.s.Resume(engine.Continue); err != nil {
			t.Fatal(err)
		}
		e := x.next(engine.EventStopped, engine.EventExited, engine.EventTerminated)
		if e.Kind != engine.EventStopped {
			break
		}
		texts = append(texts, e.Stop.Text)
	}
	if want := []string{"level: 0 -> 1", "level: 1 -> 2"}; strings.Join(texts, "|") != strings.Join(want, "|") {
		t.Fatalf("stops %q, want %q", texts, want)
	}
}

// stoppedAtMain runs the program exe under gdbserver to main, within timeout.
func stoppedAtMain(t *testing.T, exe string, timeout time.Duration) (*Target, *sess) {
	t.Helper()
	tg, err := LaunchNative(testCtx(t, timeout), exe, nil, Config{})
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
	return tg, x
}

// watchedAtMain builds the C program src, runs it under gdbserver to main and sets a write
// data breakpoint on expr there.
func watchedAtMain(t *testing.T, src, expr string) *sess {
	t.Helper()
	realparts.NeedHardwareWatchpoints(t)
	_, x := stoppedAtMain(t, buildC(t, src), 20*time.Second)
	w, _, err := x.s.DataBreakpointInfo(0, expr)
	if err != nil {
		t.Fatal(err)
	}
	w.Access = engine.DataWrite
	if ws, err := x.s.SetDataBreakpoints([]engine.Watchpoint{w}); err != nil || !ws[0].Verified {
		t.Fatalf("SetDataBreakpoints: %+v %v", ws, err)
	}
	return x
}

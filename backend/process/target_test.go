package process

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// collect runs events of a session to its end and returns them.
func collect(t *testing.T, sub *engine.Subscription) (out map[string]string, last engine.Event) {
	t.Helper()
	out = map[string]string{}
	timeout := time.After(10 * time.Second)
	for {
		select {
		case e, ok := <-sub.Events():
			if !ok {
				return out, last
			}
			if e.Kind == engine.EventOutput {
				out[e.Category] += e.Text
			}
			last = e
		case <-timeout:
			t.Fatal("the session did not end")
		}
	}
}

// TestTargetRunsThroughSession: a supervised program's output and exit code arrive as
// engine events, in order, and debugging requests get a clear error.
func TestTargetRunsThroughSession(t *testing.T) {
	tg := NewTarget(Spec{Path: "/bin/sh", Args: []string{"-c", "echo out; echo err >&2; exit 7"}}, time.Second)
	s := engine.NewSession(tg)
	defer s.Close()
	sub := s.Subscribe()
	if _, err := s.SetBreakpoint(engine.BreakpointSpec{File: "x.c", Line: 3}); err == nil {
		t.Error("a breakpoint was accepted")
	}
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	out, last := collect(t, sub)
	if out["stdout"] != "out\n" || out["stderr"] != "err\n" {
		t.Errorf("output %q", out)
	}
	if last.Kind != engine.EventExited || last.ExitCode != 7 {
		t.Errorf("last event %+v", last)
	}
	if st, ok := tg.Status(); !ok || st.Code != 7 {
		t.Errorf("status %+v %v", st, ok)
	}
	if _, err := tg.ResolveLine("x.c", 1); !errors.Is(err, ErrNotSupported) || !strings.Contains(err.Error(), "supervised process") {
		t.Errorf("ResolveLine: %v", err)
	}
}

// TestTargetTerminate: Terminate ends the program's group and the session reports
// terminated; a program ignoring SIGTERM is killed after the grace time.
func TestTargetTerminate(t *testing.T) {
	tg := NewTarget(Spec{Path: "/bin/sh", Args: []string{"-c", "trap '' TERM; echo ready; sleep 30 & wait; sleep 30"}}, 200*time.Millisecond)
	s := engine.NewSession(tg)
	defer s.Close()
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	for e := range sub.Events() {
		if e.Kind == engine.EventOutput && e.Text == "ready\n" {
			break
		}
	}
	if err := s.Terminate(); err != nil {
		t.Fatal(err)
	}
	_, last := collect(t, sub)
	if last.Kind != engine.EventTerminated {
		t.Errorf("last event %+v", last)
	}
	if st, _ := tg.Status(); st.SignalName() != "SIGKILL" {
		t.Errorf("status %v", st)
	}
}

package kitevm_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
)

// A step runs on the caller's goroutine: when Step returns, its stop has been reported.
func TestStepReportedWhenStepReturns(t *testing.T) {
	h := start(t, "let i = 0\nwhile true {\n    i += 1\n}\n", nil, true)
	h.stop(engine.ReasonEntry, 1)
	for range 20 {
		h.do(h.s.Step(engine.StepOver))
		if st := h.s.State(); st != engine.Stopped {
			t.Fatalf("state %s right after Step returned, want stopped", st)
		}
		h.stop(engine.ReasonStep, 0)
	}
}

// A start that stops on entry runs to its entry stop on the caller's goroutine, as a step
// does: the stop has been reported when Start returns (a client that sends start, then a
// step, finds the program stopped).
func TestEntryStopReportedWhenStartReturns(t *testing.T) {
	for range 20 {
		h := start(t, "let i = 0\nwhile true {\n    i += 1\n}\n", nil, true)
		if st := h.s.State(); st != engine.Stopped {
			t.Fatalf("state %s right after Start returned, want stopped", st)
		}
		h.stop(engine.ReasonEntry, 1)
	}
}

// A continue into a loop that never stops returns at once (the run goes on on a goroutine
// of its own after about a millisecond), and a pause still stops it.
func TestLongRunLeavesTheCaller(t *testing.T) {
	h := start(t, "let i = 0\nwhile true {\n    i += 1\n}\n", nil, true)
	h.stop(engine.ReasonEntry, 1)
	t0 := time.Now()
	h.do(h.s.Continue())
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("Continue held the caller %v", d)
	}
	if st := h.s.State(); st != engine.Running {
		t.Fatalf("state %s, want running", st)
	}
	h.do(h.s.Pause())
	h.stop(engine.ReasonPause, 0)
}

// A step over output the subscriber does not read yet (its queue is full, so the engine
// holds the output back) must not block the goroutine that stepped: the run is handed off
// before the output, and the step completes once the subscriber reads.
func TestStepOverHeldOutputDoesNotBlockTheCaller(t *testing.T) {
	s, sub := boundedAtEntry(t, "let i = 0\nwhile i < 10 {\n    print(i)\n    i += 1\n}\nprint(\"done\")\n", 1, nil)
	// One goroutine steps and reads, as a front end does: a step over a print while the
	// queue is full must return before the output is read, or it would wait for itself.
	done := make(chan string, 1)
	go func() {
		var out strings.Builder
		for range 8 {
			if err := s.Step(engine.StepOver); err != nil {
				done <- "step: " + err.Error()
				return
			}
			for {
				e, err := sub.Next(t.Context())
				if err != nil {
					done <- err.Error()
					return
				}
				if e.Kind == engine.EventOutput {
					out.WriteString(e.Text)
				}
				if e.Kind == engine.EventStopped {
					break
				}
			}
		}
		done <- out.String()
	}()
	select {
	case out := <-done:
		if !strings.HasPrefix(out, "0\n1\n") {
			t.Fatalf("output %q", out)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a step over output waited for its own reader")
	}
}

// A logpoint's message is output too, held back while a bounded subscriber's queue is full:
// a continue through a loop with a logpoint must not wait, on the caller's goroutine, for
// that caller to read.
func TestLogpointOutputDoesNotBlockTheCaller(t *testing.T) {
	s, sub := boundedAtEntry(t, "let i = 0\nwhile i < 50 {\n    i += 1\n}\nprint(\"done\")\n", 4, func(s *engine.Session) {
		if _, err := s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "prog.kite", Line: 3, LogMessage: "i is ${i}"}); err != nil {
			t.Fatal(err)
		}
	})
	done := make(chan string, 1)
	go func() {
		if err := s.Continue(); err != nil {
			done <- err.Error()
			return
		}
		var logs int
		for {
			e, err := sub.Next(t.Context())
			if err != nil {
				done <- err.Error()
				return
			}
			if e.Kind == engine.EventOutput && strings.HasPrefix(e.Text, "i is ") {
				logs++
			}
			if e.Kind == engine.EventExited {
				done <- fmt.Sprint(logs)
				return
			}
		}
	}()
	select {
	case got := <-done:
		if got != "50" {
			t.Fatalf("%s logpoint lines, want 50", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a continue through a logpoint waited for its own reader")
	}
}

// boundedAtEntry starts src stopped at its entry, with a subscriber whose queue holds max
// events (so that program output is held back once it is full), setup run before the start.
func boundedAtEntry(t *testing.T, src string, max int, setup func(s *engine.Session)) (*engine.Session, *engine.Subscription) {
	t.Helper()
	prog, err := kite.Compile("prog.kite", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := kitevm.New(prog, kitevm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := engine.NewSession(tg)
	t.Cleanup(func() { s.Close() })
	sub := s.SubscribeWith(engine.SubscribeOptions{MaxQueued: max})
	if setup != nil {
		setup(s)
	}
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	for {
		e, err := sub.Next(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if e.Kind == engine.EventStopped {
			return s, sub
		}
	}
}

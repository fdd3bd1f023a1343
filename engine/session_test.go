package engine

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// The session's logic against fakeTarget: no Kite, no gdb.

func fakeSession(t *testing.T, lines, loops int) (*Session, *fakeTarget) {
	t.Helper()
	f := newFake(lines, loops)
	s := NewSession(f)
	t.Cleanup(func() { _ = s.Close() })
	return s, f
}

func wait(t *testing.T, s *Session, after uint64) Halt {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := s.WaitStop(ctx, after)
	if err != nil {
		t.Fatalf("WaitStop: %v", err)
	}
	return h
}

func TestStatesAndWaitStop(t *testing.T) {
	s, _ := fakeSession(t, 4, 1<<40) // never ends on its own
	if s.State() != Initialized {
		t.Fatal(s.State())
	}
	if err := s.Resume(StepInto); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("resume before start: %v", err)
	}
	if _, err := s.Stack(); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("stack before start: %v", err)
	}
	seq := s.Seq()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(true); err == nil {
		t.Fatal("a second start was accepted")
	}
	h := wait(t, s, seq)
	if h.State != Stopped || h.Stop.Reason != ReasonEntry || h.Stop.Location.Line != 1 || s.State() != Stopped {
		t.Fatalf("entry: %+v", h)
	}
	if again := wait(t, s, seq); again.Seq != h.Seq { // an old halt is returned at once
		t.Fatalf("WaitStop again: %+v", again)
	}
	h, err := s.ResumeAndWait(context.Background(), StepInto)
	if err != nil || h.Stop.Reason != ReasonStep || h.Stop.Location.Line != 2 {
		t.Fatalf("step: %+v %v", h, err)
	}
	seq = s.Seq()
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stack(); !errors.Is(err, ErrRunning) {
		t.Fatalf("stack while running: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	if _, err := s.WaitStop(ctx, seq); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitStop while running on: %v", err)
	}
	cancel()
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.Stop.Reason != ReasonPause {
		t.Fatalf("pause: %+v", h.Stop)
	}
	seq = s.Seq()
	if err := s.Terminate(); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.State != Terminated || !s.State().Ended() {
		t.Fatalf("terminate: %+v", h)
	}
	if err := s.Resume(Continue); !errors.Is(err, ErrEnded) {
		t.Fatalf("resume after the end: %v", err)
	}
	if err := s.Terminate(); err != nil {
		t.Fatalf("terminate twice: %v", err)
	}
}

func TestRunToExit(t *testing.T) {
	s, _ := fakeSession(t, 3, 2)
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, 0); h.State != Exited || h.ExitCode != 0 {
		t.Fatalf("%+v", h)
	}
	select {
	case <-s.Done():
	case <-time.After(time.Second):
		t.Fatal("Done not closed")
	}
}

func TestBreakpointSetsKeepIDs(t *testing.T) {
	s, f := fakeSession(t, 9, 10)
	sub := s.Subscribe()
	first := s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 3}, {Line: 5}, {Line: 99}})
	if !first[0].Verified || !first[1].Verified || first[2].Verified || first[2].Message == "" || first[2].ID != 0 {
		t.Fatalf("first set: %+v", first)
	}
	second := s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 5}, {Line: 7, Condition: "i == 2"}})
	if second[0].ID != first[1].ID {
		t.Fatalf("line 5 changed id: %d -> %d", first[1].ID, second[0].ID)
	}
	if second[1].ID == first[0].ID || second[1].ID == first[1].ID {
		t.Fatalf("line 7 reused an id: %+v", second)
	}
	// An option changed on the same line: same id, new options.
	third := s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 5, HitCondition: "2"}, {Line: 7, Condition: "i == 2"}})
	if third[0].ID != first[1].ID || third[0].Spec.HitCondition != "2" || third[1].ID != second[1].ID {
		t.Fatalf("third set: %+v", third)
	}
	var lines []int
	for _, b := range s.Breakpoints() {
		lines = append(lines, b.Location.Line)
	}
	if !slices.Equal(lines, []int{5, 7}) {
		t.Fatalf("table: %v", lines)
	}
	// Other sets are left alone; function breakpoints replace only their own set.
	fb := s.SetFunctionBreakpoints([]BreakpointSpec{{Function: "main"}, {Function: "nosuch"}})
	if !fb[0].Verified || fb[1].Verified {
		t.Fatalf("function set: %+v", fb)
	}
	s.SetFunctionBreakpoints(nil)
	if n := len(s.Breakpoints()); n != 2 {
		t.Fatalf("%d breakpoints after clearing the function set", n)
	}
	// Every change is an event.
	s.SetBreakpoints(f.file, nil)
	var kinds []EventKind
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		kinds = append(kinds, e.Kind)
	}
	added, removed := 0, 0
	for _, k := range kinds {
		switch k {
		case EventBreakpointChanged:
			added++
		case EventBreakpointRemoved:
			removed++
		}
	}
	if added != removed || added < 5 {
		t.Fatalf("events: %d changed, %d removed (%v)", added, removed, kinds)
	}
}

func TestConditionsHitCountsAndLogpoints(t *testing.T) {
	s, f := fakeSession(t, 4, 10)
	f.printAt = 4
	sub := s.Subscribe()
	bps := s.SetBreakpoints(f.file, []BreakpointSpec{
		{Line: 2, Condition: "i % 3 == 0", HitCondition: "> 1"}, // i = 3, 6, 9 (the hit at i = 0 does not count)
		{Line: 3, LogMessage: "at i=${i}!"},
	})
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"3", "6", "9"} {
		h := wait(t, s, seq)
		if h.State != Stopped || h.Stop.BreakpointID != bps[0].ID {
			t.Fatalf("halt %+v", h)
		}
		v, err := s.Evaluate(0, "i", EvalMode{Pure: true})
		if err != nil || v.Value != want {
			t.Fatalf("i = %v (%v), want %s", v.Value, err, want)
		}
		seq = s.Seq() // before the resume: the next halt may come at once
		if err := s.Continue(); err != nil {
			t.Fatal(err)
		}
	}
	if h := wait(t, s, seq); h.State != Exited {
		t.Fatalf("end: %+v", h)
	}
	var logs, prints int
	for {
		e, err := sub.Next(context.Background())
		if err != nil {
			break
		}
		if e.Kind == EventOutput && e.Category == "console" && strings.HasPrefix(e.Text, "at i=") {
			logs++
		}
		if e.Kind == EventOutput && e.Category == "stdout" {
			prints++
		}
	}
	if logs != 10 || prints != 10 {
		t.Fatalf("%d logpoint lines, %d prints", logs, prints)
	}
	if got := s.Breakpoints(); len(got) != 2 || got[0].Hits != 4 || got[1].Hits != 10 { // hits count where the condition holds
		t.Fatalf("hits: %+v", got)
	}
}

func TestBadConditionInASetStopsAndSaysWhy(t *testing.T) {
	s, f := fakeSession(t, 3, 5)
	bps := s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 2, Condition: "i >>> 2"}})
	if !bps[0].Verified || !strings.Contains(bps[0].Message, "cannot compile") {
		t.Fatalf("%+v", bps[0])
	}
	if _, err := s.SetBreakpoint(BreakpointSpec{File: f.file, Line: 3, Condition: "i >>> 2"}); err == nil {
		t.Fatal("SetBreakpoint accepted a bad condition")
	}
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, 0)
	if h.Stop == nil || h.Stop.BreakpointID != bps[0].ID || !strings.Contains(h.Stop.Text, "cannot compile") {
		t.Fatalf("%+v", h.Stop)
	}
}

func TestEventsReachEverySubscriberInOrder(t *testing.T) {
	s, f := fakeSession(t, 5, 20)
	f.printAt = 1
	subs := []*Subscription{s.Subscribe(), s.Subscribe(), s.Subscribe()}
	s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 3, Condition: "i == 7"}})
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	var seqs [3][]uint64
	for i, sub := range subs {
		for {
			e, err := sub.Next(context.Background())
			if err != nil {
				break
			}
			seqs[i] = append(seqs[i], e.Seq)
		}
	}
	for i := range seqs {
		if !slices.Equal(seqs[i], seqs[0]) {
			t.Fatalf("subscriber %d saw %v, subscriber 0 %v", i, seqs[i], seqs[0])
		}
		for j := 1; j < len(seqs[i]); j++ {
			if seqs[i][j] != seqs[i][j-1]+1 {
				t.Fatalf("gap in %v", seqs[i])
			}
		}
	}
	if len(seqs[0]) < 25 {
		t.Fatalf("only %d events", len(seqs[0]))
	}
}

func TestWatchesAreTakenAtTheStop(t *testing.T) {
	s, f := fakeSession(t, 2, 100)
	s.SetWatches([]string{"i", "nosuch"})
	s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 1}})
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, 0)
	seq := h.Seq
	// Resume without reading the watches: they are taken before the resume.
	h2, err := s.ResumeAndWait(context.Background(), Continue)
	if err != nil {
		t.Fatal(err)
	}
	old, err := s.WatchValues(seq)
	if err != nil || len(old) != 2 || old[0].Value.Value != "0" || old[1].Err == "" {
		t.Fatalf("the first stop's watches: %+v %v", old, err)
	}
	now, err := s.WatchValues(h2.Seq)
	if err != nil || now[0].Value.Value != "1" {
		t.Fatalf("the second stop's watches: %+v %v", now, err)
	}
	if _, err := s.WatchValues(12345); err == nil {
		t.Fatal("watches of a stop that never was")
	}
}

func TestExceptionStopsCanBeTurnedOff(t *testing.T) {
	s, f := fakeSession(t, 3, 3)
	f.failAt = 2
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, 0); h.Stop == nil || h.Stop.Reason != ReasonException || h.Stop.Text != "boom" {
		t.Fatalf("%+v", h)
	}
	s.SetExceptionStops(false)
	seq := s.Seq()
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.State != Exited {
		t.Fatalf("with exception stops off: %+v %+v", h, h.Stop)
	}
}

// A subscriber with a bounded queue that stops reading holds the program back at its next
// output; reading again lets it go on. An unbounded subscriber never does.
func TestBoundedSubscriptionHoldsOutputBack(t *testing.T) {
	s, f := fakeSession(t, 1, 3000)
	f.printAt = 1
	sub := s.SubscribeWith(SubscribeOptions{MaxQueued: 16})
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	// The queue fills (started + 16 events), then the program is held at its next print.
	deadline := time.Now().Add(10 * time.Second)
	for s.Seq() < 17 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	if held := s.Seq(); held > 20 {
		t.Fatalf("the program went on: %d events with nobody reading", held)
	}
	n := 0
	for {
		e, err := sub.Next(context.Background())
		if err != nil {
			break
		}
		if e.Kind == EventOutput {
			n++
		}
	}
	if n != 3000 {
		t.Fatalf("%d outputs read", n)
	}
}

func TestRestoreBreakpointsKeepsIDs(t *testing.T) {
	s, f := fakeSession(t, 5, 1)
	set := s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 2}, {Line: 4, Condition: "i == 0"}})
	s2 := NewSession(newFake(5, 1))
	defer s2.Close()
	got := s2.RestoreBreakpoints(s.Breakpoints())
	if len(got) != 2 || got[0].ID != set[0].ID || got[1].ID != set[1].ID || !got[1].Verified {
		t.Fatalf("restored %+v, had %+v", got, set)
	}
	if b, _ := s2.SetBreakpoint(BreakpointSpec{File: f.file, Line: 5}); b.ID <= set[1].ID {
		t.Fatalf("a new breakpoint got id %d, not above the restored ones", b.ID)
	}
}

func TestClipValue(t *testing.T) {
	if got := ClipValue("héllo", 2); got != "h..." {
		t.Fatalf("%q", got)
	}
	if got := ClipValue("short", 0); got != "short" {
		t.Fatalf("%q", got)
	}
}

func TestResumeFromOnlyAStopSeen(t *testing.T) {
	s, _ := fakeSession(t, 3, 1<<40)
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, 0)
	if err := s.ResumeFrom(h.Seq-1, StepInto); !errors.Is(err, ErrNotStopped) {
		t.Fatalf("resume from a stop not seen: %v", err)
	}
	if err := s.ResumeFrom(h.Seq, StepInto); err != nil {
		t.Fatalf("resume from the stop seen: %v", err)
	}
}

func TestRunUntil(t *testing.T) {
	s, _ := fakeSession(t, 4, 1<<40)
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	r, err := s.RunUntil(context.Background(), Until{Location: "3", Watch: []string{"line"}})
	if err != nil || r.Reached != "location" || r.Halt.Stop.Location.Line != 3 || r.Steps != 2 || len(r.Trace) != 2 {
		t.Fatalf("to line 3: %+v %v", r, err)
	}
	if r.Trace[1].Changed["line"] != "3" {
		t.Fatalf("trace %+v", r.Trace)
	}
	r, err = s.RunUntil(context.Background(), Until{Condition: "i", MaxSteps: 100})
	if err != nil || r.Reached != "condition" || r.Halt.Stop.Location.Line != 1 { // i becomes 1 at round 2's first line
		t.Fatalf("until i: %+v %v", r, err)
	}
	r, err = s.RunUntil(context.Background(), Until{MaxSteps: 7})
	if err != nil || r.Reached != "steps" || r.Steps != 7 || !r.Halted {
		t.Fatalf("budget: %+v %v", r, err)
	}
	if _, err := s.RunUntil(context.Background(), Until{Location: "x.c:nine"}); err == nil {
		t.Fatal("a bad location was accepted")
	}
}

// A watch can carry a print format (gdb's display/x); a new session restores watches under
// the same ids, and numbers the next one after them.
func TestWatchFormatsAndRestore(t *testing.T) {
	s, f := fakeSession(t, 2, 100)
	plain := s.AddWatch("i")
	hex := s.AddWatchFormat("i", 'x')
	s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 1}})
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	h, err := s.ResumeAndWait(context.Background(), Continue)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := s.WatchValues(h.Seq)
	if err != nil || len(vs) != 2 || vs[0].Value.Value != "1" || vs[1].Value.Value != "0x1" || vs[1].Format != 'x' {
		t.Fatalf("watch values: %+v %v", vs, err)
	}
	if err := s.RemoveWatch(plain.ID); err != nil {
		t.Fatal(err)
	}
	s2, _ := fakeSession(t, 2, 100)
	s2.RestoreWatches(s.Watches())
	if ws := s2.Watches(); len(ws) != 1 || ws[0] != hex {
		t.Fatalf("restored %+v, want %+v", ws, hex)
	}
	if w := s2.AddWatch("j"); w.ID != hex.ID+1 {
		t.Fatalf("the next watch is %d, want %d", w.ID, hex.ID+1)
	}
}

// A disabled breakpoint stays listed but is not reached (no stop, no hit, no trap left when
// it is the only one there); ignore passes the next hits.
func TestDisableEnableIgnore(t *testing.T) {
	s, f := fakeSession(t, 4, 10)
	a, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnableBreakpoint(a.ID, false); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	trapped := f.traps[2]
	f.mu.Unlock()
	if trapped {
		t.Fatal("a location with only a disabled breakpoint is still trapped")
	}
	b, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 3, Condition: "i == 2"})
	if err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.State != Stopped || h.Stop.BreakpointID != b.ID {
		t.Fatalf("halt %+v, want breakpoint %d (the disabled one passed)", h, b.ID)
	}
	if err := s.EnableBreakpoint(a.ID, true); err != nil {
		t.Fatal(err)
	}
	if err := s.IgnoreBreakpoint(a.ID, 3); err != nil {
		t.Fatal(err)
	}
	seq = s.Seq()
	if err := s.Continue(); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, seq)
	v, _ := s.Evaluate(0, "i", EvalMode{Pure: true})
	if h.State != Stopped || h.Stop.BreakpointID != a.ID || v.Value != "6" { // i = 3, 4, 5 passed
		t.Fatalf("halt %+v at i = %s, want breakpoint %d at i = 6", h, v.Value, a.ID)
	}
	if bps := s.Breakpoints(); bps[0].Hits != 4 || bps[0].Spec.Disabled {
		t.Fatalf("breakpoints %+v", bps)
	}
	if err := s.EnableBreakpoint(99, false); err == nil {
		t.Error("disable of no breakpoint accepted")
	}
}

// StepPast (gdb's until) steps over like next, but does not stop back in a loop: from the
// last line of the fake program's loop body it runs the loop out; from an earlier line it
// stops at the next one.
func TestStepPastLeavesTheLoop(t *testing.T) {
	s, f := fakeSession(t, 4, 3)
	s.SetBreakpoints(f.file, []BreakpointSpec{{Line: 2}})
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	wait(t, s, seq)
	s.SetBreakpoints(f.file, nil)
	ctx := context.Background()
	h, err := s.StepPast(ctx)
	if err != nil || h.State != Stopped || h.Stop.Location.Line != 3 {
		t.Fatalf("until from line 2: %+v %v", h, err)
	}
	if _, err := s.StepPast(ctx); err != nil { // to line 4, the body's last
		t.Fatal(err)
	}
	if h, err = s.StepPast(ctx); err != nil || h.State != Exited {
		t.Fatalf("until from the body's last line stopped at %+v (%v), want the loops run out", h, err)
	}
	if _, err := s.StepPast(ctx); err == nil {
		t.Error("until after the end accepted")
	}
}

// A program that a signal ends: its halt and its event name the signal beside the shell's
// exit code, for every subscriber.
func TestSignalEnd(t *testing.T) {
	s, f := fakeSession(t, 2, 1)
	f.signal = "SIGSEGV"
	sub := s.Subscribe()
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.State != Exited || h.ExitCode != 139 || h.Signal != "SIGSEGV" || h.Reason != "" {
		t.Fatalf("halt %+v, want exited by SIGSEGV with code 139", h)
	}
	if h := s.LastHalt(); h.Signal != "SIGSEGV" {
		t.Fatalf("LastHalt %+v", h)
	}
	for e := range sub.Events() {
		if e.Kind == EventExited {
			if e.Signal != "SIGSEGV" || e.ExitCode != 139 {
				t.Fatalf("exited event %+v", e)
			}
			return
		}
	}
	t.Fatal("no exited event")
}

// enable once and enable count disable a breakpoint after that many stops, which stays in
// the table with its hits; enable delete deletes it after its next stop.
func TestEnableForStopsThenDelete(t *testing.T) {
	s, f := fakeSession(t, 4, 10)
	a, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 2, Disabled: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.EnableFor(a.ID, 0); err == nil {
		t.Error("enable for 0 stops accepted")
	}
	if err := s.EnableFor(a.ID, 2); err != nil {
		t.Fatal(err)
	}
	b, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 3, Condition: "i == 5"})
	if err != nil {
		t.Fatal(err)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{a.ID, a.ID, b.ID} { // the third stop at a is not made
		if i > 0 {
			seq = s.Seq()
			if err := s.Continue(); err != nil {
				t.Fatal(err)
			}
		}
		if h := wait(t, s, seq); h.State != Stopped || h.Stop.BreakpointID != want {
			t.Fatalf("stop %d: halt %+v, want breakpoint %d", i+1, h, want)
		}
	}
	if bps := s.Breakpoints(); !bps[0].Spec.Disabled || bps[0].Hits != 2 || !bps[0].Spec.Counted || bps[0].Spec.StopsLeft != 0 {
		t.Fatalf("after two stops: %+v", bps[0])
	}
	s2, f2 := fakeSession(t, 4, 10)
	c, _ := s2.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f2.file, Line: 2, Disabled: true})
	if err := s2.EnableTemporary(c.ID); err != nil {
		t.Fatal(err)
	}
	seq = s2.Seq()
	if err := s2.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s2, seq); h.State != Stopped || h.Stop.BreakpointID != c.ID {
		t.Fatalf("halt %+v, want breakpoint %d", h, c.ID)
	}
	if bps := s2.Breakpoints(); len(bps) != 0 {
		t.Fatalf("enable delete's breakpoint is still there: %+v", bps)
	}
	if err := s2.EnableTemporary(99); err == nil {
		t.Error("enable delete of no breakpoint accepted")
	}
}

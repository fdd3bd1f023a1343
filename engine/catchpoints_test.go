package engine

import (
	"errors"
	"fmt"
	"slices"
	"testing"
)

// catchFake is fakeTarget that catches system calls: it keeps what it was told to catch.
type catchFake struct {
	*fakeTarget
	calls         []int
	all           bool
	forks, vforks bool
}

func (c *catchFake) SyscallNumber(name string) (int, error) {
	n, ok := map[string]int{"read": 0, "write": 1, "getpid": 39, "39": 39}[name]
	if !ok {
		return 0, fmt.Errorf("Unknown syscall name '%s'.", name)
	}
	return n, nil
}

func (c *catchFake) SyscallName(n int) string {
	return map[int]string{0: "read", 1: "write", 39: "getpid"}[n]
}

func (c *catchFake) CatchSyscalls(calls []int, all bool) error {
	c.calls, c.all = calls, all
	return nil
}

// Catchpoints are numbered with the breakpoints, tell the target the union of their calls,
// name the catchpoint of a system call stop and count its hits, and survive a new session.
func TestCatchpoints(t *testing.T) {
	if _, err := NewSession(newFake(2, 1)).CatchSyscalls(nil); !errors.Is(err, ErrUnsupported) {
		t.Errorf("catch on a target without system calls: %v", err)
	}
	f := &catchFake{fakeTarget: newFake(4, 1)}
	s := NewSession(f)
	bp, _ := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: f.file, Line: 2})
	w, err := s.CatchSyscalls([]string{"write", "39"})
	if err != nil || w.ID != bp.ID+1 || !slices.Equal(w.Names, []string{"write", "getpid"}) {
		t.Fatalf("catch write 39: %+v, %v", w, err)
	}
	r, _ := s.CatchSyscalls([]string{"read", "write"})
	if !slices.Equal(f.calls, []int{0, 1, 39}) || f.all {
		t.Errorf("the target catches %v (all %v)", f.calls, f.all)
	}
	if _, err := s.CatchSyscalls([]string{"nosuch"}); err == nil || len(s.Catchpoints()) != 2 {
		t.Errorf("an unknown call: %v, %d catchpoints", err, len(s.Catchpoints()))
	}
	stop := Stop{Reason: ReasonSyscall, Syscall: &SyscallStop{Num: 1}}
	s.mu.Lock()
	s.caughtBy(&stop)
	s.mu.Unlock()
	if stop.BreakpointID != w.ID || s.Catchpoints()[0].Hits != 1 {
		t.Errorf("write's stop is catchpoint %d, hits %+v", stop.BreakpointID, s.Catchpoints())
	}
	if err := s.RemoveCatchpoint(w.ID); err != nil || !slices.Equal(f.calls, []int{0, 1}) {
		t.Errorf("after delete: %v, the target catches %v", err, f.calls)
	}
	if err := s.RemoveCatchpoint(w.ID); err == nil {
		t.Error("a catchpoint deleted twice")
	}
	f2 := &catchFake{fakeTarget: newFake(4, 1)}
	s2 := NewSession(f2)
	if err := s2.RestoreCatchpoints(s.Catchpoints()); err != nil || !slices.Equal(f2.calls, []int{0, 1}) {
		t.Fatalf("restored: %v, the target catches %v", err, f2.calls)
	}
	if next, _ := s2.CatchSyscalls(nil); next.ID != r.ID+1 || !f2.all {
		t.Errorf("a catchpoint after the restored ones is %d (all %v)", next.ID, f2.all)
	}
}

func (c *catchFake) CatchForks(forks, vforks bool) error {
	c.forks, c.vforks = forks, vforks
	return nil
}

func (c *catchFake) HandleSignal(string, SignalHandling) error { return nil }
func (c *catchFake) SignalNames() []string                     { return []string{"SIGUSR1", "SIGUSR2", "SIGTRAP"} }
func (c *catchFake) SignalHandling(name string) (SignalHandling, error) {
	if !slices.Contains(c.SignalNames(), name) {
		return SignalHandling{}, fmt.Errorf("unknown signal %s", name)
	}
	return SignalHandling{Stop: true, Print: true, Pass: true}, nil
}

// Signal and fork catchpoints: a signal stop is numbered by the first catchpoint that
// catches its signal (the standard ones are all but SIGTRAP and SIGINT), a fork stop by a
// fork catchpoint, which keeps the child, a vfork stop by a vfork catchpoint only; the
// target stops at forks and vforks while one of their kind is enabled,
// and neither kind is told to the target as system calls.
func TestSignalAndForkCatchpoints(t *testing.T) {
	f := &catchFake{fakeTarget: newFake(4, 1)}
	s := NewSession(f)
	if _, err := s.CatchSignals([]string{"SIGNOSUCH"}, false); err == nil {
		t.Error("an unknown signal caught")
	}
	usr2, _ := s.CatchSignals([]string{"SIGUSR2"}, false)
	std, _ := s.CatchSignals(nil, false)
	fork, err := s.CatchForks(false)
	if err != nil || !f.forks || f.calls != nil || f.all {
		t.Fatalf("catch fork: %v; the target catches forks %v, calls %v (all %v)", err, f.forks, f.calls, f.all)
	}
	for _, c := range []struct {
		sig  string
		want int
	}{{"SIGUSR2", usr2.ID}, {"SIGUSR1", std.ID}, {"SIGTRAP", 0}} {
		stop := Stop{Reason: ReasonException, Signal: c.sig}
		s.mu.Lock()
		s.signalCaughtBy(&stop)
		s.mu.Unlock()
		if stop.BreakpointID != c.want {
			t.Errorf("%s: catchpoint %d, want %d", c.sig, stop.BreakpointID, c.want)
		}
	}
	stop := Stop{Reason: ReasonFork, Fork: &ForkStop{Child: 42}}
	s.mu.Lock()
	s.forkCaughtBy(&stop)
	s.mu.Unlock()
	cs := s.Catchpoints()
	if stop.BreakpointID != fork.ID || cs[2].Child != 42 || cs[2].Hits != 1 || cs[0].Hits != 1 || cs[1].Hits != 1 {
		t.Errorf("fork stop: catchpoint %d; %+v", stop.BreakpointID, cs)
	}
	if err := s.EnableCatchpoint(fork.ID, false); err != nil || f.forks {
		t.Errorf("disabled: %v, the target catches forks %v", err, f.forks)
	}
	vfork, err := s.CatchForks(true)
	if err != nil || f.forks || !f.vforks {
		t.Fatalf("catch vfork: %v; the target catches forks %v, vforks %v", err, f.forks, f.vforks)
	}
	if err := s.EnableCatchpoint(fork.ID, true); err != nil || !f.forks || !f.vforks {
		t.Fatalf("enabled again: %v; the target catches forks %v, vforks %v", err, f.forks, f.vforks)
	}
	for _, c := range []struct {
		vfork bool
		want  int
	}{{true, vfork.ID}, {false, fork.ID}} {
		stop := Stop{Reason: ReasonFork, Fork: &ForkStop{Child: 43, Vfork: c.vfork}}
		s.mu.Lock()
		s.forkCaughtBy(&stop)
		s.mu.Unlock()
		if stop.BreakpointID != c.want {
			t.Errorf("a fork stop (vfork %v) caught by %d, want %d", c.vfork, stop.BreakpointID, c.want)
		}
	}
}

// A value's truth as C takes it: numbers, true and false; no truth for other texts.
func TestTruth(t *testing.T) {
	for _, c := range []struct {
		text      string
		truth, ok bool
	}{{"1", true, true}, {"0", false, true}, {" -3 ", true, true}, {"0x0", false, true}, {"65 'A'", true, true},
		{"0.0", false, true}, {"2.5", true, true}, {"true", true, true}, {"false", false, true},
		{"{x = 1}", false, false}, {`"abc"`, false, false}, {"", false, false}} {
		if truth, ok := Truth(c.text); truth != c.truth || ok != c.ok {
			t.Errorf("Truth(%q) = %v, %v; want %v, %v", c.text, truth, ok, c.truth, c.ok)
		}
	}
}

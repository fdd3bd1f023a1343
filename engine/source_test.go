package engine

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

type heldSource struct {
	*fakeTarget
	text string
}

func (h heldSource) SourceText(file string) ([]byte, bool) {
	return []byte(h.text), file == "held.kite"
}

// Source reads a file once (later reads see the first text), prefers the text the target
// holds, and refuses what is not a regular file instead of blocking on it.
func TestSourceReadsOnceThroughTheLoader(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.c")
	os.WriteFile(file, []byte("int x;\r\nint y;\n"), 0o644)
	s := NewSession(heldSource{newFake(3, 1), "let a = 1\nprint(a)\n"})
	defer s.Close()

	lines, err := s.Source(file)
	if err != nil || !slices.Equal(lines, []string{"int x;", "int y;"}) {
		t.Fatalf("Source = %q, %v", lines, err)
	}
	os.WriteFile(file, []byte("changed\n"), 0o644)
	if again, _ := s.Source(file); !slices.Equal(again, lines) {
		t.Errorf("second read = %q, want the cached %q", again, lines)
	}
	if held, err := s.Source("held.kite"); err != nil || !slices.Equal(held, []string{"let a = 1", "print(a)"}) {
		t.Errorf("held source = %q, %v", held, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Source(fifo); err == nil {
		t.Error("a FIFO was read as a source")
	}
	if _, err := s.Source(filepath.Join(dir, "missing.c")); err == nil {
		t.Error("a missing file has lines")
	}
}

type refusingResume struct{ *fakeTarget }

func (refusingResume) Resume(ResumeMode) error { return errors.New("stub said E01") }

// A resume the target refuses leaves the program stopped where it was, and every
// subscriber, which saw "continued", sees it stopped again with the reason.
func TestRefusedResumeStopsAgain(t *testing.T) {
	s := NewSession(refusingResume{newFake(4, 1<<40)})
	defer s.Close()
	sub := s.Subscribe()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, 0)
	if err := s.Resume(StepOver); err == nil || !strings.Contains(err.Error(), "E01") {
		t.Fatalf("Resume = %v", err)
	}
	if s.State() != Stopped || s.LastStop() == nil || s.LastStop().Location != h.Stop.Location {
		t.Fatalf("after a refused resume: %v %+v", s.State(), s.LastStop())
	}
	var kinds []EventKind
	var last Event
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		kinds, last = append(kinds, e.Kind), e
	}
	if n := len(kinds); n < 2 || kinds[n-2] != EventContinued || kinds[n-1] != EventStopped {
		t.Fatalf("events = %v, want ... continued, stopped", kinds)
	}
	if !strings.Contains(last.Stop.Text, "could not resume: stub said E01") {
		t.Errorf("the stop after the refused resume says %q", last.Stop.Text)
	}
	if h2 := s.LastHalt(); h2.Seq <= h.Seq || h2.State != Stopped {
		t.Errorf("LastHalt = %+v", h2)
	}
}

// Closing the session ends its subscriptions only once what was queued is read: a mirror
// that reads late still sees the last output and the end.
func TestCloseDeliversWhatWasQueued(t *testing.T) {
	s := NewSession(newFake(3, 1))
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, 0); !h.State.Ended() {
		t.Fatalf("halt %+v", h)
	}
	s.Close()
	var kinds []EventKind
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		e, err := sub.Next(ctx)
		if err != nil {
			if err != io.EOF {
				t.Fatalf("Next: %v after %v", err, kinds)
			}
			break
		}
		kinds = append(kinds, e.Kind)
	}
	if !slices.Contains(kinds, EventExited) {
		t.Errorf("events after close = %v, want the exit among them", kinds)
	}
}

type losingTarget struct{ *fakeTarget }

// A target that reports itself lost ends the session as terminated, with the reason on
// the terminated event and the halt, and as console output for front ends that show only
// output.
func TestLostTargetSaysWhy(t *testing.T) {
	f := losingTarget{newFake(4, 1<<40)}
	s := NewSession(f)
	defer s.Close()
	sub := s.Subscribe()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	ReportLost(handler{s}, errors.New("stub gone"))
	h := s.LastHalt()
	if h.State != Terminated || h.Reason != "stub gone" {
		t.Fatalf("halt %+v", h)
	}
	var sawOutput, sawEnd bool
	for {
		e, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		sawOutput = sawOutput || e.Kind == EventOutput && e.Text == "stub gone\n"
		sawEnd = sawEnd || e.Kind == EventTerminated && e.Text == "stub gone"
	}
	if !sawOutput || !sawEnd {
		t.Errorf("console line %v, terminated with the reason %v", sawOutput, sawEnd)
	}
}

// SourceLine is one line of a file, none outside it; ResolvePC needs addressable code.
func TestSourceLineAndResolvePC(t *testing.T) {
	s := NewSession(heldSource{newFake(3, 1), "a\nb\n"})
	t.Cleanup(func() { _ = s.Close() })
	for line, want := range map[int]string{0: "", 1: "a", 2: "b", 4: ""} {
		if got, ok := s.SourceLine("held.kite", line); got != want || ok != (want != "") {
			t.Errorf("SourceLine(%d) = %q %v, want %q", line, got, ok, want)
		}
	}
	if _, err := s.ResolvePC(1); !errors.Is(err, ErrUnsupported) {
		t.Errorf("ResolvePC without addresses: %v", err)
	}
	p := NewSession(pcFake{newFake(3, 1)})
	t.Cleanup(func() { _ = p.Close() })
	if loc, err := p.ResolvePC(2); err != nil || loc.Line != 2 {
		t.Errorf("ResolvePC(2) = %+v %v", loc, err)
	}
}

// A file that is not where the program says is found by a rewrite of its directory or by
// its name in a directory of the search path, and SourceFile says where.
func TestSourcePath(t *testing.T) {
	dir := t.TempDir()
	moved := filepath.Join(dir, "moved")
	if err := os.MkdirAll(moved, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(moved, "a.c"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSession(newFake(2, 1))
	gone := filepath.Join(dir, "build", "a.c")
	if _, err := s.Source(gone); err == nil || s.SourceFile(gone) != "" {
		t.Fatal("a missing file was read")
	}
	for _, p := range []SourcePath{{Dirs: []string{"/nonexistent", moved}}, {Rules: [][2]string{{filepath.Join(dir, "build"), moved}}}} {
		s.SetSourcePath(p)
		lines, err := s.Source(gone)
		if err != nil || len(lines) != 2 || lines[1] != "two" || s.SourceFile(gone) != filepath.Join(moved, "a.c") {
			t.Errorf("%+v: %q, %v, found at %q", p, lines, err, s.SourceFile(gone))
		}
	}
	s.SetSourcePath(SourcePath{Rules: [][2]string{{filepath.Join(dir, "bu"), moved}}}) // not a directory of the path
	if _, err := s.Source(gone); err == nil {
		t.Error("a rule rewrote a path in the middle of a directory's name")
	}
}

package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// pcFake is the fake program with addressable instructions: pc N is line N.
type pcFake struct{ *fakeTarget }

func (f pcFake) ResolvePC(pc uint64) (Location, error) { return f.loc(int(pc)), nil }

// TestInstructionBreakpointByAddress: setting the same address twice gives one breakpoint
// (the same id), it is found by its address and it traps there; once removed it is gone.
func TestInstructionBreakpointByAddress(t *testing.T) {
	s := NewSession(pcFake{newFake(5, 1)})
	t.Cleanup(func() { _ = s.Close() })
	if _, ok := s.InstructionBreakpointAt(3); ok {
		t.Fatal("a breakpoint found before any was set")
	}
	a, err := s.EnsureInstructionBreakpoint(3)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.EnsureInstructionBreakpoint(3)
	if err != nil || b.ID != a.ID || len(s.Breakpoints()) != 1 {
		t.Fatalf("second set at the same address: %+v %v, %d breakpoints; want id %d and one breakpoint", b, err, len(s.Breakpoints()), a.ID)
	}
	if _, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: "/prog.fake", Line: 3}); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.InstructionBreakpointAt(3); !ok || got.ID != a.ID {
		t.Fatalf("InstructionBreakpointAt(3) = %+v %v; want id %d (not the line breakpoint)", got, ok, a.ID)
	}
	if at, pc := s.BreakpointsAt(3); len(at) != 2 || pc != 3 { // the line's and the address's
		t.Fatalf("BreakpointsAt(3) = %+v at %d; want both breakpoints", at, pc)
	}
	if at, _ := s.BreakpointsAt(4); len(at) != 0 {
		t.Fatalf("BreakpointsAt(4) = %+v", at)
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	if h := wait(t, s, seq); h.Stop == nil || h.Stop.Reason != ReasonBreakpoint || h.Stop.Location.Line != 3 {
		t.Fatalf("first stop %+v; want a breakpoint on line 3", h)
	}
	if err := s.RemoveBreakpoint(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.InstructionBreakpointAt(3); ok {
		t.Error("a removed breakpoint is still found")
	}
}

func TestSourceFileIs(t *testing.T) {
	for _, c := range []struct {
		full, given string
		want        bool
	}{
		{"/src/a/loop.c", "loop.c", true}, {"/src/a/loop.c", "a/loop.c", true}, {"/src/a/loop.c", "./loop.c", true},
		{"/src/a/loop.c", "/src/a/loop.c", true}, {"/src/a/myloop.c", "loop.c", false}, {"/src/a/loop.c", "", false},
		{"/src/a/loop.c", "b/loop.c", false},
	} {
		if got := SourceFileIs(c.full, c.given); got != c.want {
			t.Errorf("SourceFileIs(%q, %q) = %v, want %v", c.full, c.given, got, c.want)
		}
	}
	dir := t.TempDir() // a file named through a linked folder is the same file
	real, link := filepath.Join(dir, "real"), filepath.Join(dir, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(real, "p.kite"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if !SourceFileIs(filepath.Join(real, "p.kite"), filepath.Join(link, "p.kite")) || SourceFileIs(filepath.Join(real, "p.kite"), filepath.Join(link, "q.kite")) {
		t.Error("a path through a symbolic link is not matched with the file's own")
	}
}

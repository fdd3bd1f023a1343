package engine

import (
	"sync"
	"testing"
)

// Many goroutines ensuring one address get one breakpoint; ClearBreakpointsAt removes every
// breakpoint bound there, of any kind, and says so.
func TestEnsureFromManyAndClearAt(t *testing.T) {
	s := NewSession(pcFake{newFake(5, 1)})
	t.Cleanup(func() { _ = s.Close() })
	ids := make([]int, 16)
	var wg sync.WaitGroup
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bp, err := s.EnsureInstructionBreakpoint(2)
			if err != nil {
				t.Error(err)
			}
			ids[i] = bp.ID
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if id != ids[0] {
			t.Fatalf("ids %v: want one breakpoint", ids)
		}
	}
	if _, err := s.SetBreakpoint(BreakpointSpec{Kind: LineBreakpoint, File: "/prog.fake", Line: 2}); err != nil {
		t.Fatal(err)
	}
	gone, pc, err := s.ClearBreakpointsAt(2)
	if err != nil || len(gone) != 2 || pc != 2 || len(s.Breakpoints()) != 0 {
		t.Fatalf("ClearBreakpointsAt(2) = %+v at %d, %v; %d left", gone, pc, err, len(s.Breakpoints()))
	}
	if gone, _, err := s.ClearBreakpointsAt(2); err != nil || len(gone) != 0 {
		t.Fatalf("again: %+v %v", gone, err)
	}
}

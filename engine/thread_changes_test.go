package engine

import (
	"context"
	"slices"
	"testing"
)

type threadedFake struct {
	*fakeTarget
	ids []uint64
}

func (f *threadedFake) Threads(context.Context) ([]Thread, error) {
	var out []Thread
	for _, id := range f.ids {
		out = append(out, Thread{ID: id, State: "stopped", Kind: "thread"})
	}
	return out, nil
}

func ids(ts []Thread) []uint64 {
	var out []uint64
	for _, t := range ts {
		out = append(out, t.ID)
	}
	slices.Sort(out)
	return out
}

// ThreadChanges reports every thread first, then the ones started and ended between
// stops; asked while the program runs it changes nothing.
func TestThreadChanges(t *testing.T) {
	f := &threadedFake{fakeTarget: newFake(6, 1<<40), ids: []uint64{10}}
	s := NewSession(f)
	defer s.Close()
	var tc ThreadChanges
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	st, en, err := tc.Update(context.Background(), s)
	if err != nil || !slices.Equal(ids(st), []uint64{10}) || len(en) != 0 {
		t.Fatalf("first update: %v %v %v", st, en, err)
	}
	f.ids = []uint64{10, 11, 12}
	if st, en, _ = tc.Update(context.Background(), s); !slices.Equal(ids(st), []uint64{11, 12}) || len(en) != 0 {
		t.Fatalf("two started: %v %v", st, en)
	}
	f.ids = []uint64{10, 12}
	if st, en, _ = tc.Update(context.Background(), s); len(st) != 0 || !slices.Equal(ids(en), []uint64{11}) {
		t.Fatalf("one ended: %v %v", st, en)
	}
	seq := s.Seq()
	if err := s.Resume(Continue); err != nil {
		t.Fatal(err)
	}
	if _, _, err := tc.Update(context.Background(), s); err == nil && s.State() == Running {
		t.Fatal("an update while running succeeded")
	}
	_ = s.Pause()
	wait(t, s, seq)
	if st, en, _ = tc.Update(context.Background(), s); len(st) != 0 || len(en) != 0 {
		t.Fatalf("after running: %v %v (nothing changed)", st, en)
	}
}

type modulesFake struct {
	*fakeTarget
	paths []string
}

func (f *modulesFake) Modules(context.Context) ([]Module, error) {
	var out []Module
	for _, p := range f.paths {
		out = append(out, Module{Name: p, Path: p})
	}
	return out, nil
}

// ModuleChanges reports every module first, then loads and unloads in list order, and
// keeps the last list for when the program runs.
func TestModuleChanges(t *testing.T) {
	f := &modulesFake{fakeTarget: newFake(6, 1<<40), paths: []string{"/prog", "/libc"}}
	s := NewSession(f)
	defer s.Close()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	var mc ModuleChanges
	names := func(ms []Module) (out []string) {
		for _, m := range ms {
			out = append(out, m.Path)
		}
		return out
	}
	if l, u, err := mc.Update(context.Background(), s); err != nil || !slices.Equal(names(l), []string{"/prog", "/libc"}) || len(u) != 0 {
		t.Fatalf("first: %v %v %v", l, u, err)
	}
	f.paths = []string{"/prog", "/libm", "/libdl"}
	if l, u, _ := mc.Update(context.Background(), s); !slices.Equal(names(l), []string{"/libm", "/libdl"}) || !slices.Equal(names(u), []string{"/libc"}) {
		t.Fatalf("loads and unloads: %v %v", l, u)
	}
	if !slices.Equal(names(mc.Last()), []string{"/prog", "/libm", "/libdl"}) {
		t.Errorf("Last = %v", mc.Last())
	}
}

// Threads are numbered as gdb numbers them: in the order the session first saw them, the
// numbers kept when others end; a new session numbers afresh.
func TestThreadNumbers(t *testing.T) {
	f := &threadedFake{fakeTarget: newFake(6, 1<<40), ids: []uint64{500, 20}}
	s := NewSession(f)
	defer s.Close()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	wait(t, s, 0)
	nums := func() (out []int) {
		ts, err := s.Threads(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, th := range ts {
			out = append(out, th.Num)
		}
		return out
	}
	if got := nums(); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("first listing numbered %v", got)
	}
	f.ids = []uint64{7, 20}
	if got := nums(); !slices.Equal(got, []int{3, 2}) {
		t.Fatalf("after 500 ended and 7 started: %v", got)
	}
	if n := s.ThreadNum(500); n != 1 {
		t.Errorf("ThreadNum(500) = %d after it ended", n)
	}
	s2 := NewSession(&threadedFake{fakeTarget: newFake(6, 1<<40)})
	defer s2.Close()
	if n := s2.ThreadNum(7); n != 1 {
		t.Errorf("a new session numbered its first thread %d", n)
	}
}

package engine

import (
	"context"
	"fmt"
)

// ThreadSelector is implemented by targets whose threads can be selected, as gdb's
// `thread N`: the stack, variables, registers and steps then apply to the selected thread,
// while the other threads stay stopped (all-stop). A stop selects the thread that stopped.
type ThreadSelector interface {
	SelectThread(id uint64) error
	SelectedThread() uint64
}

// Threads lists the threads of a stopped program, or the one thread of a target that has
// none to list (its id is then 1, as gdb numbers a single-threaded program).
func (s *Session) Threads(ctx context.Context) ([]Thread, error) {
	if err := s.checkStopped("list threads"); err != nil {
		return nil, err
	}
	ts := []Thread{{ID: 1, Name: "main", State: "stopped", Kind: "thread"}}
	if tl, ok := s.t.(ThreadLister); ok {
		var err error
		if ts, err = tl.Threads(ctx); err != nil {
			return nil, err
		}
	}
	for i := range ts {
		ts[i].Num = s.ThreadNum(ts[i].ID)
	}
	return ts, nil
}

// ThreadNum is gdb's number for thread id: threads are numbered 1, 2, 3... in the order the
// session first saw them, because a Linux thread id is not something a person wants to type.
func (s *Session) ThreadNum(id uint64) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.threadNums == nil {
		s.threadNums = map[uint64]int{}
	}
	n, ok := s.threadNums[id]
	if !ok {
		n = len(s.threadNums) + 1
		s.threadNums[id] = n
	}
	return n
}

// ThreadsNumbered is how many threads the session has numbered (ThreadNum) since it began:
// gdb's highest thread number, which once above 1 makes gdb name the thread of each stop.
func (s *Session) ThreadsNumbered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.threadNums)
}

// SelectedThread is the thread the stack, variables and steps apply to: the one that
// stopped, or the one selected since (1 on targets without threads).
func (s *Session) SelectedThread() uint64 {
	if ts, ok := s.t.(ThreadSelector); ok {
		if id := ts.SelectedThread(); id != 0 {
			return id
		}
	}
	return 1
}

// SelectThread makes thread id the one the stack, variables and steps apply to; the
// other threads stay stopped.
func (s *Session) SelectThread(id uint64) error {
	if err := s.checkStopped("select a thread"); err != nil {
		return err
	}
	if ts, ok := s.t.(ThreadSelector); ok {
		return ts.SelectThread(id)
	}
	if id == 1 {
		return nil
	}
	return fmt.Errorf("no thread %d: this program has one thread", id)
}

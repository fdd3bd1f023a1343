package engine

import (
	"context"
	"fmt"
	"strconv"
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
// A process followed after a fork (ForkFollower) numbers its threads from 1 again.
func (s *Session) ThreadNum(id uint64) int {
	inf := s.Inferior()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.threadNums == nil || s.numsOf != inf {
		s.threadNums, s.numsOf = map[uint64]int{}, inf
		s.numbered = max(s.numbered, inf-1) // each process before had its first thread at least
	}
	n, ok := s.threadNums[id]
	if !ok {
		n = len(s.threadNums) + 1
		s.threadNums[id] = n
		s.numbered++
	}
	return n
}

// ThreadLabel is gdb's id of thread id as it shows it: its number ("2"), qualified by its
// inferior's ("2.1") once the session has followed a fork's child.
func (s *Session) ThreadLabel(id uint64) string {
	n := s.ThreadNum(id)
	if inf := s.Inferior(); inf > 1 {
		return fmt.Sprintf("%d.%d", inf, n)
	}
	return strconv.Itoa(n)
}

// ThreadsNumbered is how many threads the session has numbered (ThreadNum) since it began:
// gdb's highest thread number, which once above 1 makes gdb name the thread of each stop.
func (s *Session) ThreadsNumbered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.numbered
}

// ForkFollower is implemented by targets that can follow the child of a fork instead of
// the parent (gdb's follow-fork-mode child; the parent is let go, as detach-on-fork does).
type ForkFollower interface {
	FollowForkChild(on bool)
	// Inferior is gdb's number of the process debugged: 1, then one more at each fork
	// whose child was followed.
	Inferior() int
	// InferiorFile is the program file an earlier inferior n ran when it was left, and
	// its process id while it is still held (a vfork's parent, until its child execs or
	// exits), else 0.
	InferiorFile(n int) (file string, heldPID int)
}

// FollowForkChild makes the program's forks followed into the child (on) or the parent;
// false when the target cannot follow a child.
func (s *Session) FollowForkChild(on bool) bool {
	f, ok := s.t.(ForkFollower)
	if ok {
		f.FollowForkChild(on)
	}
	return ok
}

// InferiorFile is the program file an earlier inferior (ForkFollower) ran when it was left
// ("" when there was none), and its process id while it is held (a vfork's parent).
func (s *Session) InferiorFile(n int) (file string, heldPID int) {
	if f, ok := s.t.(ForkFollower); ok {
		return f.InferiorFile(n)
	}
	return "", 0
}

// Inferior is gdb's number of the process debugged (ForkFollower), 1 on other targets.
func (s *Session) Inferior() int {
	if f, ok := s.t.(ForkFollower); ok {
		return f.Inferior()
	}
	return 1
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

package engine

import "context"

// ThreadChanges follows a program's threads from stop to stop, for front ends whose
// protocol tells a client when a thread starts or ends (DAP's thread event). Threads are
// listed at stops (all-stop: the program cannot change them meanwhile), so a thread that
// starts and ends between two stops is never seen. The zero value is ready to use.
type ThreadChanges struct {
	seen map[uint64]Thread
}

// Update lists the threads of the stopped program and returns those started and ended
// since the last Update (the first one reports every thread as started). A program that
// is not stopped, or a target without threads, changes nothing.
func (tc *ThreadChanges) Update(ctx context.Context, s *Session) (started, ended []Thread, err error) {
	if _, ok := s.Target().(ThreadLister); !ok {
		return nil, nil, nil
	}
	ths, err := s.Threads(ctx)
	if err != nil {
		return nil, nil, err // keep what was seen: a resumed program ended nothing
	}
	now := make(map[uint64]Thread, len(ths))
	for _, th := range ths {
		now[th.ID] = th
		if _, ok := tc.seen[th.ID]; !ok {
			started = append(started, th)
		}
	}
	for id, th := range tc.seen {
		if _, ok := now[id]; !ok {
			ended = append(ended, th)
		}
	}
	tc.seen = now
	return started, ended, nil
}

package wire

import "sync"

// Queue is one subscriber's bounded queue of messages. Push never blocks: what does not fit
// is counted as dropped, for the subscriber to be told (a lagged event) or cut off.
type Queue[T any] struct {
	mu      sync.Mutex
	items   []T
	max     int
	dropped uint64
	closed  bool
	wake    chan struct{}
}

// NewQueue makes a queue holding at most max messages (max <= 0: unbounded).
func NewQueue[T any](max int) *Queue[T] {
	return &Queue[T]{max: max, wake: make(chan struct{}, 1)}
}

// Push queues v, or counts it dropped when the queue is full or closed. It reports whether
// v was queued.
func (q *Queue[T]) Push(v T) bool {
	q.mu.Lock()
	ok := !q.closed && (q.max <= 0 || len(q.items) < q.max)
	if ok {
		q.items = append(q.items, v)
	} else if !q.closed {
		q.dropped++
	}
	q.mu.Unlock()
	q.signal()
	return ok
}

func (q *Queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Wait is signalled when messages may be waiting or the queue was closed.
func (q *Queue[T]) Wait() <-chan struct{} { return q.wake }

// Take returns what is queued and the number of messages dropped since the last Take, and
// empties the queue. closed reports that the queue was closed.
func (q *Queue[T]) Take() (items []T, dropped uint64, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	items, dropped, closed = q.items, q.dropped, q.closed
	q.items, q.dropped = nil, 0
	return items, dropped, closed
}

// Len is the number of messages waiting.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Close stops accepting messages; those queued can still be taken.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// Fanout delivers each message to every subscriber's queue.
type Fanout[T any] struct {
	mu   sync.Mutex
	subs map[*Queue[T]]struct{}
}

// Subscribe adds a queue of at most bound messages, or returns nil when max subscribers
// (max > 0) are there already.
func (f *Fanout[T]) Subscribe(bound, max int) *Queue[T] {
	f.mu.Lock()
	defer f.mu.Unlock()
	if max > 0 && len(f.subs) >= max {
		return nil
	}
	if f.subs == nil {
		f.subs = map[*Queue[T]]struct{}{}
	}
	q := NewQueue[T](bound)
	f.subs[q] = struct{}{}
	return q
}

// Unsubscribe removes and closes q.
func (f *Fanout[T]) Unsubscribe(q *Queue[T]) {
	f.mu.Lock()
	delete(f.subs, q)
	f.mu.Unlock()
	q.Close()
}

// Len is the number of subscribers.
func (f *Fanout[T]) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}

// Publish pushes v to every subscriber; it never blocks.
func (f *Fanout[T]) Publish(v T) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for q := range f.subs {
		q.Push(v)
	}
}

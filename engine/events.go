package engine

import "sync"

// EventKind names an engine event.
type EventKind string

const (
	EventStarted           EventKind = "started"
	EventStopped           EventKind = "stopped"
	EventContinued         EventKind = "continued"
	EventOutput            EventKind = "output"
	EventExited            EventKind = "exited"
	EventTerminated        EventKind = "terminated"
	EventBreakpointChanged EventKind = "breakpoint"
)

// Event is something that happened in a session, in the order it happened.
type Event struct {
	Kind       EventKind
	Stop       *Stop       // EventStopped
	Mode       ResumeMode  // EventContinued
	Category   string      // EventOutput: "stdout", "stderr" or "console" (logpoints)
	Text       string      // EventOutput
	ExitCode   int         // EventExited
	Breakpoint *Breakpoint // EventBreakpointChanged (a copy)
}

// Subscription delivers a session's events to one subscriber, in order. Its queue is
// unbounded, so a slow subscriber never blocks the debuggee or other subscribers; a front
// end that must bound memory drops what it cannot send and says so in its own protocol.
type Subscription struct {
	ch     chan Event
	mu     sync.Mutex
	queue  []Event
	wake   chan struct{}
	closed bool
	done   chan struct{}
	once   sync.Once
}

// Events is the channel of events; it is closed when the subscription ends.
func (s *Subscription) Events() <-chan Event { return s.ch }

func newSubscription() *Subscription {
	s := &Subscription{ch: make(chan Event), wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.pump()
	return s
}

func (s *Subscription) push(e Event) {
	s.mu.Lock()
	if !s.closed {
		s.queue = append(s.queue, e)
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued events to the channel; it ends when the subscription is closed and
// its queue drained (after an end event) or when it is cancelled.
func (s *Subscription) pump() {
	defer close(s.ch)
	for {
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		closed := s.closed
		s.mu.Unlock()
		for _, e := range q {
			select {
			case s.ch <- e:
			case <-s.done:
				return
			}
		}
		if closed && len(q) == 0 {
			return
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}

// finish lets the queued events drain, then closes the channel.
func (s *Subscription) finish() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Close ends the subscription now; queued events are dropped.
func (s *Subscription) Close() {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
	}
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
}

package engine

import (
	"context"
	"io"
	"sync"
)

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
	EventBreakpointRemoved EventKind = "breakpointRemoved"
	EventReset             EventKind = "reset" // the target was reset; a stop event follows
)

// Event is something that happened in a session, in the order it happened.
type Event struct {
	// Seq numbers the session's events from 1, without gaps: a front end compares it with
	// Session.Seq and WaitStop to know what it has seen.
	Seq        uint64
	Kind       EventKind
	Stop       *Stop       // EventStopped
	Mode       ResumeMode  // EventContinued
	Category   string      // EventOutput: "stdout", "stderr" or "console" (logpoints)
	Text       string      // EventOutput; EventTerminated: why a lost target ended ("" otherwise)
	ExitCode   int         // EventExited
	Signal     string      // EventExited: the signal that ended the program, if one did ("SIGSEGV")
	Breakpoint *Breakpoint // EventBreakpointChanged, EventBreakpointRemoved (a copy)
	Created    bool        // EventBreakpointChanged: the breakpoint was just made

	// Thread is the thread an EventThread is about (thread_events.go).
	Thread *ThreadChange
	// Modules are the program's modules after an EventModules (modules.go).
	Modules []Module
}

// SubscribeOptions tune one subscription.
type SubscribeOptions struct {
	// MaxQueued bounds the events waiting to be read (0: unbounded). When the queue is
	// full, program output blocks the debuggee until the subscriber reads (backpressure, as
	// a terminal applies); other events are never held back, so a stop or an end is never
	// lost, and they are few.
	MaxQueued int
}

// Subscription delivers a session's events to one subscriber, in order. Events are queued
// at the moment they happen, under the session's lock, so a front end that drains the
// queue (TryNext) before it handles a command has seen every event up to the session's
// current state: no stop is reported late and no reply overtakes an event.
//
// Read it either with Next/TryNext/Ready or with the Events channel, not both.
type Subscription struct {
	mu     sync.Mutex
	queue  []Event
	head   int
	max    int
	ended  bool // no more events will come: the queue drains, then the subscription ends
	closed bool // dropped: nothing more is delivered
	ready  chan struct{}
	room   chan struct{} // signalled when a full queue gets room
	done   chan struct{}
	once   sync.Once
	chOnce sync.Once
	ch     chan Event
	held   int // Hold calls not yet released: Ready stays quiet
}

// Hold keeps Ready quiet until the matching Release: the caller is handling a command and
// drains what the command makes itself, so a front end's event pump, waiting on Ready, is
// not woken (on another thread) for events it would find taken. Holds nest; a nil
// subscription holds nothing.
func (s *Subscription) Hold() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.held++
	s.mu.Unlock()
}

// Release ends a Hold and signals Ready if events wait (or the subscription has ended), so
// that nothing queued meanwhile is left unannounced.
func (s *Subscription) Release() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.held--
	wake := s.held == 0 && (s.head < len(s.queue) || s.ended)
	s.mu.Unlock()
	if wake {
		signal(s.ready)
	}
}

func newSubscription(opts SubscribeOptions) *Subscription {
	return &Subscription{max: opts.MaxQueued, ready: make(chan struct{}, 1),
		room: make(chan struct{}, 1), done: make(chan struct{})}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// unsignal takes back a pending signal; with the subscription's lock held and its queue
// empty (a push signals after it queued, so no event is left unsignalled).
func unsignal(c chan struct{}) {
	select {
	case <-c:
	default:
	}
}

func (s *Subscription) push(e Event) {
	s.mu.Lock()
	if !s.closed && !s.ended {
		s.queue = append(s.queue, e)
	}
	held := s.held > 0
	s.mu.Unlock()
	if !held {
		signal(s.ready)
	}
}

// full reports whether the queue is at its bound.
func (s *Subscription) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.max > 0 && !s.closed && len(s.queue)-s.head >= s.max
}

// Ready is signalled when events may be waiting, and stays signalled while some remain
// after a TryNext: a reader may take a few and come back later. A TryNext that finds or
// leaves the queue empty takes the signal back.
func (s *Subscription) Ready() <-chan struct{} { return s.ready }

// TryNext returns the next queued event without waiting. ok is false when none is
// queued; ended is then true when none will ever come again.
func (s *Subscription) TryNext() (e Event, ok, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Event{}, false, true
	}
	if s.head == len(s.queue) {
		if !s.ended {
			unsignal(s.ready)
		}
		return Event{}, false, s.ended
	}
	e = s.queue[s.head]
	s.queue[s.head] = Event{}
	s.head++
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
		if s.ended {
			signal(s.ready) // a reader that stops here still learns of the end
		} else {
			// Drained: a goroutine that waits on Ready (a front end's event pump) is not
			// woken for events another one took (the request handler, after a step).
			unsignal(s.ready)
		}
	} else if s.held == 0 {
		signal(s.ready) // more wait: a reader that stops draining early is woken again
	}
	if s.max > 0 {
		signal(s.room)
	}
	return e, true, false
}

// Next waits for the next event. It returns io.EOF once the subscription has ended and
// its queue is drained, or ctx's error.
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		e, ok, ended := s.TryNext()
		if ok {
			return e, nil
		}
		if ended {
			return Event{}, io.EOF
		}
		select {
		case <-s.ready:
		case <-s.done:
		case <-ctx.Done():
			return Event{}, ctx.Err()
		}
	}
}

// Events returns a channel of the events, closed when the subscription ends. The first
// call starts a goroutine that moves events to it; it ends with the subscription.
func (s *Subscription) Events() <-chan Event {
	s.chOnce.Do(func() {
		s.ch = make(chan Event)
		go s.pump()
	})
	return s.ch
}

func (s *Subscription) pump() {
	defer close(s.ch)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		e, err := s.Next(ctx)
		if err != nil {
			return
		}
		select {
		case s.ch <- e:
		case <-s.done:
			return
		}
	}
}

// finish lets the queued events drain, then ends the subscription.
func (s *Subscription) finish() {
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	signal(s.ready)
}

// Close ends the subscription now; queued events are dropped and nothing more is
// delivered. A debuggee blocked on its full queue goes on.
func (s *Subscription) Close() {
	s.mu.Lock()
	s.closed, s.ended = true, true
	s.queue, s.head = nil, 0
	s.mu.Unlock()
	s.once.Do(func() { close(s.done) })
	signal(s.ready)
}

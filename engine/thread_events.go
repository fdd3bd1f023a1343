package engine

// Live thread events: a target that learns of a thread's start or exit while the program
// runs (a native program under gdbserver) reports it through the session's handler at
// once, and every subscriber gets an EventThread in sequence with the other events. Targets
// that cannot (RTOS tasks on firmware) are followed from stop to stop by ThreadChanges,
// which also takes the live events in, so that no thread is told twice.

// EventThread says that a thread started or exited while the program ran (Event.Thread).
const EventThread EventKind = "thread"

// Thread change reasons (ThreadChange.Reason), as DAP's thread event names them.
const (
	ThreadStarted = "started"
	ThreadExited  = "exited"
)

// ThreadChange is what an EventThread carries.
type ThreadChange struct {
	Reason string // ThreadStarted or ThreadExited
	Thread Thread // its ID always; its Name when the target knows it
}

// ThreadReporter is implemented by the Handler a session gives its target: a target that
// sees threads start and exit while the program runs reports them with it (found by type
// assertion on the Handler), from any goroutine, without waiting for a stop. The program
// does not stop for them: the target resumes it as it was running.
type ThreadReporter interface {
	ThreadStarted(t Thread)
	ThreadExited(t Thread)
}

var _ ThreadReporter = handler{}

func (h handler) ThreadStarted(t Thread) { h.s.threadEvent(ThreadStarted, t) }
func (h handler) ThreadExited(t Thread)  { h.s.threadEvent(ThreadExited, t) }

func (s *Session) threadEvent(reason string, t Thread) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state.Ended() {
		return
	}
	s.emit(Event{Kind: EventThread, Thread: &ThreadChange{Reason: reason, Thread: t}})
}

// ReportThread reports a live thread change to h when h takes them (ThreadReporter), and
// says whether it did.
func ReportThread(h Handler, reason string, t Thread) bool {
	r, ok := h.(ThreadReporter)
	if !ok {
		return false
	}
	if reason == ThreadExited {
		r.ThreadExited(t)
	} else {
		r.ThreadStarted(t)
	}
	return true
}

// Note takes a live thread event into what tc has seen, and says whether it is news to
// tell the subscriber: a thread already seen starting (at a stop, or by an earlier event)
// is not told again, nor the exit of one never seen. A later Update then reports only what
// the live events did not.
func (tc *ThreadChanges) Note(e Event) bool {
	if e.Kind != EventThread || e.Thread == nil {
		return false
	}
	c := &tc.set
	id := e.Thread.Thread.ID
	if e.Thread.Reason == ThreadExited {
		if !c.keys[id] {
			return false
		}
		delete(c.keys, id)
		for i, t := range c.list {
			if t.ID == id {
				c.list = append(c.list[:i:i], c.list[i+1:]...)
				break
			}
		}
		return true
	}
	if c.keys[id] {
		return false
	}
	if c.keys == nil {
		c.keys = map[uint64]bool{}
	}
	c.keys[id] = true
	c.list = append(c.list[:len(c.list):len(c.list)], e.Thread.Thread)
	return true
}

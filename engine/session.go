package engine

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Session is one debug session: a target, its breakpoints and its subscribers. Its methods
// are safe for concurrent use by several front ends.
type Session struct {
	t       Target
	sources sourceCache

	mu      sync.Mutex
	state   State
	subs    []*Subscription // receiving events
	all     []*Subscription // every subscription, closed by Close
	bps     map[int]*bpState
	byKey   map[locKey][]*bpState
	nextID  int
	catches []Catchpoint // catch syscall (catchpoints.go)
	execed  string       // the program the last exec ran (exec.go)
	// exceptionTraps are the sites of the exception catchpoints' traps, by event (exceptions.go).
	exceptionTraps map[string]Location
	trapAlso       []int       // the other breakpoints the last Trap's place stopped at too (as gdb counts them)
	watchHits      map[int]int // hits of the target's watchpoints, by id (DataBreakpoints)
	ensureMu       sync.Mutex  // one EnsureInstructionBreakpoint at a time: two never set one address twice
	exitCode       int
	lastStop       *Stop
	seq            uint64        // of the last event
	halt           Halt          // the last stop or end
	haltCh         chan struct{} // made by a WaitStop, closed at the next halt
	done           chan struct{}
	quit           chan struct{} // closed when Terminate or Close is called: output stops blocking
	quitOnce       sync.Once
	blocking       []*Subscription // subscriptions with a bound: output waits for their room

	watches   []Watch
	nextWatch int
	snap      watchSnap // the watches' values at the current stop

	noExceptionStops bool // exception stops are not wanted: the program goes on
	libraryStops     bool // every library event stops a continue (StopOnLibraryEvents)

	limits PrintLimits // the last SetPrintLimits: FormatValue shows array indexes by it

	threadNums map[uint64]int // gdb's thread numbers in the inferior numsOf, by thread id
	numsOf     int            // the inferior threadNums numbers (ForkFollower.Inferior)
	numbered   int            // the threads numbered since the session began (ThreadsNumbered)

	into stepInto // the step filter while a step into a call runs (stepin.go)
}

// Halt is where the debuggee came to rest: a stop, or its end.
type Halt struct {
	Seq      uint64 // the event's sequence number
	State    State  // Stopped, Exited or Terminated
	Stop     *Stop  // when Stopped
	ExitCode int    // when Exited
	Signal   string // when Exited because a signal ended the program ("SIGSEGV"; ExitCode is 128 + its number)
	Reason   string // when Terminated because the target was lost (LossReporter)
}

// NewSession makes a session for t, in state Initialized.
func NewSession(t Target) *Session {
	return &Session{t: t, bps: map[int]*bpState{}, byKey: map[locKey][]*bpState{},
		done: make(chan struct{}), quit: make(chan struct{})}
}

// Target returns the session's target, for front ends that use a capability interface.
func (s *Session) Target() Target { return s.t }

// Subscribe returns a new subscription that receives every event from now on, with an
// unbounded queue: a slow subscriber never blocks the debuggee.
func (s *Session) Subscribe() *Subscription { return s.SubscribeWith(SubscribeOptions{}) }

// SubscribeWith returns a new subscription with options, such as a bounded queue whose
// subscriber holds back the debuggee's output when it does not read.
func (s *Session) SubscribeWith(opts SubscribeOptions) *Subscription {
	sub := newSubscription(opts)
	s.mu.Lock()
	s.all = append(s.all, sub)
	if s.state.Ended() {
		sub.finish()
	} else {
		s.subs = append(s.subs, sub)
		if opts.MaxQueued > 0 {
			s.blocking = append(s.blocking, sub)
		}
	}
	s.mu.Unlock()
	return sub
}

// Seq is the sequence number of the last event (0 before the first). Take it before a
// command that resumes, then WaitStop(ctx, seq) waits for the stop or end that follows.
func (s *Session) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// WaitStop waits until the debuggee halts (stops, exits or is terminated) in an event
// numbered after after, and returns that halt; at once when it already has. It returns
// ctx's error when ctx ends first.
func (s *Session) WaitStop(ctx context.Context, after uint64) (Halt, error) {
	for {
		s.mu.Lock()
		h := s.halt
		if h.Seq > after {
			s.mu.Unlock()
			return h, nil
		}
		if s.haltCh == nil {
			s.haltCh = make(chan struct{})
		}
		ch := s.haltCh
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return Halt{}, ctx.Err()
		}
	}
}

// LastHalt is the last stop or end (Seq 0 when the debuggee has not halted yet).
func (s *Session) LastHalt() Halt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.halt
}

// ResumeAndWait resumes in mode and waits for the halt that follows.
func (s *Session) ResumeAndWait(ctx context.Context, mode ResumeMode) (Halt, error) {
	seq := s.Seq()
	if err := s.Resume(mode); err != nil {
		return Halt{}, err
	}
	return s.WaitStop(ctx, seq)
}

// halted records a halt event; s.mu held, after emit.
func (s *Session) halted(st State, stop *Stop, code int) {
	s.halt = Halt{Seq: s.seq, State: st, Stop: stop, ExitCode: code}
	s.into.target.Store(nil) // a step into a call ends at any halt
	if s.haltCh != nil {     // someone waits
		close(s.haltCh)
		s.haltCh = nil
	}
}

// Unsubscribe stops delivering events to sub and closes it.
func (s *Session) Unsubscribe(sub *Subscription) {
	s.mu.Lock()
	s.subs = without(s.subs, sub)
	s.blocking = without(s.blocking, sub)
	s.mu.Unlock()
	sub.Close()
}

func without(list []*Subscription, sub *Subscription) []*Subscription {
	for i, x := range list {
		if x == sub {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// emit numbers e and delivers it to every subscriber; s.mu must be held.
func (s *Session) emit(e Event) {
	s.seq++
	e.Seq = s.seq
	for _, sub := range s.subs {
		sub.push(e)
	}
}

// State is the current state.
func (s *Session) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// LastStop is the stop the session is in, or nil when it is not stopped.
func (s *Session) LastStop() *Stop {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != Stopped || s.lastStop == nil {
		return nil
	}
	st := *s.lastStop
	return &st
}

// Done is closed when the debuggee has exited or been terminated.
func (s *Session) Done() <-chan struct{} { return s.done }

// ExitCode is the debuggee's exit code once it has exited.
func (s *Session) ExitCode() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.exitCode
}

// ProcessID returns the operating system's id of the debugged process (also once it has
// ended), or 0 when the program is not a process or has not started (ProcessIdentifier).
func (s *Session) ProcessID() int {
	if p, ok := s.t.(ProcessIdentifier); ok {
		return p.ProcessID()
	}
	return 0
}

// Resume continues a stopped debuggee in the given mode.
func (s *Session) Resume(mode ResumeMode) error { return s.resume(mode, ^uint64(0)) }

// ResumeFrom resumes like Resume, but only from a stop whose event is numbered seen or
// earlier: a front end passes the last event it has told its client about, so that it never
// resumes from a stop the client has not seen (ErrNotStopped: its event is on the way).
func (s *Session) ResumeFrom(seen uint64, mode ResumeMode) error { return s.resume(mode, seen) }

func (s *Session) resume(mode ResumeMode, seen uint64) error {
	s.takeWatches() // a stop's watches are taken before it ends
	s.mu.Lock()
	if err := s.needStopped("resume"); err != nil {
		s.mu.Unlock()
		return err
	}
	if s.halt.Seq > seen {
		s.mu.Unlock()
		return fmt.Errorf("cannot resume: %w (its stop is not reported yet)", ErrNotStopped)
	}
	s.state = Running
	last := s.lastStop
	s.lastStop = nil
	s.emit(Event{Kind: EventContinued, Mode: mode})
	s.mu.Unlock()
	if err := s.t.Resume(mode); err != nil {
		// The target did not move: every subscriber, which saw "continued", is told it is
		// stopped where it was, with why it could not go on.
		s.mu.Lock()
		if s.state == Running && last != nil {
			stop := *last
			stop.Text = "could not resume: " + err.Error()
			s.state = Stopped
			s.lastStop = &stop
			s.emit(Event{Kind: EventStopped, Stop: &stop})
			s.halted(Stopped, &stop, 0)
		} else if s.state == Running {
			s.state = Stopped
		}
		s.mu.Unlock()
		return err
	}
	return nil
}

// SetExceptionStops says whether an uncaught exception (a Kite runtime error) stops the
// debuggee, which is the default, or lets it end with its error.
func (s *Session) SetExceptionStops(on bool) {
	s.mu.Lock()
	s.noExceptionStops = !on
	s.mu.Unlock()
}

// Continue is Resume(Continue).
func (s *Session) Continue() error { return s.Resume(Continue) }

// Step is Resume with a step mode.
func (s *Session) Step(mode ResumeMode) error { return s.Resume(mode) }

// Pause stops a running debuggee; it is a no-op when it is already stopped.
func (s *Session) Pause() error {
	switch st := s.State(); st {
	case Running:
		return s.t.Pause()
	case Stopped:
		return nil
	case Initialized:
		return ErrNotStarted
	default:
		return ErrEnded
	}
}

// Terminate ends the debuggee in any state; it is a no-op once it has ended.
func (s *Session) Terminate() error {
	s.quitOnce.Do(func() { close(s.quit) })
	switch s.State() {
	case Initialized:
		s.end(Terminated, 0)
		return nil
	case Exited, Terminated:
		return nil
	}
	return s.t.Terminate()
}

// Close terminates the debuggee if needed (an attached one is detached from instead, and
// goes on: AttachedTarget), releases the target and ends every subscription (events not
// yet read are dropped), so nothing of the session lingers.
func (s *Session) Close() error {
	if !s.letGo() { // an attached program goes on; one the session started is ended
		_ = s.Terminate()
	}
	err := s.t.Close()
	s.mu.Lock()
	all := s.all
	s.all = nil
	s.mu.Unlock()
	for _, sub := range all {
		// What happened before the close (the last output, the exit) is still delivered to
		// a subscriber that reads on; one that does not is closed after a grace period.
		sub.finish()
		time.AfterFunc(closeGrace, sub.Close)
	}
	return err
}

// closeGrace is how long a subscriber has to drain its events after the session closed.
const closeGrace = 10 * time.Second

// needStopped returns the error for an operation that needs a stopped debuggee; s.mu held.
func (s *Session) needStopped(what string) error {
	switch s.state {
	case Stopped:
		return nil
	case Initialized:
		return fmt.Errorf("cannot %s: %w", what, ErrNotStarted)
	case Running:
		return fmt.Errorf("cannot %s: %w", what, ErrRunning)
	}
	return fmt.Errorf("cannot %s: %w", what, ErrEnded)
}

func (s *Session) checkStopped(what string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.needStopped(what)
}

// Stack returns the call stack of a stopped debuggee, innermost frame first.
func (s *Session) Stack() ([]Frame, error) {
	if err := s.checkStopped("get the stack"); err != nil {
		return nil, err
	}
	return s.t.Stack()
}

// Scopes returns the variable scopes of frame.
func (s *Session) Scopes(frame int) ([]Scope, error) {
	if err := s.checkStopped("get scopes"); err != nil {
		return nil, err
	}
	return s.t.Scopes(frame)
}

// Variables returns the children of a scope or variable reference (also of a value a
// StaticInspector evaluated before the start).
func (s *Session) Variables(ref int) ([]Variable, error) {
	if err := s.checkInspectable("get variables"); err != nil {
		return nil, err
	}
	return s.t.Variables(ref)
}

// Evaluate evaluates expr in frame.
func (s *Session) Evaluate(frame int, expr string, mode EvalMode) (Variable, error) {
	if err := s.checkInspectable("evaluate"); err != nil {
		return Variable{}, err
	}
	return s.t.Evaluate(frame, expr, mode)
}

// end moves the session to a final state once and closes the subscriptions after their
// queued events.
func (s *Session) end(st State, code int) { s.endWith(st, code, "") }

// endWith ends the session in state st; why is the signal that ended an Exited program, or
// why a lost target ended a Terminated one.
func (s *Session) endWith(st State, code int, why string) {
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return
	}
	s.state = st
	s.exitCode = code
	s.lastStop = nil
	if st == Exited {
		s.emit(Event{Kind: EventExited, ExitCode: code, Signal: why})
	} else {
		s.emit(Event{Kind: EventTerminated, Text: why})
	}
	s.halted(st, nil, code)
	if st == Exited {
		s.halt.Signal = why
	} else {
		s.halt.Reason = why
	}
	subs := s.subs
	s.subs, s.blocking = nil, nil
	s.mu.Unlock()
	for _, sub := range subs {
		sub.finish()
	}
	close(s.done)
}

// waitRoom holds program output back while a bounded subscriber's queue is full, until it
// reads or the session is being terminated.
func (s *Session) waitRoom() {
	s.mu.Lock()
	blocking := s.blocking
	s.mu.Unlock()
	for _, sub := range blocking {
		for sub.full() {
			select {
			case <-sub.room:
			case <-sub.done:
			case <-s.quit:
				return
			}
		}
	}
}

// handler is the session's side of the target: it turns reports into state and events.
type handler struct{ s *Session }

func (h handler) Stopped(stop Stop) {
	s := h.s
	s.mu.Lock()
	if s.state.Ended() {
		s.mu.Unlock()
		return
	}
	if stop.Reason == ReasonException && s.noExceptionStops && stop.BreakpointID == 0 { // (a catch throw's stops are asked for)
		s.mu.Unlock()
		go func() { _ = s.t.Resume(Continue) }() // the target waits for it; not from its own goroutine
		return
	}
	if cond := s.watchCondition(stop); cond != "" {
		s.mu.Unlock()
		go h.decideWatchStop(stop, cond) // evaluated once the target waits for its resume
		return
	}
	if stop.Reason == ReasonExec {
		s.mu.Unlock()
		go h.followExec(stop) // the breakpoints placed in the new program once the target waits
		return
	}
	if stop.Reason == ReasonLibrary && !s.libraryCaught(&stop) {
		s.mu.Unlock()
		go func() { _ = s.t.Resume(Continue) }() // no catchpoint wants it: the continue goes on
		return
	}
	if match := s.exceptionMatch(stop); match != "" {
		s.mu.Unlock()
		go h.decideExceptionStop(stop, match) // catch throw REGEX: the type read once the target waits
		return
	}
	h.publishStop(stop)
}

// publishStop makes stop the session's: its state, its catchpoint or watchpoint counted,
// a temporary breakpoint deleted or a counted one counted down, then its event and halt
// (a front end that asks at the stop sees the table as gdb's). s.mu is held and released.
func (h handler) publishStop(stop Stop) {
	s := h.s
	s.state = Stopped
	s.lastStop = &stop
	if stop.Reason == ReasonSyscall {
		s.caughtBy(&stop)
	}
	if stop.Reason == ReasonFork {
		s.forkCaughtBy(&stop)
	}
	if stop.Reason == ReasonException && stop.Signal != "" && stop.BreakpointID == 0 {
		s.signalCaughtBy(&stop)
	}
	if stop.Reason == ReasonData && stop.BreakpointID != 0 { // a watchpoint's hit, counted as a breakpoint's
		if s.watchHits == nil {
			s.watchHits = map[int]int{}
		}
		s.watchHits[stop.BreakpointID]++
	}
	var temporary, counted []int // what the stop deletes or counts down
	if stop.Reason == ReasonBreakpoint {
		also := s.trapAlso
		s.trapAlso = nil
		for i := -1; i < len(also); i++ {
			id := stop.BreakpointID
			if i >= 0 {
				id = also[i]
			}
			if b := s.bps[id]; b != nil && b.bp.Spec.Temporary {
				temporary = append(temporary, id)
			} else if b != nil && b.bp.Spec.Counted {
				counted = append(counted, id)
			}
		}
	}
	if len(temporary)+len(counted) > 0 { // done before the stop is told, so that the first
		s.mu.Unlock() // question after it sees the table as the stop left it
		for _, id := range temporary {
			_ = s.RemoveBreakpoint(id)
		}
		for _, id := range counted {
			s.countStop(id)
		}
		s.mu.Lock()
	}
	s.emit(Event{Kind: EventStopped, Stop: &stop})
	s.halted(Stopped, &stop, 0)
	s.mu.Unlock()
}

func (h handler) Output(category, text string) {
	h.s.waitRoom()
	h.s.mu.Lock()
	h.s.emit(Event{Kind: EventOutput, Category: category, Text: text})
	h.s.mu.Unlock()
}

func (h handler) Exited(code int) { h.s.end(Exited, code) }

// ExitedBySignal implements SignalExitHandler.
func (h handler) ExitedBySignal(code int, signal string) {
	h.s.endWith(Exited, code, signal)
}
func (h handler) Terminated() { h.s.end(Terminated, 0) }

// Trap decides whether reaching loc stops: for each breakpoint there, in id order, its
// condition (a failing condition stops and says why), its hit condition, then its log
// message (a logpoint prints and goes on).
func (h handler) Trap(loc Location) *Stop {
	s := h.s
	s.mu.Lock()
	list := s.byKey[locationKey(loc)]
	if len(list) == 0 {
		s.mu.Unlock()
		return s.exceptionCaughtBy(loc)
	}
	s.trapAlso = nil
	s.mu.Unlock()  // lists are copy-on-write and bpState is immutable but for Hits: no copy
	var stop *Stop // the first breakpoint that stops; those after it are counted as hit too
	var also []int
	for _, b := range list {
		if b.bp.Spec.Disabled {
			continue
		}
		here := h.reached(b, loc)
		switch {
		case here == nil:
		case stop == nil:
			stop = here
		default:
			also = append(also, b.bp.ID)
		}
	}
	if also != nil { // for the stop's report: a temporary one among them deleted, a counted one counted down
		s.mu.Lock()
		s.trapAlso = also
		s.mu.Unlock()
	}
	return stop
}

// reached counts a reach of the breakpoint b at loc: the stop it makes, nil when its
// condition is false, its hit condition not met yet, or it logs instead.
func (h handler) reached(b *bpState, loc Location) *Stop {
	s := h.s
	if b.condErr != "" {
		s.countHit(b)
		return &Stop{Reason: ReasonBreakpoint, Location: loc, BreakpointID: b.bp.ID,
			Text: fmt.Sprintf("breakpoint %d: %s", b.bp.ID, b.condErr)}
	}
	if b.cond != nil {
		truth, err := b.cond.Eval()
		if err != nil {
			s.countHit(b)
			return &Stop{Reason: ReasonBreakpoint, Location: loc, BreakpointID: b.bp.ID,
				Text: fmt.Sprintf("breakpoint %d: condition %q failed: %v", b.bp.ID, b.bp.Spec.Condition, err)}
		}
		if !truth {
			return nil
		}
	}
	if !b.hit.met(s.countHit(b)) {
		return nil
	}
	if b.log != nil {
		msg := s.interpolate(b.log)
		if b.bp.Spec.LogFormat == "" { // a dprintf's format says where its lines end
			msg += "\n"
		}
		h.Output("console", msg)
		return nil
	}
	return &Stop{Reason: ReasonBreakpoint, Location: loc, BreakpointID: b.bp.ID}
}

func (s *Session) countHit(b *bpState) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	b.bp.Hits++
	return b.bp.Hits
}

// interpolate renders a log message in the innermost frame; an expression that fails
// shows its error in place.
func (s *Session) interpolate(parts []logPart) string {
	var out strings.Builder
	for _, p := range parts {
		if !p.expr {
			out.WriteString(p.text)
			continue
		}
		var v string
		var err error
		if p.cond != nil {
			v, err = p.cond.String()
		} else {
			v = p.text // a quoted dprintf argument
		}
		if err == nil && p.verb != 0 {
			v, err = convert(p.spec, p.verb, v)
		}
		if err != nil {
			out.WriteString("<error: " + err.Error() + ">")
			continue
		}
		out.WriteString(v)
	}
	return out.String()
}

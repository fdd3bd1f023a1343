package gdbremote

// Client: live thread events. A stub that reports threads as they start and exit stops
// the program for each (all-stop); Wait tells the event to its callback and resumes the
// program at once with the command it was running under (a continue, or the thread's
// step), so that no caller ever sees these stops and a step in progress goes on.
//
// Two ways, by what the stub can do:
//   - QThreadEvents:1 (create: stops and "w" replies), where gdbserver announces
//     QThreadOptions (gdbserver 15 and later). gdbserver 13 and 14 accept QThreadEvents
//     but crash on the first thread exit in all-stop mode (server.cc resume() stores the
//     status into the thread it has just deleted), so it is not used with them.
//   - Otherwise glibc's own thread events, the interface libthread_db gives debuggers:
//     with the events asked for (nptl_events.go), every thread's creation calls
//     __nptl_create_event in the parent and every thread's end __nptl_death_event in the
//     dying thread. Breakpoints on the two functions stop the program only then; Wait
//     takes those stops, steps the thread over the breakpoint and resumes. (Catching the
//     clone and exit system calls instead would stop the program at every system call it
//     makes, in the kernel: 300 times slower on a loop of system calls.)

import (
	"context"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"syscall"
)

// ThreadEvent is a thread that started or exited while the target ran.
type ThreadEvent struct {
	Started bool
	Thread  string // the stub's thread id ("p1234.1235" or "4d3")
	Handle  uint64 // the thread library's handle for it (glibc's events: pthread_t), 0 if unknown
}

// threadEvents is how the client follows threads live (zero: it does not).
type threadEvents struct {
	fn  func(ThreadEvent)
	how string // "QThreadEvents" or "nptl"
	// nptl: where glibc's events are, the breakpoints' Z kind (instruction length) and
	// type, and the threads known (a creation is the thread listed that was not known).
	nptl  NPTLEvents
	kind  int
	bk    BreakKind
	known map[string]bool
	// dying are the threads whose death was told while the stub still lists them
	// (they are on their way out of __nptl_death_event).
	dying map[string]bool
}

// NPTLEvents is where a process's glibc has its thread events.
type NPTLEvents struct {
	Create, Death uint64 // __nptl_create_event, __nptl_death_event
	// LastEvent is __nptl_last_event, the struct pthread of the thread an event is about,
	// and ReportEvents the offset of its report_events flag, set in each new thread so
	// that it reports its death (glibc's threads do not inherit it).
	LastEvent, ReportEvents uint64
	PtrSize                 int
}

// EnableThreadEvents asks the stub to report threads as they start and exit while the
// program runs (QThreadEvents, where the stub does it safely). fn is called from Wait,
// with the target stopped, and must be quick; it must not use the client.
// ErrUnsupported when the stub cannot; the glibc events (EnableNPTLEvents) may then do.
func (c *Client) EnableThreadEvents(ctx context.Context, fn func(ThreadEvent)) error {
	if _, fixed := c.features["QThreadOptions"]; !fixed || !c.Supports("QThreadEvents") {
		return fmt.Errorf("%w: QThreadEvents (safely)", ErrUnsupported)
	}
	if err := c.expectOK(ctx, "QThreadEvents:1"); err != nil {
		return err
	}
	c.thr = threadEvents{fn: fn, how: "QThreadEvents"}
	return nil
}

// EnableNPTLEvents sets breakpoints on glibc's __nptl_create_event (at create) and
// __nptl_death_event (at death), whose calls the program makes once asked (see
// nptl_events.go), and reports them to fn as thread events from Wait. kind is the
// breakpoint kind (instruction length). The threads that exist now are known already.
func (c *Client) EnableNPTLEvents(ctx context.Context, ev NPTLEvents, kind int, fn func(ThreadEvent)) error {
	ids, err := c.Threads(ctx)
	if err != nil {
		return err
	}
	bk, err := c.SetBreakpoint(ctx, ev.Create, kind)
	if err != nil {
		return err
	}
	if _, err := c.SetBreakpoint(ctx, ev.Death, kind); err != nil {
		c.ClearBreakpoint(ctx, bk, ev.Create, kind)
		return err
	}
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	c.thr = threadEvents{fn: fn, how: "nptl", nptl: ev, kind: kind, bk: bk, known: known, dying: map[string]bool{}}
	return nil
}

// DisableThreadEvents stops the thread events (before a detach: no breakpoint of ours
// may stay in a program that runs on).
func (c *Client) DisableThreadEvents(ctx context.Context) error {
	var err error
	switch c.thr.how {
	case "QThreadEvents":
		err = c.expectOK(ctx, "QThreadEvents:0")
	case "nptl":
		err = c.ClearBreakpoint(ctx, c.thr.bk, c.thr.nptl.Create, c.thr.kind)
		if err2 := c.ClearBreakpoint(ctx, c.thr.bk, c.thr.nptl.Death, c.thr.kind); err == nil {
			err = err2
		}
	}
	c.thr = threadEvents{}
	return err
}

// Dying lists the threads whose death was reported while the stub may still list them
// (nil without thread events); only while the target is stopped.
func (c *Client) Dying() []string {
	return slices.Collect(maps.Keys(c.thr.dying))
}

// ThreadEventsWay says how thread events are reported ("QThreadEvents", "nptl"), or "".
func (c *Client) ThreadEventsWay() string { return c.thr.how }

// threadEventStop handles a stop reply that only reports a thread's start or end: it tells
// the callback and resumes the target as it was running (handled). Any other stop is the
// caller's, as it came or as the step over an event breakpoint ended (an interrupt sent
// meanwhile, a signal). The exit of the very thread a step moves ends the step (not
// handled): it can not be resumed.
func (c *Client) threadEventStop(ctx context.Context, sr StopReply) (StopReply, bool, error) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ex := c.heldExchange(ctx)
	switch {
	case c.thr.how == "QThreadEvents" && sr.Kind == StopSignal && sr.Reason == "create":
		c.thr.fn(ThreadEvent{Started: true, Thread: sr.Thread})
	case c.thr.how == "QThreadEvents" && sr.Kind == StopThreadExit:
		c.thr.fn(ThreadEvent{Thread: sr.Thread})
		if sr.Thread != "" && strings.HasSuffix(string(c.lastResume), ":"+sr.Thread) {
			return sr, false, nil
		}
	case c.thr.how == "nptl" && sr.Kind == StopSignal && sr.Reason == "swbreak":
		pc, err := c.stopPC(ex, &sr)
		if err != nil || pc != c.thr.nptl.Create && pc != c.thr.nptl.Death {
			return sr, false, err
		}
		if err := c.nptlEvent(ex, pc == c.thr.nptl.Create, sr.Thread); err != nil {
			return sr, false, err
		}
		// step the thread over the breakpoint, the others staying stopped
		if err := c.expectOKWith(ex, fmt.Sprintf("z%d,%x,%x", c.thr.bk, pc, c.thr.kind)); err != nil {
			return sr, false, err
		}
		step, err := c.waitOwn(ctx, c.stepCommand(sr.Thread))
		if err != nil || step.Exited() {
			return step, false, err // the caller reports the end
		}
		if err := c.expectOKWith(ex, fmt.Sprintf("Z%d,%x,%x", c.thr.bk, pc, c.thr.kind)); err != nil {
			return sr, false, err
		}
		if step.Kind != StopSignal || step.Signal != int(syscall.SIGTRAP) {
			// A pause's interrupt came during the step, or a signal: the caller's stop. A
			// thread told dead is not where a stop is shown: another one is selected.
			if pc == c.thr.nptl.Death && step.Thread == sr.Thread {
				if err := c.otherThread(ex, &step); err != nil {
					return step, false, err
				}
			}
			return step, false, nil
		}
	default:
		return sr, false, nil
	}
	return sr, true, c.send(ctx, c.lastResume)
}

// nptlEvent tells of the thread created (the one listed now that was not known) or of
// the one that dies (the stopped thread).
func (c *Client) nptlEvent(ex func(string) (string, error), created bool, thread string) error {
	if !created {
		delete(c.thr.known, thread)
		c.thr.dying[thread] = true
		c.thr.fn(ThreadEvent{Thread: thread})
		return nil
	}
	// the new thread (held by glibc until the event is over) is to report its death
	r, err := ex(fmt.Sprintf("m%x,%x", c.thr.nptl.LastEvent, c.thr.nptl.PtrSize))
	if err != nil {
		return err
	}
	if err := replyError("m", r); err != nil {
		return err
	}
	b, err := hex.DecodeString(r)
	if err != nil || len(b) != c.thr.nptl.PtrSize {
		return fmt.Errorf("%w: __nptl_last_event %q", ErrGarbage, truncs(r))
	}
	pd := Uint(b, c.desc.Order())
	if err := c.expectOKWith(ex, fmt.Sprintf("M%x,1:01", pd+c.thr.nptl.ReportEvents)); err != nil {
		return err
	}
	ids, err := listThreads(ex)
	if err != nil {
		return err
	}
	ids = c.plainThreads(ids)
	for _, id := range slices.Sorted(maps.Keys(c.thr.known)) {
		if !slices.Contains(ids, id) {
			delete(c.thr.known, id) // ended unseen (before the events were asked for)
		}
	}
	for id := range c.thr.dying {
		if !slices.Contains(ids, id) {
			delete(c.thr.dying, id) // gone
		}
	}
	var fresh []string
	for _, id := range ids {
		if !c.thr.known[id] && !c.thr.dying[id] {
			c.thr.known[id] = true
			fresh = append(fresh, id)
		}
	}
	for _, id := range fresh {
		ev := ThreadEvent{Started: true, Thread: id}
		if len(fresh) == 1 { // the thread the event is about (others were made unseen)
			ev.Handle = pd
		}
		c.thr.fn(ev)
	}
	return nil
}

// otherThread moves stop sr to the first thread known alive (Hg), without the dying
// thread's expedited registers.
func (c *Client) otherThread(ex func(string) (string, error), sr *StopReply) error {
	alive := slices.Sorted(maps.Keys(c.thr.known))
	if len(alive) == 0 {
		return nil
	}
	if err := c.expectOKWith(ex, "Hg"+alive[0]); err != nil {
		return err
	}
	sr.Thread, sr.Regs = alive[0], nil
	return nil
}

// stepCommand single-steps thread alone.
func (c *Client) stepCommand(thread string) string {
	if c.vcont["s"] && thread != "" {
		return "vCont;s:" + thread
	}
	return "s"
}

// waitOwn sends a resume of Wait's own (c.cmu held, the target stopped) and returns its
// stop reply, passing program output on.
func (c *Client) waitOwn(ctx context.Context, cmd string) (StopReply, error) {
	p, err := c.roundTrip(ctx, []byte(cmd), true)
	if err != nil {
		return StopReply{}, err
	}
	return c.parseStop(string(p))
}

// heldExchange is Exchange for a caller that holds c.cmu.
func (c *Client) heldExchange(ctx context.Context) func(string) (string, error) {
	return func(cmd string) (string, error) {
		b, err := c.roundTrip(ctx, []byte(cmd), false)
		return string(b), err
	}
}

// expectOKWith runs cmd with ex and requires "OK" (expectOK is it with Exchange).
func (c *Client) expectOKWith(ex func(string) (string, error), cmd string) error {
	r, err := ex(cmd)
	if err != nil {
		return err
	}
	if err := replyError(cmd, r); err != nil {
		return err
	}
	if r != "OK" {
		return fmt.Errorf("%w: %s: unexpected reply %q", ErrGarbage, truncs(cmd), truncs(r))
	}
	return nil
}

// stopPC is the pc of the thread a stop reply is about: expedited, or read.
func (c *Client) stopPC(ex func(string) (string, error), sr *StopReply) (uint64, error) {
	if c.desc == nil {
		return 0, fmt.Errorf("gdbremote: no target description")
	}
	r, ok := c.desc.PCReg()
	if !ok {
		return 0, fmt.Errorf("gdbremote: the target description names no pc")
	}
	b, ok := sr.Regs[r.Num]
	if !ok {
		var err error
		if b, err = c.readRegister(ex, r.Num); err != nil {
			return 0, err
		}
	}
	return Uint(b, c.desc.Order()), nil
}

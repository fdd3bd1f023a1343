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
//     status into the thread that was just deleted), so it is not used with them.
//   - Otherwise, on Linux stubs that catch system calls (QCatchSyscalls+, gdbserver 7.11
//     and later): the return of clone/clone3 in the parent gives the new thread's id
//     (kept when the stub lists it: a forked process is not a thread), the entry of exit
//     (a thread's end; a process ends with exit_group) the thread that exits. These are
//     only seen while the program continues: a thread created under a single step is
//     found at the next stop (engine.ThreadChanges).

import (
	"context"
	"debug/elf"
	"fmt"
	"strings"
)

// ThreadEvent is a thread that started or exited while the target ran.
type ThreadEvent struct {
	Started bool
	Thread  string // the stub's thread id ("p1234.1235" or "4d3")
}

// threadEvents is how the client follows threads live (zero: it does not).
type threadEvents struct {
	fn    func(ThreadEvent)
	how   string // "QThreadEvents" or "QCatchSyscalls"
	setup string // the packet that arms it, sent again for a new process (vRun)
	sys   threadSyscalls
	ret   int             // the stub's number of the syscall return register
	live  map[string]bool // the threads told started and not yet exited
}

// threadSyscalls are the system calls that start and end threads on one Linux ABI, and
// the register that holds a system call's result.
type threadSyscalls struct {
	clone, clone3, exit int
	ret                 string
}

var linuxThreadSyscalls = map[elf.Machine]threadSyscalls{
	elf.EM_X86_64:  {clone: 56, clone3: 435, exit: 60, ret: "rax"},
	elf.EM_AARCH64: {clone: 220, clone3: 435, exit: 93, ret: "x0"},
	elf.EM_386:     {clone: 120, clone3: 435, exit: 1, ret: "eax"},
	elf.EM_ARM:     {clone: 120, clone3: 435, exit: 1, ret: "r0"},
}

// EnableThreadEvents asks the stub to report threads as they start and exit while the
// program runs, for a program of machine m (its system call numbers), and returns the way
// it uses. fn is called from Wait, with the target stopped, and must be quick; it must not
// use the client. Call it once, while the target is stopped, after ReadTargetDesc.
// ErrUnsupported when the stub cannot.
func (c *Client) EnableThreadEvents(ctx context.Context, m elf.Machine, fn func(ThreadEvent)) (string, error) {
	if _, fixed := c.features["QThreadOptions"]; fixed && c.Supports("QThreadEvents") {
		if err := c.expectOK(ctx, "QThreadEvents:1"); err != nil {
			return "", err
		}
		c.thr = threadEvents{fn: fn, how: "QThreadEvents", setup: "QThreadEvents:1", live: map[string]bool{}}
		return c.thr.how, nil
	}
	sys, ok := linuxThreadSyscalls[m]
	if !ok || !c.Supports("QCatchSyscalls") || c.desc == nil {
		return "", fmt.Errorf("%w: live thread events", ErrUnsupported)
	}
	r, ok := c.desc.Reg(sys.ret)
	if !ok {
		return "", fmt.Errorf("%w: live thread events: no register %s", ErrUnsupported, sys.ret)
	}
	setup := fmt.Sprintf("QCatchSyscalls:1;%x;%x;%x", sys.clone, sys.clone3, sys.exit)
	if err := c.expectOK(ctx, setup); err != nil {
		return "", err
	}
	c.thr = threadEvents{fn: fn, how: "QCatchSyscalls", setup: setup, sys: sys, ret: r.Num, live: map[string]bool{}}
	return c.thr.how, nil
}

// rearmThreadEvents arms the thread events again for a new process (after vRun: caught
// system calls belong to a process).
func (c *Client) rearmThreadEvents(ctx context.Context) {
	if c.thr.fn != nil {
		if err := c.expectOK(ctx, c.thr.setup); err != nil {
			c.log.Warn("gdbremote: thread events are lost for the restarted program", "err", err)
		}
	}
}

// threadEventStop handles a stop reply that only reports a thread's start or end: it tells
// the callback and resumes the target as it was running (handled). Any other stop is the
// caller's. The exit of the very thread a step moves ends the step (not handled): it can
// not be resumed.
func (c *Client) threadEventStop(ctx context.Context, sr StopReply) (handled bool, err error) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ev, ok, resume := ThreadEvent{}, false, true
	switch {
	case c.thr.how == "QThreadEvents" && sr.Kind == StopSignal && sr.Reason == "create":
		ev, ok = ThreadEvent{Started: true, Thread: sr.Thread}, true
	case c.thr.how == "QThreadEvents" && sr.Kind == StopThreadExit:
		ev, ok = ThreadEvent{Thread: sr.Thread}, true
		resume = sr.Thread == "" || !strings.HasSuffix(string(c.lastResume), ":"+sr.Thread)
	case c.thr.how == "QCatchSyscalls" && sr.Kind == StopSignal && strings.HasPrefix(sr.Reason, "syscall_"):
		// The number decides, not entry or return: gdbserver's count of them is off in a
		// new thread (its first stop is taken for an entry), and it reports some calls it
		// was not asked for there. exit never returns; a clone's result register holds a
		// new thread's id only on return in the parent (checked against the stub's list).
		switch sr.Syscall {
		case c.thr.sys.exit:
			ev, ok = ThreadEvent{Thread: sr.Thread}, true
		case c.thr.sys.clone, c.thr.sys.clone3:
			if ev.Thread, err = c.clonedThread(ctx); err != nil {
				return false, err
			}
			ev.Started, ok = true, ev.Thread != ""
		}
	default:
		return false, nil
	}
	if ok && !(ev.Started && c.thr.live[ev.Thread]) { // a start is told once
		if ev.Started {
			c.thr.live[ev.Thread] = true
		} else {
			delete(c.thr.live, ev.Thread)
		}
		c.thr.fn(ev)
	}
	if !resume {
		return false, nil
	}
	return true, c.send(ctx, c.lastResume)
}

// clonedThread is the thread a clone that just returned in the stopped thread created, or
// "" when it created none (it failed, or made a process).
func (c *Client) clonedThread(ctx context.Context) (string, error) {
	ex := func(cmd string) (string, error) {
		b, err := c.roundTrip(ctx, []byte(cmd), false)
		return string(b), err
	}
	v, err := c.readRegister(ex, c.thr.ret)
	if err != nil {
		return "", err
	}
	if len(v) == 0 || len(v) > 8 {
		return "", fmt.Errorf("%w: register %s is %d bytes", ErrGarbage, c.thr.sys.ret, len(v))
	}
	ret := Uint(v, c.desc.Order())
	if ret == 0 || ret>>(8*len(v)-1) != 0 {
		return "", nil // the child's side, or an error (negative)
	}
	tid := fmt.Sprintf("%x", ret)
	ids, err := listThreads(ex)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		if id == tid || strings.HasSuffix(id, "."+tid) {
			return id, nil
		}
	}
	return "", nil
}

package gdbremote

// Client: processes a program forks. Asked for fork events (Options.FollowForks), the stub
// stops the program at each fork with the child stopped too, traced, and carrying a copy of
// the parent's breakpoints. As gdb does by default (detach-on-fork, follow the parent), the
// client removes them from the child (Hg to the child, z for each point), detaches it
// (D;pid) and resumes the parent as it ran. Without fork events the child inherited the
// breakpoint instructions untraced and died of SIGTRAP at the first one it reached.
//
// Fork events come with the multiprocess extensions: thread ids are then "pPID.TID". Ids
// of the program's own process are kept in their plain form ("TID", which the stub takes
// for the first process), so the rest of the client and the target see no change.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// processes is what the client knows of the program's processes.
type processes struct {
	mu     sync.Mutex
	main   string         // the program's process id (hex), from the first "pPID.TID" seen
	points map[point]bool // the breakpoints and watchpoints inserted (Z), to clear in a child
	note   string         // a caught fork's "[Detaching after fork ...]", said at the next resume
}

// point is one inserted breakpoint or watchpoint, as its Z packet named it.
type point struct {
	kind BreakKind
	addr uint64
	size int
}

// notePoint records a successful Z (insert) or z (remove).
func (c *Client) notePoint(op byte, k BreakKind, addr uint64, size int) {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	if c.procs.points == nil {
		c.procs.points = map[point]bool{}
	}
	if op == 'Z' {
		c.procs.points[point{k, addr, size}] = true
	} else {
		delete(c.procs.points, point{k, addr, size})
	}
}

// plainThread is id without its process part when that is the program's own process
// ("p1d2a.1d2b" → "1d2b"); ids of other processes are kept whole.
func (c *Client) plainThread(id string) string {
	rest, ok := strings.CutPrefix(id, "p")
	if !ok {
		return id
	}
	pid, tid, ok := strings.Cut(rest, ".")
	if !ok {
		return id
	}
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	if c.procs.main == "" {
		c.procs.main = pid
	}
	if pid != c.procs.main {
		return id
	}
	return tid
}

// newProcess forgets the program's process and what was inserted in it: a restart makes
// a new process.
func (c *Client) newProcess() {
	c.procs.mu.Lock()
	c.procs.main, c.procs.points = "", nil
	c.procs.mu.Unlock()
}

// parseStop parses a stop reply with its thread id in plain form.
func (c *Client) parseStop(r string) (StopReply, error) {
	sr, err := ParseStopReply(r)
	if sr.Thread != "" {
		sr.Thread = c.plainThread(sr.Thread)
	}
	return sr, err
}

// plainThreads is ids in plain form.
func (c *Client) plainThreads(ids []string) []string {
	for i, id := range ids {
		ids[i] = c.plainThread(id)
	}
	return ids
}

// forkStop lets the child of a fork stop go and resumes the program as it ran (handled);
// any other stop is the caller's.
func (c *Client) forkStop(ctx context.Context, sr StopReply) (bool, error) {
	if sr.Kind != StopSignal || sr.Reason != "fork" || !strings.HasPrefix(sr.Child, "p") {
		return false, nil
	}
	pid, _, _ := strings.Cut(sr.Child[1:], ".")
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ex := func(cmd string) (string, error) {
		b, err := c.roundTrip(ctx, []byte(cmd), false)
		return string(b), err
	}
	c.procs.mu.Lock()
	points := slices.SortedFunc(maps.Keys(c.procs.points), func(a, b point) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(a.kind, b.kind))
	})
	parent := c.procs.main
	c.procs.mu.Unlock()
	var errs []error
	if err := c.expectOKWith(ex, "Hg"+sr.Child); err != nil {
		return false, fmt.Errorf("gdbremote: selecting the forked child %s: %w", sr.Child, err)
	}
	for _, p := range points {
		if err := c.expectOKWith(ex, fmt.Sprintf("z%d,%x,%x", p.kind, p.addr, p.size)); err != nil {
			errs = append(errs, err) // the child may still run into it; it is let go all the same
		}
	}
	if err := c.expectOKWith(ex, "D;"+pid); err != nil {
		return false, fmt.Errorf("gdbremote: detaching the forked child %s: %w", pid, err)
	}
	note := ""
	if n, err := strconv.ParseUint(pid, 16, 32); err == nil { // said as gdb says it
		note = fmt.Sprintf("[Detaching after fork from child process %d]\n", n)
	}
	back := sr.Thread
	switch {
	case back == "":
		back = "0" // any thread of the program
	case parent != "" && !strings.HasPrefix(back, "p"):
		back = "p" + parent + "." + back
	}
	if err := c.expectOKWith(ex, "Hg"+back); err != nil {
		return false, err
	}
	if len(errs) > 0 {
		c.log.Warn("gdbremote: a breakpoint stayed in a forked child", "pid", pid, "err", errors.Join(errs...))
	}
	if c.forkCatch.Load() { // caught (catch fork): the stop is the caller's, the note said as it goes on, as gdb
		c.procs.mu.Lock()
		c.procs.note = note
		c.procs.mu.Unlock()
		return false, nil
	}
	c.say(note)
	return true, c.send(ctx, c.lastResume)
}

// CatchForks makes Wait return the fork stops of the program (the child let go already)
// instead of resuming after them, while on (catch fork, during a continue).
func (c *Client) CatchForks(on bool) { c.forkCatch.Store(on) }

// say hands text to the console output, as the stub's own.
func (c *Client) say(text string) {
	if text != "" && c.opts.Output != nil {
		c.opts.Output(text)
	}
}

// sayPendingNote says what a caught fork left to say, as the program resumes.
func (c *Client) sayPendingNote() {
	c.procs.mu.Lock()
	note := c.procs.note
	c.procs.note = ""
	c.procs.mu.Unlock()
	c.say(note)
}

// ForkChild is the process id of the child a fork stop reply names; false for another stop.
func ForkChild(sr StopReply) (int, bool) {
	if sr.Reason != "fork" || !strings.HasPrefix(sr.Child, "p") {
		return 0, false
	}
	pid, _, _ := strings.Cut(sr.Child[1:], ".")
	n, err := strconv.ParseUint(pid, 16, 32)
	return int(n), err == nil
}

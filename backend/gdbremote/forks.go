package gdbremote

// Client: processes a program forks. Asked for fork events (Options.FollowForks), the stub
// stops the program at each fork with the child stopped too, traced, and carrying a copy of
// the parent's breakpoints. As gdb does by default (detach-on-fork, follow the parent), the
// client removes them from the child (Hg to the child, z for each point), detaches it
// (D;pid) and resumes the parent as it ran. Without fork events the child inherited the
// breakpoint instructions untraced and died of SIGTRAP at the first one it reached.
//
// A vfork's child shares the parent's memory until it calls exec or exits, so the parent's
// breakpoints are the child's too: as gdb, the client takes them out of that memory (in
// the parent, so the stub forgets them), lets the child go, and puts them back when the
// stub reports the parent's vforkdone; a point set or cleared meanwhile is only noted, and
// inserted then. Before, the child of a vfork (or of system(), whose posix_spawn is one)
// that ran into a breakpoint died of SIGTRAP.
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
	main   string           // the program's process id (hex), from the first "pPID.TID" seen
	points map[point]string // the breakpoints and watchpoints inserted (Z), with their conditions' suffix
	// held is a caught fork, its child kept stopped while the program is, as gdb keeps
	// it, and let go (or followed) at the next resume.
	held *heldFork
	// inferior is gdb's number of the process debugged: 1, then one more at each fork
	// whose child was followed (0 is 1).
	inferior int
	// vforked: the points are out of memory until the vfork child execs or exits
	// (the parent's vforkdone); Z and z are only noted meanwhile.
	vforked bool
	// vforkParent is held while the vfork child followed shares its memory.
	vforkParent *vforkParent
}

// point is one inserted breakpoint or watchpoint, as its Z packet named it.
type point struct {
	kind BreakKind
	addr uint64
	size int
}

// notePoint records a successful Z (insert) or z (remove), with an insert's conditions.
func (c *Client) notePoint(op byte, k BreakKind, addr uint64, size int, suffix string) {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	if c.procs.points == nil {
		c.procs.points = map[point]string{}
	}
	if op == 'Z' {
		c.procs.points[point{k, addr, size}] = suffix
	} else {
		delete(c.procs.points, point{k, addr, size})
	}
}

// noteOnly records a Z or z without sending it while a vfork child shares the memory,
// reporting whether it did.
func (c *Client) noteOnly(op byte, k BreakKind, addr uint64, size int, suffix string) bool {
	c.procs.mu.Lock()
	vforked := c.procs.vforked
	c.procs.mu.Unlock()
	if vforked {
		c.notePoint(op, k, addr, size, suffix)
	}
	return vforked
}

// insertedPoints is the points inserted, in address order.
func (c *Client) insertedPoints() []point {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	return slices.SortedFunc(maps.Keys(c.procs.points), func(a, b point) int {
		return cmp.Or(cmp.Compare(a.addr, b.addr), cmp.Compare(a.kind, b.kind))
	})
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
	c.procs.main, c.procs.points, c.procs.vforked, c.procs.held, c.procs.vforkParent = "", nil, false, nil, nil
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

// heldFork is a fork stop whose child is not yet let go or followed.
type heldFork struct {
	reason        string // "fork" or "vfork"
	child, parent string // the child's thread and the thread that forked, in "pPID.TID" form
	childPid      int
	follow        bool // follow the child (FollowForkChild), detaching the parent
}

// forkStop lets the child of a fork or vfork stop go, or follows it (FollowForkChild), and
// resumes the program as it ran (handled); after a vfork it puts the points back at the
// parent's vforkdone; an exec stop (the caller's) makes the client forget the points, as
// the stub did; any other stop is the caller's. A caught fork (CatchForks) is the caller's
// too, its child held until the next resume.
func (c *Client) forkStop(ctx context.Context, sr StopReply) (bool, error) {
	if sr.Kind != StopSignal {
		return false, nil
	}
	switch sr.Reason {
	case "vforkdone":
		return true, c.vforkDone(ctx)
	case "exec": // the stub forgot the old program's points with its memory
		c.cmu.Lock()
		err := c.releaseVforkParent(c.heldExchange(ctx), "exec") // (a vfork's parent: its memory is its own again)
		c.cmu.Unlock()
		if err != nil {
			return false, err
		}
		c.procs.mu.Lock()
		c.procs.points, c.procs.vforked = nil, false
		c.procs.mu.Unlock()
		return false, nil
	}
	pid, ok := ForkChild(sr)
	if !ok {
		return false, nil
	}
	vfork := sr.Reason == "vfork"
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ex := c.heldExchange(ctx)
	c.procs.mu.Lock()
	parent := c.procs.main
	c.procs.mu.Unlock()
	back := sr.Thread
	switch {
	case back == "":
		back = "0" // any thread of the program
	case parent != "" && !strings.HasPrefix(back, "p"):
		back = "p" + parent + "." + back
	}
	hf := &heldFork{reason: sr.Reason, child: sr.Child, parent: back, childPid: pid,
		follow: c.followChild.Load() && parent != "" && sr.Thread != ""}
	if !hf.follow {
		if err := c.clearForked(ex, hf, vfork); err != nil {
			return false, err
		}
	}
	c.procs.mu.Lock()
	c.procs.held = hf
	c.procs.mu.Unlock()
	if vfork && c.vforkCatch.Load() || !vfork && c.forkCatch.Load() {
		return false, nil // caught (catch fork, catch vfork): the stop is the caller's; the child goes as it resumes
	}
	ids, err := c.settleFork(ex, true)
	if err != nil {
		return false, err
	}
	c.lastResume = []byte(c.forStub(retarget(string(c.lastResume), ids)))
	return true, c.send(ctx, c.lastResume)
}

// clearForked takes the points out of a fork's child, which has copies of them, or, after
// a vfork, out of the memory the child shares with the parent (in the parent, so that the
// stub forgets them there too, until vforkDone). c.cmu held.
func (c *Client) clearForked(ex func(string) (string, error), hf *heldFork, vfork bool) error {
	clearIn := hf.child
	if vfork {
		clearIn = hf.parent
	}
	if err := c.expectOKWith(ex, "Hg"+clearIn); err != nil {
		return fmt.Errorf("gdbremote: selecting %s to clear its breakpoints: %w", clearIn, err)
	}
	pointsErr := c.removePoints(ex) // the child may still run into one; it is let go all the same
	if vfork {
		c.procs.mu.Lock()
		c.procs.vforked = true
		c.procs.mu.Unlock()
	}
	if err := c.expectOKWith(ex, "Hg"+hf.parent); err != nil {
		return err
	}
	if pointsErr != nil {
		c.log.Warn("gdbremote: a breakpoint stayed in a forked child", "pid", hf.childPid, "err", pointsErr)
	}
	return nil
}

// removePoints takes the inserted points out of the selected thread's process (the stub
// forgets them there), all it can. c.cmu held.
func (c *Client) removePoints(ex func(string) (string, error)) error {
	var errs []error
	for _, p := range c.insertedPoints() {
		if err := c.expectOKWith(ex, fmt.Sprintf("z%d,%x,%x", p.kind, p.addr, p.size)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// dropHeldChild ends a caught fork's child with the program (gdb kills it too); a stub
// without the extended mode lets it go.
func (c *Client) dropHeldChild(ctx context.Context) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	c.procs.mu.Lock()
	hf := c.procs.held
	c.procs.held = nil
	c.procs.mu.Unlock()
	if hf == nil {
		return
	}
	how := "D;"
	if c.extended {
		how = "vKill;"
	}
	if err := c.expectOKWith(c.heldExchange(ctx), fmt.Sprintf("%s%x", how, hf.childPid)); err != nil {
		c.log.Debug("gdbremote: a forked child held", "err", err)
	}
}

// settleFork lets the held child of the last fork go, saying so as gdb does when say, or
// follows it when asked to (followFork); it returns the thread ids the program's threads
// had before, for a resume that names one, in plain form: old -> new. c.cmu held.
func (c *Client) settleFork(ex func(string) (string, error), say bool) (map[string]string, error) {
	c.procs.mu.Lock()
	hf := c.procs.held
	c.procs.held = nil
	c.procs.mu.Unlock()
	switch {
	case hf == nil:
		return nil, nil
	case hf.follow:
		return c.followFork(ex, hf)
	}
	if err := c.expectOKWith(ex, fmt.Sprintf("D;%x", hf.childPid)); err != nil {
		return nil, fmt.Errorf("gdbremote: letting the forked child %d go: %w", hf.childPid, err)
	}
	if say {
		c.say(fmt.Sprintf("[Detaching after %s from child process %d]\n", hf.reason, hf.childPid)) // as gdb says it
	}
	return nil, nil
}

// vforkDone puts the points back in memory once the vfork child no longer shares it, and
// resumes the program as it ran.
func (c *Client) vforkDone(ctx context.Context) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	c.procs.mu.Lock()
	vforked := c.procs.vforked
	c.procs.vforked = false
	points := maps.Clone(c.procs.points)
	c.procs.mu.Unlock()
	if vforked {
		ex := c.heldExchange(ctx)
		for _, p := range c.insertedPoints() {
			cmd := fmt.Sprintf("Z%d,%x,%x%s", p.kind, p.addr, p.size, points[p])
			if err := c.expectOKWith(ex, cmd); err != nil {
				return fmt.Errorf("gdbremote: putting a breakpoint back after a vfork: %w", err)
			}
		}
	}
	return c.send(ctx, c.lastResume)
}

// CatchForks makes Wait return the fork stops (forks) and vfork stops (vforks) of the
// program, the child let go already, instead of resuming after them (catch fork, catch
// vfork, during a continue). After a vfork stop the breakpoints go back into memory when
// the child has exec'd or ended, as the program resumes.
func (c *Client) CatchForks(forks, vforks bool) {
	c.forkCatch.Store(forks)
	c.vforkCatch.Store(vforks)
}

// say hands text to the console output, as the stub's own.
func (c *Client) say(text string) {
	if text != "" && c.opts.Output != nil {
		c.opts.Output(text)
	}
}

// ForkChild is the process id of the child a fork or vfork stop reply names; false for
// another stop.
func ForkChild(sr StopReply) (int, bool) {
	if sr.Reason != "fork" && sr.Reason != "vfork" || !strings.HasPrefix(sr.Child, "p") {
		return 0, false
	}
	pid, _, _ := strings.Cut(sr.Child[1:], ".")
	n, err := strconv.ParseUint(pid, 16, 32)
	return int(n), err == nil
}

package gdbremote

// Client: following the child of a fork (gdb's follow-fork-mode child, with detach-on-fork).
// At a fork the child carries copies of the parent's breakpoints: the client takes them out
// of the parent's memory, detaches the parent and makes the child the program, whose
// threads then take the plain ids. A vfork's child shares the parent's memory, breakpoints
// and all, until it execs or exits: the parent, blocked in vfork, is held meanwhile (only
// the child is resumed, and the program's ids are sent qualified with its process, since
// the stub takes a plain id for its first process, the parent's), then let go as above.

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// followFork makes the held fork's child the program (see above). It says so as gdb does
// and tells Options.Followed. It returns the forking thread's plain id -> the child's.
// c.cmu held.
func (c *Client) followFork(ex func(string) (string, error), hf *heldFork) (map[string]string, error) {
	parentPid, parentTid, _ := strings.Cut(strings.TrimPrefix(hf.parent, "p"), ".")
	childPid, childTid, _ := strings.Cut(strings.TrimPrefix(hf.child, "p"), ".")
	ppid, _ := strconv.ParseUint(parentPid, 16, 32)
	ptid, _ := strconv.ParseUint(parentTid, 16, 32)
	vfork := hf.reason == "vfork"
	if err := c.expectOKWith(ex, "Hg"+hf.parent); err != nil {
		return nil, fmt.Errorf("gdbremote: selecting the parent of a %s: %w", hf.reason, err)
	}
	handle := c.threadHandle(ex) // the forking thread's pthread_t, as gdb names the thread
	if !vfork {
		// (c.procs.points stay: the child has its copies of them, inserted)
		if err := c.detachParent(ex, int(ppid)); err != nil {
			return nil, err
		}
	}
	c.procs.mu.Lock()
	c.procs.main = childPid
	c.procs.inferior = max(c.procs.inferior, 1) + 1
	if vfork {
		c.procs.vforkParent = &vforkParent{pid: int(ppid), thread: hf.parent}
	}
	inf := c.procs.inferior
	c.procs.mu.Unlock()
	if err := c.expectOKWith(ex, "Hg"+hf.child); err != nil {
		return nil, fmt.Errorf("gdbremote: selecting the child of a %s: %w", hf.reason, err)
	}
	note := fmt.Sprintf("[Attaching after %s %s to child process %d]\n[New inferior %d (process %d)]\n",
		threadWho(handle, ppid, ptid), hf.reason, hf.childPid, inf, hf.childPid)
	if !vfork {
		note += fmt.Sprintf("[Detaching after fork from parent process %d]\n[Inferior %d (process %d) detached]\n", ppid, inf-1, ppid)
	}
	c.say(note)
	if c.opts.Followed != nil {
		c.opts.Followed(Followed{Parent: int(ppid), Child: hf.childPid, Thread: childTid, Handle: handle, Vfork: vfork})
	}
	return map[string]string{parentTid: childTid}, nil
}

// detachParent takes the points out of the selected parent's memory and detaches it.
// c.cmu held.
func (c *Client) detachParent(ex func(string) (string, error), pid int) error {
	if err := c.removePoints(ex); err != nil {
		c.log.Warn("gdbremote: a breakpoint stayed in a fork's parent", "err", err)
	}
	if err := c.expectOKWith(ex, fmt.Sprintf("D;%x", pid)); err != nil {
		return fmt.Errorf("gdbremote: detaching the parent of a fork: %w", err)
	}
	return nil
}

// threadWho names a thread as gdb's fork messages do: by its pthread_t and LWP when the
// handle is known, else its process.
func threadWho(handle, pid, tid uint64) string {
	if handle != 0 {
		return fmt.Sprintf("Thread %#x (LWP %d)", handle, tid)
	}
	return fmt.Sprintf("process %d", pid)
}

// VforkParent is the process id of the parent of a vfork whose child the client follows,
// held while the child shares its memory; 0 when there is none.
func (c *Client) VforkParent() int {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	if c.procs.vforkParent == nil {
		return 0
	}
	return c.procs.vforkParent.pid
}

// vforkParent is the parent of a vfork whose child was followed, held while the child
// shares its memory.
type vforkParent struct {
	pid    int
	thread string // the thread that vforked ("pP.T")
}

// releaseVforkParent lets the held parent of a followed vfork go once the child no longer
// shares its memory (it exec'd or exited; why says which): the points out of the parent's
// memory, then detached, said as gdb says it. c.cmu held.
func (c *Client) releaseVforkParent(ex func(string) (string, error), why string) error {
	c.procs.mu.Lock()
	vp := c.procs.vforkParent
	c.procs.vforkParent = nil
	inf := max(c.procs.inferior, 1)
	c.procs.mu.Unlock()
	if vp == nil {
		return nil
	}
	if err := c.expectOKWith(ex, "Hg"+vp.thread); err != nil {
		return fmt.Errorf("gdbremote: selecting the parent of a vfork: %w", err)
	}
	if err := c.detachParent(ex, vp.pid); err != nil {
		return err
	}
	c.say(fmt.Sprintf("[Detaching vfork parent process %d after child %s]\n[Inferior %d (process %d) detached]\n",
		vp.pid, why, inf-1, vp.pid))
	if why != "exec" {
		return nil
	}
	c.procs.mu.Lock()
	main := c.procs.main
	c.procs.mu.Unlock()
	if err := c.expectOKWith(ex, "Hgp"+main+".0"); err != nil { // (a thread of the program, not the parent's)
		return fmt.Errorf("gdbremote: selecting the program after a vfork: %w", err)
	}
	return nil
}

// threadHandle is the selected thread's pthread_t (fs_base), 0 when unknown. c.cmu held.
func (c *Client) threadHandle(ex func(string) (string, error)) uint64 {
	if r, ok := c.fsBase(); ok {
		if b, err := c.readRegister(ex, r.Num); err == nil && len(b) == 8 {
			return binary.LittleEndian.Uint64(b) // (x86-64 only has it)
		}
	}
	return 0
}

// Followed tells of a fork whose child the client followed: the child, whose thread
// (plain id) is the one that forked, is the program now.
type Followed struct {
	Parent, Child int
	Thread        string
	Handle        uint64 // the thread's pthread_t, 0 when unknown
	Vfork         bool   // the parent is held until the child execs or exits
}

// FollowForkChild makes the client follow the child of each fork from now on instead of
// the parent (gdb's follow-fork-mode child): a fork's parent is let go, a vfork's held
// until its child execs or exits.
func (c *Client) FollowForkChild(on bool) { c.followChild.Store(on) }

// Inferior is gdb's number of the process the client debugs: 1, and one more at each fork
// whose child it followed.
func (c *Client) Inferior() int {
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	return max(c.procs.inferior, 1)
}

// fsBase is the register that holds a thread's pthread_t (x86-64's fs_base), if the
// target has one.
func (c *Client) fsBase() (Reg, bool) {
	if c.desc == nil {
		return Reg{}, false
	}
	return c.desc.Reg("fs_base")
}

// forStub is the resume command cmd as the stub must read it while the parent of a vfork
// is held (followVfork): the program's plain thread ids qualified with its process (the
// stub takes a plain id for the parent's, the first process), and the actions for all
// threads limited to the program's (the stub resumes nothing while that parent is asked to).
func (c *Client) forStub(cmd string) string {
	c.procs.mu.Lock()
	held, main := c.procs.vforkParent != nil, c.procs.main
	c.procs.mu.Unlock()
	if !held {
		return cmd
	}
	return eachAction(cmd, func(id string) string {
		if strings.HasPrefix(id, "p") {
			return id
		}
		return "p" + main + "." + cmp.Or(id, "-1")
	})
}

// qualify is thread id as the stub must read it while the parent of a vfork is held: with
// the program's process ("p1d2b.1d2b" for "1d2b").
func (c *Client) qualify(id string) string {
	c.procs.mu.Lock()
	held, main := c.procs.vforkParent != nil, c.procs.main
	c.procs.mu.Unlock()
	if !held || id == "" || strings.HasPrefix(id, "p") {
		return id
	}
	return "p" + main + "." + id
}

// OtherProcess reports whether thread id (as the stub names it) belongs to another process
// than the program's: the held parent of a vfork.
func (c *Client) OtherProcess(id string) bool {
	pid, _, ok := strings.Cut(strings.TrimPrefix(id, "p"), ".")
	if !ok || !strings.HasPrefix(id, "p") {
		return false
	}
	c.procs.mu.Lock()
	defer c.procs.mu.Unlock()
	return c.procs.main != "" && pid != c.procs.main
}

// retarget is the resume command cmd with the threads it names renamed as ids says.
func retarget(cmd string, ids map[string]string) string {
	if len(ids) == 0 {
		return cmd
	}
	return eachAction(cmd, func(id string) string { return cmp.Or(ids[id], id) })
}

// eachAction is the vCont command cmd with each action's thread id ("" for an action
// without one) as to gives it; another command as it is.
func eachAction(cmd string, to func(id string) string) string {
	rest, ok := strings.CutPrefix(cmd, "vCont;")
	if !ok {
		return cmd
	}
	parts := strings.Split(rest, ";")
	for i, part := range parts {
		action, id, _ := strings.Cut(part, ":")
		if nid := to(id); nid != id {
			parts[i] = action + ":" + nid
		}
	}
	return "vCont;" + strings.Join(parts, ";")
}

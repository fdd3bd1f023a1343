package supervise

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/polydbg/polydbg/backend/process"
)

// run is one start of a program, with the gdbserver processes debugging it.
type run struct {
	proc      *process.Process // the program, or gdbserver running it (Start with debug)
	inferior  int              // debug: the program's pid (its own process group)
	unguard   func()           // releases the inferior's group from process.Guard
	attach    *process.Process // Attach: gdbserver attached to the program
	port      int              // the debug port in use, 0 if none
	endReason string           // set before the supervisor ends the run itself
	ended     chan struct{}    // closed once the program shows the run as ended
}

// pid is the program's pid (not gdbserver's).
func (r *run) pid() int {
	if r.inferior != 0 {
		return r.inferior
	}
	return r.proc.Pid()
}

// Start runs the program: under plain supervision, or with debug under gdbserver, which
// waits on a port of the pool for a debugger before the program's first instruction. It
// returns the program as it started.
func (p *Program) Start(debug bool) (Snapshot, error) {
	p.mu.Lock()
	if p.deleted {
		p.mu.Unlock()
		return Snapshot{}, ErrGone
	}
	if p.run != nil {
		defer p.mu.Unlock()
		return Snapshot{}, fmt.Errorf("%w (pid %d)", ErrRunning, p.run.pid())
	}
	spec := p.programSpec()
	r := &run{ended: make(chan struct{})}
	if debug {
		gs := process.Spec{MergeOutput: true, Env: spec.Env, Dir: spec.Dir, OnOutput: p.onOutput}
		prog := spec.Path
		if spec.Exe != nil {
			gs.ExtraFiles = []*os.File{spec.Exe}
			prog = "/proc/self/fd/3"
		}
		h, port, err := p.sup.gdbserver(gs, append([]string{"--no-startup-with-shell", "", prog}, spec.Args...))
		if err != nil {
			p.mu.Unlock()
			return Snapshot{}, err
		}
		r.proc, r.port = h.Process, port
		// gdbserver runs the program in a process group of its own: guard it too.
		r.inferior = process.GdbserverInferior(h.Announced())
		r.unguard = process.Guard(r.inferior)
	} else {
		proc, err := process.Start(spec)
		if err != nil {
			p.mu.Unlock()
			return Snapshot{}, fmt.Errorf("%w: starting the program: %v", ErrStart, err)
		}
		r.proc = proc
	}
	p.run, p.exit, p.ended = r, nil, ""
	p.state = Running
	if debug {
		p.state = Debugging
	}
	v := p.snapshotLocked()
	p.mu.Unlock()
	p.persist()
	p.watching.Add(1)
	go func() {
		defer p.watching.Done()
		p.watch(r)
	}()
	return v, nil
}

// gdbserver starts gdbserver with spec and args, whose second argument ("") becomes the
// HOST:PORT it listens on, a port taken from the pool; it returns once gdbserver listens.
func (s *Supervisor) gdbserver(spec process.Spec, args []string) (*process.Helper, int, error) {
	path, err := exec.LookPath(s.cfg.Gdbserver)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: gdbserver is not installed (see DEPS): %v", ErrStart, err)
	}
	port, err := s.takePort()
	if err != nil {
		return nil, 0, err
	}
	spec.Path, spec.Args = path, args
	spec.Args[1] = net.JoinHostPort(s.debugHost(), strconv.Itoa(port))
	h, err := process.StartHelper(context.Background(), process.HelperSpec{
		Spec: spec, Name: "gdbserver", Ready: process.GdbserverListening, Timeout: s.cfg.GdbserverTimeout,
	})
	if err != nil {
		s.putPort(port)
		return nil, 0, fmt.Errorf("%w: %v", ErrStart, err)
	}
	return h, port, nil
}

// watch records the end of a run: the program (or gdbserver running it) ended, so what is
// left of the run goes too and the program shows how it ended.
func (p *Program) watch(r *run) {
	<-r.proc.Done()
	st := r.proc.Wait()
	p.mu.Lock()
	attach := r.attach
	p.mu.Unlock()
	if attach != nil {
		attach.Kill()
	}
	if r.inferior != 0 {
		// The program under gdbserver is in its own group; gdbserver's death killed it
		// (PTRACE_O_EXITKILL), this ends what it started.
		process.SignalGroup(r.inferior, syscall.SIGKILL)
		r.unguard()
	}
	p.mu.Lock()
	if p.run == r {
		p.run = nil
		p.exit = &st
		p.ended = r.endReason
		p.state = Stopped
	}
	port := r.port
	r.port = 0
	p.mu.Unlock()
	if port != 0 {
		p.sup.putPort(port)
	}
	p.persist()
	close(r.ended)
}

// End ends the program's run if it has one (SIGTERM then SIGKILL after the grace period,
// or SIGKILL at once), and returns once the program shows it ended; false when it was not
// running. reason, when set, is recorded as why the run ended.
func (p *Program) End(reason string, kill bool) bool {
	p.mu.Lock()
	r := p.run
	if r == nil {
		p.mu.Unlock()
		return false
	}
	if reason != "" {
		r.endReason = reason
	}
	attach := r.attach
	p.mu.Unlock()
	if attach != nil {
		attach.Kill() // the program must not stay stopped under a debugger
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if r.inferior != 0 {
		process.SignalGroup(r.inferior, sig)
	}
	if kill {
		r.proc.Kill()
	} else {
		r.proc.Stop(p.sup.cfg.StopGrace)
	}
	<-r.ended
	return true
}

// Attach starts gdbserver attached to the running program, on a port of the pool. When
// the debugger is done with it (gdb detached or killed the program), the program is a
// plain running one again. It returns the program as gdbserver attached.
func (p *Program) Attach() (Snapshot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.run
	switch {
	case r == nil:
		return Snapshot{}, ErrNotRunning
	case p.state == Debugging:
		return Snapshot{}, fmt.Errorf("%w on port %d", ErrDebugging, r.port)
	}
	h, port, err := p.sup.gdbserver(process.Spec{MergeOutput: true, OnOutput: p.onOutput},
		[]string{"--attach", "", strconv.Itoa(r.proc.Pid())})
	if err != nil {
		return Snapshot{}, err
	}
	gs := h.Process
	r.attach, r.port = gs, port
	p.state = Debugging
	go func() {
		<-gs.Done()
		p.mu.Lock()
		released := 0
		if p.run == r && r.attach == gs {
			r.attach = nil
			released, r.port = r.port, 0
			p.state = Running
		}
		p.mu.Unlock()
		if released != 0 {
			p.sup.putPort(released)
		}
	}()
	return p.snapshotLocked(), nil
}

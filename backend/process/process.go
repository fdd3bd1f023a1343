// Package process supervises native Linux programs for polydbg's front ends (debuglantern
// runs uploaded binaries with it; Aura supervises native programs with it).
//
// A program is started in its own process group, so that stopping it also ends every child
// and grandchild it started. Its stdout and stderr are read through pipes and handed to a
// callback chunk by chunk (see Ring for a ready-made bounded buffer with absolute offsets).
// When the program's main process exits, whatever is left of its process group is killed
// before the main process is reaped, so a program never leaves orphans behind, and the group
// id cannot be reused by an unrelated process while the supervisor still signals it. A
// program can run from an open file (an anonymous memfd, see internal/memfd) so that an uploaded
// binary never has to touch the disk.
package process

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Stream names one output stream of a program.
type Stream uint8

const (
	// Stdout is the program's standard output (and its merged output with Spec.MergeOutput).
	Stdout Stream = 1
	// Stderr is the program's standard error.
	Stderr Stream = 2
)

// String returns "stdout" or "stderr", the category names the engine uses for output events.
func (s Stream) String() string {
	switch s {
	case Stdout:
		return "stdout"
	case Stderr:
		return "stderr"
	}
	return "stream(" + strconv.Itoa(int(s)) + ")"
}

// Spec says what to run and where its output goes.
type Spec struct {
	// Path is the program to run. It is used as given (no PATH search); use exec.LookPath
	// first for a bare command name. Ignored when Exe is set.
	Path string
	// Exe, when set, is an open executable file (typically a memfd) that is run instead of
	// Path, through /proc/self/fd. It must stay open until Start returns. Without
	// ExtraFiles the program does not inherit it; with ExtraFiles it is passed as one more
	// extra descriptor (the last one), because the child's descriptors 3.. are renumbered.
	Exe *os.File
	// Argv0 is the program's argv[0]; by default Path (or the Exe file's name).
	Argv0 string
	// Args are the arguments after argv[0].
	Args []string
	// Env is the complete environment; nil means the supervisor's own environment.
	Env []string
	// Dir is the working directory; empty means the supervisor's.
	Dir string
	// Stdin is the program's standard input; nil means /dev/null.
	Stdin io.Reader
	// Stdout, when set, is the program's standard output instead of the pipe (which then
	// carries its standard error alone).
	Stdout *os.File
	// ExtraFiles are passed to the program as descriptors 3, 4, ...
	ExtraFiles []*os.File
	// MergeOutput sends stderr into the same pipe as stdout, so the two keep their exact
	// relative order (reported as Stdout). Without it they are read separately and each
	// keeps its own order.
	MergeOutput bool
	// OnOutput receives the program's output chunk by chunk. Calls never overlap, so a
	// callback may append to a buffer and forward lines without its own lock. It must not
	// block for long: the program blocks on a full pipe meanwhile. The byte slice is only
	// valid during the call.
	OnOutput func(stream Stream, chunk []byte)
	// NoDeathSignal keeps the program alive when the supervisor dies. By default the
	// program's main process gets SIGKILL when the supervisor's thread that started it
	// exits, and a guard process (see guard.go) kills the rest of its process group when
	// the supervisor dies, even by SIGKILL, so a crashed supervisor leaves nothing behind.
	NoDeathSignal bool
}

// Status is how a program ended.
type Status struct {
	// Code is the exit code, or -1 when the program was killed by a signal.
	Code int
	// Signal is the signal that killed the program, or 0 when it exited by itself.
	Signal syscall.Signal
}

// Signaled reports whether the program was ended by a signal.
func (s Status) Signaled() bool { return s.Signal != 0 }

// ExitCode is the status as a shell gives it: the exit code, or 128 plus the signal that
// killed the program.
func (s Status) ExitCode() int {
	if s.Signaled() {
		return 128 + int(s.Signal)
	}
	return s.Code
}

// SignalName returns the signal's conventional name ("SIGKILL"), or "" for a normal exit.
func (s Status) SignalName() string {
	if s.Signal == 0 {
		return ""
	}
	if n := unix.SignalName(s.Signal); n != "" {
		return n
	}
	return "SIG" + strconv.Itoa(int(s.Signal))
}

// String describes the status the way a shell user expects ("exit code 3", "killed by SIGTERM").
func (s Status) String() string {
	if s.Signaled() {
		return "killed by " + s.SignalName()
	}
	return "exit code " + strconv.Itoa(s.Code)
}

// Process is one running (or ended) program and its process group.
type Process struct {
	cmd  *exec.Cmd
	pid  int
	done chan struct{}

	mu     sync.Mutex // guards reaped and serializes group signals with the reap
	reaped bool
	status Status

	outMu   sync.Mutex // serializes OnOutput calls
	pipes   []*outPipe
	unguard func()
}

// ErrNotRunning is returned by Signal once the program has ended.
var ErrNotRunning = errors.New("process: not running")

// outputDrainTimeout bounds how long the supervisor waits for the output pipes to close
// after the group was killed (a descendant that left the group can keep them open).
const outputDrainTimeout = 2 * time.Second

// Start launches the program described by spec in a new process group.
func Start(spec Spec) (*Process, error) {
	path := spec.Path
	extra := spec.ExtraFiles
	if spec.Exe != nil {
		// The child runs its own copy of the descriptor, placed after the others, not the
		// parent's number: that number is only the parent's, and a start that named it
		// failed now and then with EACCES while other uploads and starts ran at once. The
		// program keeps that descriptor (sealed: it cannot change its own image).
		extra = append(append([]*os.File(nil), extra...), spec.Exe)
		path = "/proc/self/fd/" + strconv.Itoa(2+len(extra))
	}
	if path == "" {
		return nil, errors.New("process: no program to run")
	}
	argv0 := spec.Argv0
	if argv0 == "" {
		argv0 = spec.Path
		if spec.Exe != nil {
			argv0 = spec.Exe.Name()
		}
	}
	cmd := &exec.Cmd{
		Path:       path,
		Args:       append([]string{argv0}, spec.Args...),
		Env:        spec.Env,
		Dir:        spec.Dir,
		Stdin:      spec.Stdin,
		ExtraFiles: extra,
		SysProcAttr: &syscall.SysProcAttr{
			Setpgid: true,
		},
	}
	if !spec.NoDeathSignal {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}

	var writers []*os.File
	closeAll := func() {
		for _, f := range writers {
			f.Close()
		}
		for _, op := range p.pipes {
			op.r.Close()
		}
	}
	streams := []Stream{Stdout}
	if !spec.MergeOutput {
		streams = append(streams, Stderr)
	}
	for _, stream := range streams {
		var dst func([]byte)
		if spec.OnOutput != nil {
			dst = func(b []byte) { spec.OnOutput(stream, b) }
		}
		op, w, err := newOutPipe(&p.outMu, dst)
		if err != nil {
			closeAll()
			return nil, err
		}
		p.pipes, writers = append(p.pipes, op), append(writers, w)
	}
	cmd.Stdout, cmd.Stderr = writers[0], writers[len(writers)-1]
	if spec.Stdout != nil {
		cmd.Stdout = spec.Stdout
	}
	var guard *guard
	if !spec.NoDeathSignal {
		guard = startGuard()
	}
	if err := cmd.Start(); err != nil {
		closeAll()
		return nil, fmt.Errorf("process: start %s: %w", argv0, err)
	}
	if spec.Exe != nil {
		// Keep the executable open until the child has exec'd (cmd.Start returns after it).
		_ = spec.Exe.Fd()
	}
	for _, w := range writers {
		w.Close()
	}
	p.pid = cmd.Process.Pid
	p.unguard = guard.add(p.pid)
	for _, op := range p.pipes {
		go op.run()
	}
	go p.supervise()
	return p, nil
}

// Pid returns the process id of the program's main process, which is also its process
// group id.
func (p *Process) Pid() int { return p.pid }

// Done is closed once the program has ended: its main process exited, the rest of its
// process group was killed, its output was read to the end and it was reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait blocks until the program has ended (see Done) and returns how it ended.
func (p *Process) Wait() Status {
	<-p.done
	return p.status
}

// Status returns how the program ended, and false while it still runs.
func (p *Process) Status() (Status, bool) {
	select {
	case <-p.done:
		return p.status, true
	default:
		return Status{}, false
	}
}

// Signal sends sig to every process in the program's process group. It returns
// ErrNotRunning once the program has been reaped (the group id may then belong to someone
// else).
func (p *Process) Signal(sig syscall.Signal) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.reaped {
		return ErrNotRunning
	}
	if err := unix.Kill(-p.pid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("process: signal group %d: %w", p.pid, err)
	}
	return nil
}

// Stop asks the program to end: SIGTERM to its process group, then SIGKILL to the group if
// it has not ended after grace. It returns once the program has ended.
func (p *Process) Stop(grace time.Duration) Status {
	if err := p.Signal(syscall.SIGTERM); err == nil {
		t := time.NewTimer(grace)
		defer t.Stop()
		select {
		case <-p.done:
			return p.status
		case <-t.C:
		}
	}
	return p.Kill()
}

// Kill ends the program and its whole process group with SIGKILL and returns once it has
// ended.
func (p *Process) Kill() Status {
	_ = p.Signal(syscall.SIGKILL)
	return p.Wait()
}

// SignalGroup sends sig to the process group pgid (which the caller must know to be alive,
// for example the group of a program started by a helper such as gdbserver). A group that
// no longer exists is not an error.
func SignalGroup(pgid int, sig syscall.Signal) error {
	if pgid <= 1 {
		return fmt.Errorf("process: refusing to signal process group %d", pgid)
	}
	if err := unix.Kill(-pgid, sig); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("process: signal group %d: %w", pgid, err)
	}
	return nil
}

// Drain delivers to OnOutput, at once, every byte the program has written so far that is
// still in its pipes. After the program (or a debugged program sharing the pipes) has
// ended, everything it printed has been delivered when Drain returns.
func (p *Process) Drain() {
	for _, op := range p.pipes {
		op.drain()
	}
}

// supervise waits for the main process to exit without reaping it, kills what is left of
// its group while the zombie still holds the group id, reaps it, and drains the output.
func (p *Process) supervise() {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil || !errors.Is(err, unix.EINTR) {
			break
		}
	}
	p.mu.Lock()
	_ = unix.Kill(-p.pid, unix.SIGKILL)
	p.unguard()      // while the zombie still holds the group id
	_ = p.cmd.Wait() // reaps; an exit code != 0 is reported as an error here, read below
	p.reaped = true
	p.mu.Unlock()

	st := Status{Code: -1}
	if ps := p.cmd.ProcessState; ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			st.Signal = ws.Signal()
		} else {
			st.Code = ps.ExitCode()
		}
	}
	deadline := time.Now().Add(outputDrainTimeout)
	for _, op := range p.pipes {
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-op.done:
		case <-t.C:
		}
		t.Stop()
		op.r.Close() // ends run if a descendant that left the group still holds the pipe
		<-op.done
	}
	p.status = st
	close(p.done)
}

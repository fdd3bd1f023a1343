package lantern

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/polydbg/polydbg/backend/process"
)

// Session states, as the original names them.
const (
	StateLoaded    = "LOADED"
	StateRunning   = "RUNNING"
	StateDebugging = "DEBUGGING"
	StateStopped   = "STOPPED"
	StateDeleted   = "DELETED"
)

// session is one uploaded program (a memfd) or bundle (a private directory), with what it
// needs to start and what is known of its last run.
type session struct {
	id      string
	seq     uint64
	created time.Time
	srv     *Server

	// Fixed at upload.
	bundle   bool
	execPath string   // bundle: the executable, relative to dir
	dir      string   // bundle: the unpacked archive; else ""
	exe      *os.File // single binary: the sealed memfd
	size     int64    // bytes uploaded
	held     int64    // bytes of the budget this session holds

	out *process.Ring

	saveMu sync.Mutex // serializes writes of the session's state files

	mu      sync.Mutex
	args    string
	env     map[string]string
	state   string
	run     *run
	exit    *process.Status
	ended   string // why the last run ended when the program did not end it by itself
	deleted bool
}

// run is one START of a session, with the gdbserver processes debugging it.
type run struct {
	proc      *process.Process // the program, or gdbserver running it (START --debug)
	inferior  int              // START --debug: the program's pid (its own process group)
	unguard   func()           // releases the inferior's group from process.Guard
	attach    *process.Process // DEBUG: gdbserver attached to the program
	port      int              // the debug port in use, 0 if none
	endReason string           // set before the daemon ends the run itself
	ended     chan struct{}    // closed once the session shows the run as ended
}

func (ss *session) view() Session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.viewLocked()
}

func (ss *session) viewLocked() Session {
	v := Session{ID: ss.id, State: ss.state, Bundle: ss.bundle, ExecPath: ss.execPath, Args: ss.args, Size: ss.size, Ended: ss.ended}
	if len(ss.env) > 0 {
		v.Env = make(map[string]string, len(ss.env))
		for k, val := range ss.env {
			v.Env[k] = val
		}
	}
	if r := ss.run; r != nil {
		pid := r.proc.Pid()
		if r.inferior != 0 {
			pid = r.inferior
		}
		v.PID = &pid
		if r.port != 0 {
			port := r.port
			v.DebugPort = &port
		}
	}
	if ss.exit != nil {
		if ss.exit.Signaled() {
			v.Signal = ss.exit.SignalName()
		} else {
			code := ss.exit.Code
			v.ExitCode = &code
		}
	}
	return v
}

// output answers OUTPUT: the output from off on. offset is where the returned output
// really starts (later than asked when the ring dropped that part, and then trimmed is
// true); next is the offset to ask for next time. An incomplete UTF-8 sequence at the very
// end is held back until its last bytes arrive, so that JSON never mangles a character
// split across two answers; bytes that are not UTF-8 at all become U+FFFD.
func (ss *session) output(off int64) Output {
	data, from, total, trimmed := ss.out.ReadFrom(off)
	if n := incompleteUTF8Suffix(data); n > 0 {
		data = data[:len(data)-n]
	}
	return Output{ID: ss.id, Output: string(data), Offset: from, Total: total, Next: from + int64(len(data)), Trimmed: trimmed}
}

// incompleteUTF8Suffix returns the length of a UTF-8 sequence cut short at the end of b.
func incompleteUTF8Suffix(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			need := 0
			switch {
			case c&0xE0 == 0xC0:
				need = 2
			case c&0xF0 == 0xE0:
				need = 3
			case c&0xF8 == 0xF0:
				need = 4
			}
			if need > i {
				return i
			}
			return 0
		}
	}
	return 0
}

// environ merges the session's variables into the daemon's environment.
func (ss *session) environ() []string {
	env := os.Environ()
	if len(ss.env) == 0 {
		return env
	}
	seen := map[string]bool{}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := ss.env[k]; ok {
			if !seen[k] {
				out = append(out, k+"="+v)
				seen[k] = true
			}
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(ss.env))
	for k := range ss.env {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+ss.env[k])
	}
	return out
}

// programSpec says how to run the session's program (possibly as gdbserver's argument).
func (ss *session) programSpec() process.Spec {
	spec := process.Spec{Env: ss.environ(), Args: strings.Fields(ss.args), OnOutput: ss.onOutput, MergeOutput: true}
	if ss.bundle {
		spec.Path = filepath.Join(ss.dir, filepath.FromSlash(ss.execPath))
		spec.Dir = ss.dir
	} else {
		spec.Exe = ss.exe
		spec.Argv0 = ss.id
	}
	return spec
}

func (ss *session) onOutput(_ process.Stream, p []byte) { ss.out.Write(p) }

func (s *Server) start(id string, debug bool) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	if ss.deleted {
		ss.mu.Unlock()
		return nil, perr("not_found", "session not found")
	}
	if ss.run != nil {
		ss.mu.Unlock()
		return nil, perr("already_running", "session is already running (pid %d)", ss.run.proc.Pid())
	}
	spec := ss.programSpec()
	r := &run{ended: make(chan struct{})}
	if debug {
		port, err := s.takePort()
		if err != nil {
			ss.mu.Unlock()
			return nil, err
		}
		gdbserver, err := exec.LookPath(s.cfg.Gdbserver)
		if err != nil {
			s.putPort(port)
			ss.mu.Unlock()
			return nil, perr("fork_failed", "gdbserver is not installed (see DEPS): %v", err)
		}
		gs := process.Spec{Path: gdbserver, MergeOutput: true, Env: spec.Env, Dir: spec.Dir, OnOutput: ss.onOutput}
		prog := spec.Path
		if spec.Exe != nil {
			gs.ExtraFiles = []*os.File{spec.Exe}
			prog = "/proc/self/fd/3"
		}
		gs.Args = append([]string{"--no-startup-with-shell", net.JoinHostPort(s.debugHost(), strconv.Itoa(port)), prog}, spec.Args...)
		h, err := startGdbserver(gs)
		if err != nil {
			s.putPort(port)
			ss.mu.Unlock()
			return nil, err
		}
		r.proc, r.port = h.Process, port
		// gdbserver runs the program in a process group of its own: guard it too.
		r.inferior = process.GdbserverInferior(h.Announced())
		r.unguard = process.Guard(r.inferior)
	} else {
		p, err := process.Start(spec)
		if err != nil {
			ss.mu.Unlock()
			return nil, perr("fork_failed", "starting the program: %v", err)
		}
		r.proc = p
	}
	ss.run, ss.exit, ss.ended = r, nil, ""
	ss.state = StateRunning
	if debug {
		ss.state = StateDebugging
	}
	v := ss.viewLocked()
	ss.mu.Unlock()
	s.persist(ss)
	go s.watch(ss, r)
	return v, nil
}

// startGdbserver starts gdbserver with the one spawner of helper processes and returns
// once it listens, or a fork_failed error.
func startGdbserver(spec process.Spec) (*process.Helper, error) {
	h, err := process.StartHelper(context.Background(), process.HelperSpec{
		Spec: spec, Name: "gdbserver", Ready: process.GdbserverListening, Timeout: gdbserverTimeout,
	})
	if err != nil {
		return nil, perr("fork_failed", "%v", err)
	}
	return h, nil
}

// watch records the end of a run: the program (or gdbserver running it) ended, so what is
// left of the run goes too and the session shows how it ended.
func (s *Server) watch(ss *session, r *run) {
	<-r.proc.Done()
	st := r.proc.Wait()
	ss.mu.Lock()
	attach := r.attach
	ss.mu.Unlock()
	if attach != nil {
		attach.Kill()
	}
	if r.inferior != 0 {
		// The program under gdbserver is in its own group; gdbserver's death killed it
		// (PTRACE_O_EXITKILL), this ends what it started.
		process.SignalGroup(r.inferior, syscall.SIGKILL)
		r.unguard()
	}
	ss.mu.Lock()
	if ss.run == r {
		ss.run = nil
		ss.exit = &st
		ss.ended = r.endReason
		ss.state = StateStopped
	}
	port := r.port
	r.port = 0
	ss.mu.Unlock()
	if port != 0 {
		s.putPort(port)
	}
	s.persist(ss)
	close(r.ended)
}

// stop answers STOP and KILL.
func (s *Server) stop(id string, kill bool) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	if !s.endRun(ss, "", kill) {
		return nil, perr("not_running", "session is not running")
	}
	return ss.view(), nil
}

// endRun ends the session's run if it has one (SIGTERM then SIGKILL after the grace period,
// or SIGKILL at once), and returns once the session shows it ended.
func (s *Server) endRun(ss *session, reason string, kill bool) bool {
	ss.mu.Lock()
	r := ss.run
	if r == nil {
		ss.mu.Unlock()
		return false
	}
	if reason != "" {
		r.endReason = reason
	}
	attach := r.attach
	ss.mu.Unlock()
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
		r.proc.Stop(s.cfg.StopGrace)
	}
	<-r.ended
	return true
}

// debug answers DEBUG: gdbserver attaches to the running program.
func (s *Server) debug(id string) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	r := ss.run
	switch {
	case r == nil:
		return nil, perr("not_running", "DEBUG needs a RUNNING session; START it first")
	case ss.state == StateDebugging:
		return nil, perr("already_running", "session is already being debugged on port %d", r.port)
	}
	gdbserver, err := exec.LookPath(s.cfg.Gdbserver)
	if err != nil {
		return nil, perr("fork_failed", "gdbserver is not installed (see DEPS): %v", err)
	}
	port, err := s.takePort()
	if err != nil {
		return nil, err
	}
	h, err := startGdbserver(process.Spec{
		Path:        gdbserver,
		MergeOutput: true,
		Args:        []string{"--attach", net.JoinHostPort(s.debugHost(), strconv.Itoa(port)), strconv.Itoa(r.proc.Pid())},
		OnOutput:    ss.onOutput,
	})
	if err != nil {
		s.putPort(port)
		return nil, err
	}
	p := h.Process
	r.attach, r.port = p, port
	ss.state = StateDebugging
	go func() {
		// When the debugger is done (gdb detached or killed the program), the session is
		// a plain running session again.
		<-p.Done()
		ss.mu.Lock()
		released := 0
		if ss.run == r && r.attach == p {
			r.attach = nil
			released, r.port = r.port, 0
			ss.state = StateRunning
		}
		ss.mu.Unlock()
		if released != 0 {
			s.putPort(released)
		}
	}()
	return ss.viewLocked(), nil
}

func (s *Server) delete(id string) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	ss.mu.Lock()
	if ss.run != nil {
		ss.mu.Unlock()
		return nil, perr("session_running", "STOP or KILL the session before deleting it")
	}
	ss.deleted = true
	ss.mu.Unlock()
	s.mu.Lock()
	delete(s.sessions, id)
	s.mu.Unlock()
	ss.release()
	return map[string]string{"id": id, "state": StateDeleted}, nil
}

// release frees everything the session holds: its memfd, its files and its budget.
func (ss *session) release() {
	ss.saveMu.Lock()
	defer ss.saveMu.Unlock()
	ss.closeFiles()
	if ss.dir != "" {
		os.RemoveAll(ss.dir)
	}
	if d := ss.srv.sessionDir(ss.id); d != "" {
		os.RemoveAll(d)
	}
	ss.srv.giveBytes(ss.held)
	ss.held = 0
}

func (ss *session) closeFiles() {
	if ss.exe != nil {
		ss.exe.Close()
	}
}

func (s *Server) debugHost() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.DebugHost == "" {
		return "127.0.0.1"
	}
	return s.cfg.DebugHost
}

// takePort picks a free debug port of the range: one no session uses and that can be bound.
func (s *Server) takePort() (int, error) {
	host := s.debugHost()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := process.FreePort(host, s.cfg.DebugPortMin, s.cfg.DebugPortMax, func(p int) bool { return s.ports[p] })
	if err != nil {
		return 0, perr("no_debug_port", "no free debug port in %d-%d", s.cfg.DebugPortMin, s.cfg.DebugPortMax)
	}
	s.ports[p] = true
	return p, nil
}

func (s *Server) putPort(p int) {
	s.mu.Lock()
	delete(s.ports, p)
	s.mu.Unlock()
}

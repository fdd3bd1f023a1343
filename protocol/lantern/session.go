package lantern

// The session commands, translated to the supervisor of launch/supervise, and their answers.

import (
	"errors"
	"os"

	"github.com/polydbg/polydbg/internal/tarball"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch/supervise"
)

// Session states, as the original names them.
const (
	StateLoaded    = supervise.Loaded
	StateRunning   = supervise.Running
	StateDebugging = supervise.Debugging
	StateStopped   = supervise.Stopped
	StateDeleted   = "DELETED"
)

// view is a program's session JSON.
func view(p *supervise.Program) Session {
	return viewOf(p, p.Snapshot())
}

func viewOf(p *supervise.Program, v supervise.Snapshot) Session {
	s := Session{ID: p.ID, State: v.State, Bundle: p.Bundle, ExecPath: p.ExecPath, Args: v.Args, Env: v.Env,
		Size: p.Size, ExitCode: v.ExitCode, Signal: v.Signal, Ended: v.Ended}
	if v.PID != 0 {
		s.PID = &v.PID
	}
	if v.Port != 0 {
		s.DebugPort = &v.Port
	}
	return s
}

// answer turns a supervisor's answer into the protocol's: the session, or the error form.
func answer(p *supervise.Program, v supervise.Snapshot, err error) (any, error) {
	if err == nil {
		return viewOf(p, v), nil
	}
	if errors.Is(err, supervise.ErrGone) {
		return nil, perr("not_found", "session not found")
	}
	for _, c := range []struct {
		err           error
		code, subject string
	}{
		{supervise.ErrRunning, "already_running", "session "}, {supervise.ErrDebugging, "already_running", "session "},
		{supervise.ErrNotRunning, "not_running", "session "}, {supervise.ErrNoPort, "no_debug_port", ""},
		{supervise.ErrStart, "fork_failed", ""},
	} {
		if errors.Is(err, c.err) {
			return nil, perr(c.code, "%s%v", c.subject, err)
		}
	}
	return nil, err
}

// output answers OUTPUT: the output from off on. offset is where the returned output
// really starts (later than asked when the ring dropped that part, and then trimmed is
// true); next is the offset to ask for next time. An incomplete UTF-8 sequence at the very
// end is held back until its last bytes arrive, so that JSON never mangles a character
// split across two answers; bytes that are not UTF-8 at all become U+FFFD.
func output(p *supervise.Program, off int64) Output {
	data, from, total, trimmed := p.Output(off)
	data = wire.WholeRunes(data)
	return Output{ID: p.ID, Output: string(data), Offset: from, Total: total, Next: from + int64(len(data)), Trimmed: trimmed}
}

// stop answers STOP and KILL.
func (s *Server) stop(p *supervise.Program, kill bool) (any, error) {
	if !p.End("", kill) {
		return nil, perr("not_running", "session is not running")
	}
	return view(p), nil
}

// debug answers DEBUG: gdbserver attaches to the running program.
func (s *Server) debug(p *supervise.Program) (any, error) {
	v, err := p.Attach()
	if errors.Is(err, supervise.ErrNotRunning) {
		return nil, perr("not_running", "DEBUG needs a RUNNING session; START it first")
	}
	return answer(p, v, err)
}

func (s *Server) delete(p *supervise.Program) (any, error) {
	if err := s.progs.Delete(p); err != nil {
		return nil, perr("session_running", "STOP or KILL the session before deleting it")
	}
	return map[string]string{"id": p.ID, "state": StateDeleted}, nil
}

// deps answers DEPS: what this host has of what the daemon uses.
func (s *Server) deps() map[string]any {
	list := []Dep{
		{"gdbserver", "GDB's remote server: START --debug and DEBUG run it", s.sup.GdbserverInstalled(), true},
		{"memfd_create", "Linux in-memory files: uploaded binaries run without touching the disk", supervise.MemfdSupported(), true},
		{"ptrace_attach", "permission to attach a debugger to a running program (DEBUG); see /proc/sys/kernel/yama/ptrace_scope", supervise.PtraceAttachAllowed(), false},
	}
	all := true
	for _, d := range list {
		if d.Required && !d.Available {
			all = false
		}
	}
	return map[string]any{"deps": list, "all_satisfied": all}
}

// sysroot answers SYSROOT: an archive of the host's libraries, one at a time.
func (s *Server) sysroot(cmd command) (*os.File, int64, error) {
	if len(cmd.args) != 0 {
		return nil, 0, perr("invalid_arguments", "SYSROOT takes no arguments")
	}
	s.sysrootMu.Lock() // one archive at a time: each can be large
	defer s.sysrootMu.Unlock()
	f, size, err := tarball.BuildSysroot(s.sup.TempDir(), s.cfg.SysrootRoot, s.cfg.SysrootDirs, s.cfg.SysrootAll)
	switch {
	case errors.Is(err, tarball.ErrTempFile):
		return nil, 0, perr("sysroot_tmpfile_failed", "%v", err)
	case errors.Is(err, tarball.ErrNoLibs):
		return nil, 0, perr("sysroot_no_libs", "%v", err)
	case err != nil:
		return nil, 0, perr("sysroot_tar_failed", "%v", err)
	}
	return f, size, nil
}

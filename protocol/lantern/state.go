package lantern

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/polydbg/polydbg/backend/process"
)

// savedSession is a session as kept in the state directory (session.json).
type savedSession struct {
	ID        string            `json:"id"`
	Seq       uint64            `json:"seq"`
	Created   time.Time         `json:"created"`
	Bundle    bool              `json:"bundle,omitempty"`
	ExecPath  string            `json:"exec_path,omitempty"`
	BundleDir string            `json:"bundle_dir,omitempty"` // relative to the session's directory
	Size      int64             `json:"size"`
	Held      int64             `json:"held"`
	Args      string            `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	State     string            `json:"state"`
	PID       int               `json:"pid,omitempty"`
	PIDStart  string            `json:"pid_start,omitempty"` // /proc start time, to recognize the process
	ExitCode  *int              `json:"exit_code,omitempty"`
	Signal    int               `json:"signal,omitempty"`
	Ended     string            `json:"ended,omitempty"`
}

const (
	metaFile    = "session.json"
	programFile = "program"
)

// sessionDir is the session's directory in the state directory, or "" without one.
func (s *Server) sessionDir(id string) string {
	if s.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(s.cfg.StateDir, "sessions", id)
}

// saveNew writes a freshly uploaded session: its binary (a single ELF is kept in memory
// otherwise) and its metadata.
func (s *Server) saveNew(ss *session) error {
	dir := s.sessionDir(ss.id)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if ss.exe != nil {
		if err := writeAtomic(filepath.Join(dir, programFile), io.NewSectionReader(ss.exe, 0, ss.size)); err != nil {
			return err
		}
	}
	return s.save(ss)
}

// persist writes the session's metadata if there is a state directory; a failure is logged
// (the session goes on in memory).
func (s *Server) persist(ss *session) {
	if s.cfg.StateDir == "" {
		return
	}
	if err := s.save(ss); err != nil {
		s.log.Warn("lantern: saving session state", "id", ss.id, "err", err)
	}
}

func (s *Server) save(ss *session) error {
	ss.saveMu.Lock()
	defer ss.saveMu.Unlock()
	ss.mu.Lock()
	if ss.deleted {
		ss.mu.Unlock()
		return nil
	}
	m := savedSession{ID: ss.id, Seq: ss.seq, Created: ss.created, Bundle: ss.bundle, ExecPath: ss.execPath,
		Size: ss.size, Held: ss.held, Args: ss.args, Env: ss.env, State: ss.state, Ended: ss.ended}
	if ss.dir != "" {
		m.BundleDir = filepath.Base(ss.dir)
	}
	if r := ss.run; r != nil {
		m.PID = r.proc.Pid()
		m.PIDStart = procStartTime(m.PID)
	}
	if ss.exit != nil {
		if ss.exit.Signaled() {
			m.Signal = int(ss.exit.Signal)
		} else {
			code := ss.exit.Code
			m.ExitCode = &code
		}
	}
	b, err := json.Marshal(m)
	ss.mu.Unlock()
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(s.sessionDir(ss.id), metaFile), strings.NewReader(string(b)+"\n"))
}

// writeAtomic replaces path with what r yields: a temporary file in the same directory,
// synced, then renamed over path, then the directory synced, so a crash leaves the old or
// the new content and never a mix.
func writeAtomic(path string, r io.Reader) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// load brings back the sessions of the state directory. A session whose program was
// running when the daemon went away is reported as ended (ended "daemon_restarted"), and
// if that program is somehow still alive its process group is killed, since nothing
// supervises it any more. Incomplete uploads are removed.
func (s *Server) load() error {
	base := filepath.Join(s.cfg.StateDir, "sessions")
	ents, err := os.ReadDir(base)
	if err != nil {
		return fmt.Errorf("lantern: reading state: %w", err)
	}
	for _, e := range ents {
		dir := filepath.Join(base, e.Name())
		ss, err := s.loadOne(dir)
		if err != nil {
			s.log.Warn("lantern: dropping unreadable session state", "dir", dir, "err", err)
			os.RemoveAll(dir)
			continue
		}
		s.sessions[ss.id] = ss
		s.bytes += ss.held
		s.seq = max(s.seq, ss.seq)
		if ss.ended == "daemon_restarted" {
			s.persist(ss)
		}
	}
	return nil
}

func (s *Server) loadOne(dir string) (*session, error) {
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if err != nil {
		return nil, err
	}
	var m savedSession
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m.ID != filepath.Base(dir) {
		return nil, fmt.Errorf("session id %q does not match its directory", m.ID)
	}
	ss := &session{id: m.ID, seq: m.Seq, created: m.Created, srv: s, bundle: m.Bundle, execPath: m.ExecPath,
		size: m.Size, held: m.Held, args: m.Args, env: m.Env, state: m.State, ended: m.Ended,
		out: process.NewRing(s.cfg.OutputSize)}
	if m.Bundle {
		if m.BundleDir == "" || strings.ContainsAny(m.BundleDir, "/\\") {
			return nil, fmt.Errorf("bad bundle directory %q", m.BundleDir)
		}
		ss.dir = filepath.Join(dir, m.BundleDir)
		if _, err := os.Stat(filepath.Join(ss.dir, filepath.FromSlash(m.ExecPath))); err != nil {
			return nil, err
		}
	} else {
		src, err := os.Open(filepath.Join(dir, programFile))
		if err != nil {
			return nil, err
		}
		defer src.Close()
		f, err := process.NewMemfd("lantern-" + m.ID)
		if err != nil {
			return nil, err
		}
		if _, err := io.Copy(f, src); err != nil {
			f.Close()
			return nil, err
		}
		if err := process.Seal(f); err != nil {
			f.Close()
			return nil, err
		}
		ss.exe = f
	}
	if m.ExitCode != nil {
		ss.exit = &process.Status{Code: *m.ExitCode}
	} else if m.Signal != 0 {
		ss.exit = &process.Status{Code: -1, Signal: syscall.Signal(m.Signal)}
	}
	if m.State == StateRunning || m.State == StateDebugging {
		if m.PID > 0 && m.PIDStart != "" && procStartTime(m.PID) == m.PIDStart {
			process.SignalGroup(m.PID, syscall.SIGKILL)
		}
		ss.state, ss.ended, ss.exit = StateStopped, "daemon_restarted", nil
	}
	switch ss.state {
	case StateLoaded, StateStopped:
	default:
		return nil, fmt.Errorf("unknown state %q", ss.state)
	}
	return ss, nil
}

// procStartTime returns a process's start time from /proc (field 22 of stat), which with
// the pid identifies a process even after the pid has been reused.
func procStartTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19] // fields after ")" start at field 3
}

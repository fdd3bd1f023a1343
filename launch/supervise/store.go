package supervise

// Programs kept in the state directory: one directory per program, with its metadata
// (session.json), its binary (program) or its unpacked bundle.

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
	"github.com/polydbg/polydbg/internal/upload"
)

// saved is a program as kept in the state directory.
type saved struct {
	ID        string            `json:"id"`
	Seq       uint64            `json:"seq"`
	Created   time.Time         `json:"created"`
	Bundle    bool              `json:"bundle,omitempty"`
	ExecPath  string            `json:"exec_path,omitempty"`
	BundleDir string            `json:"bundle_dir,omitempty"` // relative to the program's directory
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

// The files of a program's directory.
const (
	MetaFile    = "session.json"
	ProgramFile = "program"
)

// programDir is the program's directory in the state directory, or "" without one.
func (s *Supervisor) programDir(id string) string {
	if s.cfg.StateDir == "" {
		return ""
	}
	return filepath.Join(s.cfg.StateDir, "sessions", id)
}

// BundleBase is where the bundle of program id is unpacked: its directory in the state
// directory when there is one (so it survives a restart), else the system's temporary
// directory.
func (s *Supervisor) BundleBase(id string) string {
	if d := s.programDir(id); d != "" {
		if os.MkdirAll(d, 0o700) == nil {
			return d
		}
	}
	return os.TempDir()
}

// SaveNew keeps a freshly uploaded program: its binary (a single ELF is kept in memory
// otherwise) and its metadata. Without a state directory it does nothing.
func (p *Program) SaveNew() error {
	dir := p.sup.programDir(p.ID)
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if p.Exe != nil {
		if err := writeAtomic(filepath.Join(dir, ProgramFile), io.NewSectionReader(p.Exe, 0, p.Size)); err != nil {
			return err
		}
	}
	return p.save()
}

// persist writes the program's metadata if there is a state directory; a failure is
// logged (the program goes on in memory).
func (p *Program) persist() {
	if p.sup.cfg.StateDir == "" {
		return
	}
	if err := p.save(); err != nil {
		p.sup.cfg.Logger.Warn("supervise: saving program state", "id", p.ID, "err", err)
	}
}

func (p *Program) save() error {
	p.saveMu.Lock()
	defer p.saveMu.Unlock()
	p.mu.Lock()
	if p.deleted {
		p.mu.Unlock()
		return nil
	}
	m := saved{ID: p.ID, Seq: p.Seq, Created: p.Created, Bundle: p.Bundle, ExecPath: p.ExecPath,
		Size: p.Size, Held: p.Held, Args: p.args, Env: p.env, State: p.state, Ended: p.ended}
	if p.Dir != "" {
		m.BundleDir = filepath.Base(p.Dir)
	}
	if r := p.run; r != nil {
		m.PID = r.proc.Pid()
		m.PIDStart = ProcStartTime(m.PID)
	}
	if p.exit != nil {
		if p.exit.Signaled() {
			m.Signal = int(p.exit.Signal)
		} else {
			code := p.exit.Code
			m.ExitCode = &code
		}
	}
	b, err := json.Marshal(m)
	p.mu.Unlock()
	if err != nil {
		return err
	}
	return writeAtomic(filepath.Join(p.sup.programDir(p.ID), MetaFile), strings.NewReader(string(b)+"\n"))
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

// Load brings back the programs of the state directory. A program that was running when
// the daemon went away is reported as ended (ended "daemon_restarted"), and if it is
// somehow still alive its process group is killed, since nothing supervises it any more.
// Unreadable directories (incomplete uploads) are removed.
func (s *Supervisor) Load() ([]*Program, error) {
	if s.cfg.StateDir == "" {
		return nil, nil
	}
	base := filepath.Join(s.cfg.StateDir, "sessions")
	ents, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("reading state: %w", err)
	}
	var list []*Program
	for _, e := range ents {
		dir := filepath.Join(base, e.Name())
		p, err := s.loadOne(dir)
		if err != nil {
			s.cfg.Logger.Warn("supervise: dropping unreadable program state", "dir", dir, "err", err)
			os.RemoveAll(dir)
			continue
		}
		if p.ended == "daemon_restarted" {
			p.persist()
		}
		list = append(list, p)
	}
	return list, nil
}

func (s *Supervisor) loadOne(dir string) (*Program, error) {
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return nil, err
	}
	var m saved
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m.ID != filepath.Base(dir) {
		return nil, fmt.Errorf("program id %q does not match its directory", m.ID)
	}
	p := s.NewProgram(m.ID, m.Seq)
	p.Created, p.Bundle, p.ExecPath, p.Size, p.Held = m.Created, m.Bundle, m.ExecPath, m.Size, m.Held
	p.args, p.env, p.state, p.ended = m.Args, m.Env, m.State, m.Ended
	if m.Bundle {
		if m.BundleDir == "" || strings.ContainsAny(m.BundleDir, "/\\") {
			return nil, fmt.Errorf("bad bundle directory %q", m.BundleDir)
		}
		p.Dir = filepath.Join(dir, m.BundleDir)
		if _, err := os.Stat(filepath.Join(p.Dir, filepath.FromSlash(m.ExecPath))); err != nil {
			return nil, err
		}
	} else if p.Exe, err = upload.LoadBinary("lantern-"+m.ID, filepath.Join(dir, ProgramFile)); err != nil {
		return nil, err
	}
	if m.ExitCode != nil {
		p.exit = &process.Status{Code: *m.ExitCode}
	} else if m.Signal != 0 {
		p.exit = &process.Status{Code: -1, Signal: syscall.Signal(m.Signal)}
	}
	if m.State == Running || m.State == Debugging {
		if m.PID > 0 && m.PIDStart != "" && ProcStartTime(m.PID) == m.PIDStart {
			process.SignalGroup(m.PID, syscall.SIGKILL)
		}
		p.state, p.ended, p.exit = Stopped, "daemon_restarted", nil
	}
	switch p.state {
	case Loaded, Stopped:
	default:
		p.closeFiles()
		return nil, fmt.Errorf("unknown state %q", p.state)
	}
	return p, nil
}

// ProcStartTime returns a process's start time from /proc (field 22 of stat), which with
// the pid identifies a process even after the pid has been reused.
func ProcStartTime(pid int) string {
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

// Package supervise keeps and runs the programs a daemon's clients uploaded (debuglantern's
// sessions): each Program is a sealed memfd or an unpacked bundle with its arguments,
// environment and output ring; a run starts it under plain supervision or under gdbserver,
// gdbserver can attach to it later, and its end is watched and recorded. Debug ports come
// from one pool, process groups are guarded so that nothing outlives the daemon, and the
// programs are kept in a state directory across restarts. Wire protocols translate their
// commands to it; it knows no protocol.
package supervise

import (
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/internal/ptracescope"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/process"
	"github.com/polydbg/polydbg/internal/memfd"
)

// States of a Program, as debuglantern names them.
const (
	Loaded    = "LOADED"
	Running   = "RUNNING"
	Debugging = "DEBUGGING"
	Stopped   = "STOPPED"
)

// Errors of the commands, for the callers' error codes (their text follows the subject:
// "session is already running").
var (
	ErrGone       = errors.New("deleted")
	ErrRunning    = errors.New("is already running")
	ErrNotRunning = errors.New("is not running")
	ErrDebugging  = errors.New("is already being debugged")
	ErrNoPort     = errors.New("no free debug port")
	ErrStart      = errors.New("cannot start") // the program or gdbserver could not start
)

// Config says where programs are kept and how they run. Zero fields take defaults.
type Config struct {
	// StateDir, when set, keeps programs (binaries, bundles, args, env) across restarts.
	StateDir string
	// OutputSize is the size of each program's output ring (256 KiB).
	OutputSize int
	// Gdbserver is the gdbserver program ("gdbserver" on PATH).
	Gdbserver string
	// DebugHost is the address gdbserver listens on (see SetDefaultHost; else 127.0.0.1).
	DebugHost string
	// PortMin and PortMax are the ports gdbserver may listen on.
	PortMin, PortMax int
	// StopGrace is how long End waits after SIGTERM before SIGKILL (3 s).
	StopGrace time.Duration
	// GdbserverTimeout bounds the wait for gdbserver to say it listens (10 s).
	GdbserverTimeout time.Duration
	// Logger receives warnings (failed state writes); by default slog.Default().
	Logger *slog.Logger
}

// Supervisor holds what the programs share: the configuration and the debug port pool.
type Supervisor struct {
	cfg   Config
	mu    sync.Mutex
	ports map[int]bool
}

// New returns a supervisor; with a StateDir, it creates it private (Load reads it).
func New(cfg Config) (*Supervisor, error) {
	if cfg.OutputSize <= 0 {
		cfg.OutputSize = 256 << 10
	}
	if cfg.Gdbserver == "" {
		cfg.Gdbserver = "gdbserver"
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 3 * time.Second
	}
	if cfg.GdbserverTimeout <= 0 {
		cfg.GdbserverTimeout = 10 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.StateDir != "" {
		if err := os.MkdirAll(filepath.Join(cfg.StateDir, "sessions"), 0o700); err != nil {
			return nil, err
		}
		if err := os.Chmod(cfg.StateDir, 0o700); err != nil {
			return nil, err
		}
	}
	return &Supervisor{cfg: cfg, ports: map[int]bool{}}, nil
}

// SetDefaultHost sets the address gdbserver listens on unless the configuration gave one.
func (s *Supervisor) SetDefaultHost(host string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.DebugHost == "" {
		s.cfg.DebugHost = host
	}
}

func (s *Supervisor) debugHost() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cfg.DebugHost == "" {
		return "127.0.0.1"
	}
	return s.cfg.DebugHost
}

// takePort picks a free debug port of the range: one no run uses and that can be bound.
func (s *Supervisor) takePort() (int, error) {
	host := s.debugHost()
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := process.FreePort(host, s.cfg.PortMin, s.cfg.PortMax, func(p int) bool { return s.ports[p] })
	if err != nil {
		return 0, fmt.Errorf("%w in %d-%d", ErrNoPort, s.cfg.PortMin, s.cfg.PortMax)
	}
	s.ports[p] = true
	return p, nil
}

func (s *Supervisor) putPort(p int) {
	s.mu.Lock()
	delete(s.ports, p)
	s.mu.Unlock()
}

// TempDir is where temporary files go: under the state directory when there is one.
func (s *Supervisor) TempDir() string {
	if s.cfg.StateDir != "" {
		d := filepath.Join(s.cfg.StateDir, "tmp")
		if os.MkdirAll(d, 0o700) == nil {
			return d
		}
	}
	return os.TempDir()
}

// Host capabilities, for a daemon's report of what it can do here.

// GdbserverInstalled reports whether the configured gdbserver can be found.
func (s *Supervisor) GdbserverInstalled() bool {
	_, err := exec.LookPath(s.cfg.Gdbserver)
	return err == nil
}

// MemfdSupported reports whether this kernel can hold programs in memfds (Linux 3.17+).
func MemfdSupported() bool { return memfd.Supported() }

// PtraceAttachAllowed reports whether gdbserver --attach can attach to a sibling process
// (ptracescope.AttachAllowed).
func PtraceAttachAllowed() bool { return ptracescope.AttachAllowed() }

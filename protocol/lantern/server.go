// Package lantern implements the debuglantern protocol (shared/protocols/debuglantern.md):
// a daemon that takes ELF binaries or tar.gz bundles over TCP, runs them, keeps their
// output, and starts gdbserver on request; and a Go client for it.
//
// The daemon is a process supervisor, not a debugger: this package only translates the
// protocol (command lines, authentication, limits, JSON answers); uploads are received by
// internal/upload, archives made and unpacked by internal/tarball, and the programs kept,
// run and watched by launch/supervise, which delegates debugging to gdbserver. Unlike the original it is safe by default: loopback only unless a token is
// required, bounded in every resource a client can make it spend, and it keeps no process
// or file behind when a session is deleted or the daemon stops.
package lantern

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/internal/tarball"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch/supervise"
)

// Defaults of Config, also used by `polydbg lantern serve`.
const (
	DefaultPort        = 4444
	DefaultMaxSessions = 32
	DefaultMaxBytes    = 512 << 20
	DefaultDebugPorts  = "5500-5699"
	DefaultOutputSize  = 256 << 10
	DefaultMaxLine     = 16 << 10
	DefaultMaxEntries  = 10000
	DefaultMaxConns    = 128
	DefaultStopGrace   = 3 * time.Second
	DefaultIdleTimeout = 15 * time.Minute
	// DefaultAuthTimeout is how long a connection may take to authenticate (with a token).
	DefaultAuthTimeout = 10 * time.Second
	// DefaultMaxPending bounds the connections waiting to authenticate.
	DefaultMaxPending = 16
)

// Config is the daemon's configuration. Zero fields take the defaults above.
type Config struct {
	// Token, when not empty, must be sent with AUTH before any other command.
	Token string
	// StateDir, when set, keeps sessions (binaries, bundles, args, env) across restarts.
	StateDir string
	// MaxSessions bounds the sessions (including uploads in progress).
	MaxSessions int
	// MaxBytes bounds the bytes all sessions hold: uploaded binaries and unpacked bundles.
	MaxBytes int64
	// DebugPortMin and DebugPortMax are the ports gdbserver may listen on.
	DebugPortMin, DebugPortMax int
	// DebugHost is the address gdbserver listens on; by default the host of the listener.
	DebugHost string
	// OutputSize is the size of each session's output ring.
	OutputSize int
	// MaxLine bounds a command line.
	MaxLine int
	// MaxEntries bounds the entries of a bundle.
	MaxEntries int
	// MaxConns bounds the connections served at once (with a token: the authenticated ones).
	MaxConns int
	// AuthTimeout is how long a connection has to send a valid AUTH when a token is set;
	// then it is closed. It is not renewed by other commands.
	AuthTimeout time.Duration
	// MaxPending bounds the connections that have not authenticated yet (with a token).
	// They do not take any of the MaxConns slots; when the quota is full, a new connection
	// replaces the oldest one waiting, so connections that never authenticate cannot keep
	// the owner out.
	MaxPending int
	// StopGrace is how long STOP waits after SIGTERM before SIGKILL.
	StopGrace time.Duration
	// IdleTimeout closes a connection that sends nothing for this long.
	IdleTimeout time.Duration
	// Gdbserver is the gdbserver program; by default "gdbserver" on PATH.
	Gdbserver string
	// SysrootRoot is the directory the sysroot directories are read below ("/").
	SysrootRoot string
	// SysrootDirs are the directories SYSROOT collects (tarball.DefaultSysrootDirs).
	SysrootDirs []string
	// SysrootAll puts every file of those directories in the archive, not only shared
	// objects and debug files.
	SysrootAll bool
	// Logger receives the daemon's log; by default slog.Default().
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.MaxSessions <= 0 {
		c.MaxSessions = DefaultMaxSessions
	}
	if c.MaxBytes <= 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.DebugPortMin <= 0 || c.DebugPortMax < c.DebugPortMin {
		c.DebugPortMin, c.DebugPortMax = 5500, 5699
	}
	if c.OutputSize <= 0 {
		c.OutputSize = DefaultOutputSize
	}
	if c.MaxLine <= 0 {
		c.MaxLine = DefaultMaxLine
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.MaxConns <= 0 {
		c.MaxConns = DefaultMaxConns
	}
	if c.StopGrace <= 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.AuthTimeout <= 0 {
		c.AuthTimeout = DefaultAuthTimeout
	}
	if c.MaxPending <= 0 {
		c.MaxPending = DefaultMaxPending
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Gdbserver == "" {
		c.Gdbserver = "gdbserver"
	}
	if len(c.SysrootDirs) == 0 {
		c.SysrootDirs = tarball.DefaultSysrootDirs
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// ParsePortRange parses "5500-5699" (or a single port).
func ParsePortRange(s string) (lo, hi int, err error) {
	a, b, found := strings.Cut(s, "-")
	if !found {
		b = a
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || hi < lo {
		return 0, 0, fmt.Errorf("invalid port range %q (want LOW-HIGH within 1-65535)", s)
	}
	return lo, hi, nil
}

// Server is the debuglantern daemon.
type Server struct {
	cfg Config
	log *slog.Logger

	sup   *supervise.Supervisor
	progs *supervise.Table // the sessions, within MaxSessions and MaxBytes

	sysrootMu sync.Mutex

	connMu sync.Mutex
	conns  map[net.Conn]*connState
	wg     sync.WaitGroup
}

// NewServer returns a daemon with the given configuration, loading the sessions kept in
// cfg.StateDir if there is one.
func NewServer(cfg Config) (*Server, error) {
	cfg.defaults()
	sup, err := supervise.New(supervise.Config{StateDir: cfg.StateDir, OutputSize: cfg.OutputSize, Gdbserver: cfg.Gdbserver,
		DebugHost: cfg.DebugHost, PortMin: cfg.DebugPortMin, PortMax: cfg.DebugPortMax, StopGrace: cfg.StopGrace, Logger: cfg.Logger})
	if err != nil {
		return nil, fmt.Errorf("lantern: state dir: %w", err)
	}
	kept, err := sup.Load()
	if err != nil {
		return nil, fmt.Errorf("lantern: %w", err)
	}
	return &Server{cfg: cfg, log: cfg.Logger, sup: sup, progs: supervise.NewTable(sup, cfg.MaxSessions, cfg.MaxBytes, kept),
		conns: map[net.Conn]*connState{}}, nil
}

// Serve accepts connections on ln until ctx is done or ln fails, then closes the
// connections it serves and waits for them. It does not end the sessions: Close does.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil {
		s.sup.SetDefaultHost(host)
	}
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var err error
	for {
		var c net.Conn
		c, err = ln.Accept()
		if err != nil {
			break
		}
		st, ok := s.admit(c)
		if !ok {
			writeJSON(c, errorBody("too_many_connections", "the daemon serves too many connections; try again later"))
			c.Close()
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serveConn(c, st)
			s.connMu.Lock()
			delete(s.conns, c)
			s.connMu.Unlock()
		}()
	}
	s.connMu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.connMu.Unlock()
	s.wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// connState is what the server knows of one connection.
type connState struct {
	authed  bool      // written by its own serveConn, under connMu
	evicted bool      // closed to make room (under connMu)
	since   time.Time // when it was accepted
}

// admit registers a new connection. Without a token every connection takes one of the
// MaxConns slots. With a token it waits to authenticate in the separate MaxPending quota:
// when that is full, the oldest waiting connection is closed to make room.
func (s *Server) admit(c net.Conn) (*connState, bool) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	st := &connState{authed: s.cfg.Token == "", since: time.Now()}
	if st.authed {
		if len(s.conns) >= s.cfg.MaxConns {
			return nil, false
		}
		s.conns[c] = st
		return st, true
	}
	pending := 0
	var oldest net.Conn
	for pc, ps := range s.conns {
		if !ps.authed && !ps.evicted {
			pending++
			if oldest == nil || ps.since.Before(s.conns[oldest].since) {
				oldest = pc
			}
		}
	}
	if pending >= s.cfg.MaxPending && oldest != nil {
		oldest.Close() // its serveConn ends and unregisters it
		s.conns[oldest].evicted = true
	}
	s.conns[c] = st
	return st, true
}

// authenticate moves a connection from the waiting quota to a MaxConns slot; false when
// every slot is taken.
func (s *Server) authenticate(c net.Conn, st *connState) bool {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	n := 0
	for _, cs := range s.conns {
		if cs.authed {
			n++
		}
	}
	if n >= s.cfg.MaxConns {
		return false
	}
	st.authed = true
	return true
}

// Close ends every session's processes and releases their resources. Sessions kept in a
// state directory stay there (reported as ended after a restart); without one, uploaded
// files go too.
func (s *Server) Close() error {
	s.progs.Close()
	return nil
}

// CheckListen enforces the daemon's rule for where it may listen: a loopback address is
// always fine; any other address needs a token (hasToken) or an explicit insecure opt-in,
// because whoever can connect can run any program as the daemon's user.
func CheckListen(addr string, hasToken, insecure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if hasToken || insecure {
		return nil
	}
	if wire.IsLoopbackHost(host) {
		return nil
	}
	return fmt.Errorf("listening on %q (not loopback) needs --token-file, or --insecure to allow anyone who can connect to run programs as this user", addr)
}

// Package lantern implements the debuglantern protocol (shared/protocols/debuglantern.md):
// a daemon that takes ELF binaries or tar.gz bundles over TCP, runs them, keeps their
// output, and starts gdbserver on request; and a Go client for it.
//
// The daemon is a process supervisor, not a debugger: programs run through target/process
// (own process group, output capture, memfd execution) and debugging is delegated to
// gdbserver. Unlike the original it is safe by default: loopback only unless a token is
// required, bounded in every resource a client can make it spend, and it keeps no process
// or file behind when a session is deleted or the daemon stops.
package lantern

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/target/process"
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
	// uploadChunk is how much of an upload must arrive within uploadChunkTimeout.
	uploadChunk        = 4 << 20
	uploadChunkTimeout = time.Minute
	// gdbserverTimeout bounds the wait for gdbserver to say it listens.
	gdbserverTimeout = 10 * time.Second
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
	// MaxConns bounds the connections served at once.
	MaxConns int
	// StopGrace is how long STOP waits after SIGTERM before SIGKILL.
	StopGrace time.Duration
	// IdleTimeout closes a connection that sends nothing for this long.
	IdleTimeout time.Duration
	// Gdbserver is the gdbserver program; by default "gdbserver" on PATH.
	Gdbserver string
	// SysrootRoot is the directory the sysroot directories are read below ("/").
	SysrootRoot string
	// SysrootDirs are the directories SYSROOT collects (DefaultSysrootDirs).
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
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.Gdbserver == "" {
		c.Gdbserver = "gdbserver"
	}
	if len(c.SysrootDirs) == 0 {
		c.SysrootDirs = DefaultSysrootDirs
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

	mu       sync.Mutex
	sessions map[string]*session
	seq      uint64
	pending  int   // uploads in progress (count against MaxSessions)
	bytes    int64 // bytes held or reserved (count against MaxBytes)
	ports    map[int]bool
	closed   bool

	sysrootMu sync.Mutex

	connMu sync.Mutex
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// NewServer returns a daemon with the given configuration, loading the sessions kept in
// cfg.StateDir if there is one.
func NewServer(cfg Config) (*Server, error) {
	cfg.defaults()
	s := &Server{
		cfg:      cfg,
		log:      cfg.Logger,
		sessions: map[string]*session{},
		ports:    map[int]bool{},
		conns:    map[net.Conn]struct{}{},
	}
	if cfg.StateDir != "" {
		if err := os.MkdirAll(filepath.Join(cfg.StateDir, "sessions"), 0o700); err != nil {
			return nil, fmt.Errorf("lantern: state dir: %w", err)
		}
		if err := os.Chmod(cfg.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("lantern: state dir: %w", err)
		}
		if err := s.load(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Serve accepts connections on ln until ctx is done or ln fails, then closes the
// connections it serves and waits for them. It does not end the sessions: Close does.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	if s.cfg.DebugHost == "" {
		if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil {
			s.mu.Lock()
			s.cfg.DebugHost = host
			s.mu.Unlock()
		}
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
		s.connMu.Lock()
		if len(s.conns) >= s.cfg.MaxConns {
			s.connMu.Unlock()
			writeJSON(c, errorBody("too_many_connections", "the daemon serves too many connections; try again later"))
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.connMu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serveConn(c)
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

// Close ends every session's processes and releases their resources. Sessions kept in a
// state directory stay there (reported as ended after a restart); without one, uploaded
// files go too.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	list := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, ss := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.endRun(ss, "daemon_stopped", false)
			if s.cfg.StateDir == "" {
				ss.release()
			} else {
				ss.closeFiles()
			}
		}()
	}
	wg.Wait()
	return nil
}

// protoError is an error answered in the protocol's error form.
type protoError struct {
	code, msg string
}

func (e *protoError) Error() string { return e.code + ": " + e.msg }

func perr(code, format string, a ...any) *protoError {
	return &protoError{code, fmt.Sprintf(format, a...)}
}

// errorBody is the document's error object.
func errorBody(code, msg string) map[string]any {
	return map[string]any{"ok": false, "error_code": code, "message": msg, "time": time.Now().UTC().Format(time.RFC3339)}
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// errClose asks serveConn to close the connection after answering.
type errClose struct{ *protoError }

// serveConn serves one connection: one command line, one answer, in order.
func (s *Server) serveConn(c net.Conn) {
	defer c.Close()
	br := bufio.NewReaderSize(c, 64<<10)
	authed := s.cfg.Token == ""
	for {
		c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		line, err := readLine(br, s.cfg.MaxLine)
		if errors.Is(err, errLineTooLong) {
			writeJSON(c, errorBody("line_too_long", fmt.Sprintf("command lines are limited to %d bytes", s.cfg.MaxLine)))
			return
		}
		if err != nil {
			return
		}
		cmd, err := parseCommand(line)
		if err != nil {
			writeJSON(c, errorBody("invalid_command", err.Error()))
			continue
		}
		if cmd.name == "" {
			continue // blank lines are ignored
		}
		c.SetReadDeadline(time.Time{})
		if !authed {
			if cmd.name == "AUTH" && len(cmd.args) == 1 &&
				subtle.ConstantTimeCompare([]byte(cmd.args[0]), []byte(s.cfg.Token)) == 1 {
				authed = true
				writeJSON(c, map[string]any{"ok": true})
				continue
			}
			writeJSON(c, errorBody("unauthorized", "send AUTH <token> first"))
			if cmd.name == "AUTH" || cmd.name == "UPLOAD" {
				// A wrong token ends the connection (no guessing at line rate); an
				// upload's payload cannot be told apart from commands.
				return
			}
			continue
		}
		var resp any
		var rerr error
		switch cmd.name {
		case "AUTH":
			resp = map[string]any{"ok": true}
		case "UPLOAD":
			resp, rerr = s.upload(c, br, cmd)
		case "SYSROOT":
			var f *os.File
			var size int64
			if f, size, rerr = s.sysroot(cmd); rerr == nil {
				_, err := fmt.Fprintf(c, "SYSROOT %d\n", size)
				if err == nil {
					_, err = io.CopyN(c, f, size)
				}
				f.Close()
				if err != nil {
					return
				}
				continue
			}
		default:
			resp, rerr = s.dispatch(cmd)
		}
		if rerr != nil {
			var ce errClose
			var pe *protoError
			switch {
			case errors.As(rerr, &ce):
				writeJSON(c, errorBody(ce.code, ce.msg))
				return
			case errors.As(rerr, &pe):
				if writeJSON(c, errorBody(pe.code, pe.msg)) != nil {
					return
				}
			default:
				s.log.Error("lantern: command failed", "command", cmd.name, "err", rerr)
				if writeJSON(c, errorBody("internal_error", rerr.Error())) != nil {
					return
				}
			}
			continue
		}
		if writeJSON(c, resp) != nil {
			return
		}
	}
}

// dispatch runs the commands that are one line in and one JSON value out.
func (s *Server) dispatch(cmd command) (any, error) {
	need := func(n int, usage string) error {
		if len(cmd.args) < n {
			return perr("invalid_arguments", "usage: %s", usage)
		}
		return nil
	}
	switch cmd.name {
	case "LIST":
		return s.list(), nil
	case "DEPS":
		return s.deps(), nil
	case "START":
		if err := need(1, "START <id> [--debug]"); err != nil {
			return nil, err
		}
		debug := false
		for _, a := range cmd.args[1:] {
			if a != "--debug" {
				return nil, perr("invalid_arguments", "unknown START option %q (only --debug)", a)
			}
			debug = true
		}
		return s.start(cmd.args[0], debug)
	case "ARGS":
		if err := need(1, "ARGS <id> <arg1 arg2 ...>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) {
			ss.mu.Lock()
			ss.args = cmd.rest(2)
			ss.mu.Unlock()
			s.persist(ss)
			return ss.view(), nil
		})
	case "ENV":
		if err := need(2, "ENV <id> <KEY=VALUE>"); err != nil {
			return nil, err
		}
		kv := cmd.rest(2)
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validEnvKey(k) {
			return nil, perr("invalid_env", "expected KEY=VALUE with KEY made of letters, digits and _, not starting with a digit; got %q", kv)
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) {
			ss.mu.Lock()
			if ss.env == nil {
				ss.env = map[string]string{}
			}
			ss.env[k] = v
			ss.mu.Unlock()
			s.persist(ss)
			return ss.view(), nil
		})
	case "ENVDEL":
		if err := need(2, "ENVDEL <id> <KEY>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) {
			ss.mu.Lock()
			delete(ss.env, cmd.args[1])
			ss.mu.Unlock()
			s.persist(ss)
			return ss.view(), nil
		})
	case "ENVLIST":
		if err := need(1, "ENVLIST <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) {
			ss.mu.Lock()
			defer ss.mu.Unlock()
			env := make(map[string]string, len(ss.env))
			for k, v := range ss.env {
				env[k] = v
			}
			return env, nil
		})
	case "STOP", "KILL":
		if err := need(1, cmd.name+" <id>"); err != nil {
			return nil, err
		}
		return s.stop(cmd.args[0], cmd.name == "KILL")
	case "DEBUG":
		if err := need(1, "DEBUG <id>"); err != nil {
			return nil, err
		}
		return s.debug(cmd.args[0])
	case "STATUS":
		if err := need(1, "STATUS <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) { return ss.view(), nil })
	case "DELETE":
		if err := need(1, "DELETE <id>"); err != nil {
			return nil, err
		}
		return s.delete(cmd.args[0])
	case "OUTPUT":
		if err := need(1, "OUTPUT <id> [<offset>]"); err != nil {
			return nil, err
		}
		var off int64
		if len(cmd.args) > 1 {
			var err error
			off, err = strconv.ParseInt(cmd.args[1], 10, 64)
			if err != nil || off < 0 {
				return nil, perr("invalid_offset", "offset must be a byte count >= 0, got %q", cmd.args[1])
			}
		}
		return s.withSession(cmd.args[0], func(ss *session) (any, error) { return ss.output(off), nil })
	}
	return nil, perr("unknown_command", "unknown command %q", cmd.name)
}

func validEnvKey(k string) bool {
	if k == "" || (k[0] >= '0' && k[0] <= '9') {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (s *Server) lookup(id string) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, perr("not_found", "session not found")
	}
	return ss, nil
}

func (s *Server) withSession(id string, f func(*session) (any, error)) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return f(ss)
}

func (s *Server) list() []sessionView {
	s.mu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].seq < list[j].seq })
	out := make([]sessionView, 0, len(list))
	for _, ss := range list {
		out = append(out, ss.view())
	}
	return out
}

// newID returns a fresh 8-hex-digit session id, as in the document ("a3f2c9d1").
func (s *Server) newID() string {
	for {
		var b [4]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if _, taken := s.sessions[id]; !taken {
			return id
		}
	}
}

// reserve takes one session slot and n bytes of the budget, or says which limit stops it.
func (s *Server) reserve(n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return perr("shutting_down", "the daemon is stopping")
	}
	if len(s.sessions)+s.pending >= s.cfg.MaxSessions {
		return perr("max_sessions_reached", "at most %d sessions; DELETE one first", s.cfg.MaxSessions)
	}
	if s.bytes+n > s.cfg.MaxBytes {
		return perr("max_total_bytes_reached", "uploads may hold at most %d bytes in all (%d in use)", s.cfg.MaxBytes, s.bytes)
	}
	s.pending++
	s.bytes += n
	return nil
}

// takeBytes grows a reservation; it fails when the budget would be exceeded.
func (s *Server) takeBytes(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+n > s.cfg.MaxBytes {
		return false
	}
	s.bytes += n
	return true
}

func (s *Server) giveBytes(n int64) {
	s.mu.Lock()
	s.bytes -= n
	s.mu.Unlock()
}

// deps answers DEPS: what this host has of what the daemon uses.
func (s *Server) deps() map[string]any {
	type dep struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Available   bool   `json:"available"`
		Required    bool   `json:"required"`
	}
	_, gdbErr := exec.LookPath(s.cfg.Gdbserver)
	list := []dep{
		{"gdbserver", "GDB's remote server: START --debug and DEBUG run it", gdbErr == nil, true},
		{"memfd_create", "Linux in-memory files: uploaded binaries run without touching the disk", process.MemfdSupported(), true},
		{"ptrace_attach", "permission to attach a debugger to a running program (DEBUG); see /proc/sys/kernel/yama/ptrace_scope", ptraceAttachAllowed(), false},
	}
	all := true
	for _, d := range list {
		if d.Required && !d.Available {
			all = false
		}
	}
	return map[string]any{"deps": list, "all_satisfied": all}
}

// ptraceAttachAllowed reports whether gdbserver --attach can attach to a sibling process:
// Yama's ptrace_scope 0 allows it for the same user, 1 and 2 only with CAP_SYS_PTRACE
// (approximated by root), 3 never.
func ptraceAttachAllowed() bool {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if err != nil {
		return true // no Yama: classic same-user rules
	}
	switch strings.TrimSpace(string(b)) {
	case "0":
		return true
	case "1", "2":
		return os.Geteuid() == 0
	}
	return false
}

func (s *Server) sysroot(cmd command) (*os.File, int64, error) {
	if len(cmd.args) != 0 {
		return nil, 0, perr("invalid_arguments", "SYSROOT takes no arguments")
	}
	s.sysrootMu.Lock() // one archive at a time: each can be large
	defer s.sysrootMu.Unlock()
	return buildSysroot(s.tmpDir(), s.cfg.SysrootRoot, s.cfg.SysrootDirs, s.cfg.SysrootAll)
}

func (s *Server) tmpDir() string {
	if s.cfg.StateDir != "" {
		d := filepath.Join(s.cfg.StateDir, "tmp")
		if os.MkdirAll(d, 0o700) == nil {
			return d
		}
	}
	return os.TempDir()
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
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("listening on %q (not loopback) needs --token-file, or --insecure to allow anyone who can connect to run programs as this user", addr)
}

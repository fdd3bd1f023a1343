package lantern

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/process"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/internal/testbin"
)

// built holds the programs the tests build once per test binary.
var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// programs builds testdata/prog (gcc) once and returns the build directory with: prog,
// libgreet.so, app (needs libgreet.so), gohello (go build).
func programs(t testing.TB) string {
	t.Helper()
	realparts.Need(t, "gcc")
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "lantern-progs")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		src, _ := filepath.Abs("testdata/prog")
		steps := [][]string{
			{"gcc", "-g", "-O0", "-o", filepath.Join(dir, "prog"), filepath.Join(src, "prog.c")},
			{"gcc", "-shared", "-fPIC", "-o", filepath.Join(dir, "libgreet.so"), filepath.Join(src, "libgreet.c")},
			{"gcc", "-o", filepath.Join(dir, "app"), filepath.Join(src, "app.c"), "-L" + dir, "-lgreet"},
		}
		for _, s := range steps {
			if out, err := exec.Command(s[0], s[1:]...).CombinedOutput(); err != nil {
				built.err = errors.New(strings.Join(s, " ") + ": " + string(out))
				return
			}
		}
		gosrc := filepath.Join(dir, "gohello")
		os.MkdirAll(gosrc, 0o755)
		b, _ := os.ReadFile(filepath.Join(src, "gohello.go.txt"))
		os.WriteFile(filepath.Join(gosrc, "main.go"), b, 0o644)
		os.WriteFile(filepath.Join(gosrc, "go.mod"), []byte("module gohello\n\ngo 1.26\n"), 0o644)
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "gohello.bin"), ".")
		cmd.Dir = gosrc
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=-buildvcs=false")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = errors.New("go build: " + string(out))
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

// testServer runs a daemon on loopback for one test. At the end it stops the daemon and
// checks that no process it started is left.
func testServer(t testing.TB, cfg Config) (string, *Server) {
	t.Helper()
	if cfg.DebugPortMin == 0 {
		cfg.DebugPortMin, cfg.DebugPortMax = freePortRange(t, 20)
	}
	if cfg.StopGrace == 0 {
		cfg.StopGrace = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
		waitNoChildren(t)
	})
	return ln.Addr().String(), srv
}

// freePortRange finds n consecutive ports that are free right now, for gdbserver.
func freePortRange(t testing.TB, n int) (int, int) {
	t.Helper()
	for try := 0; try < 50; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		base := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if base+n > 65535 {
			continue
		}
		ok := true
		for p := base; p < base+n && ok; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				ok = false
				break
			}
			l.Close()
		}
		if ok {
			return base, base + n - 1
		}
	}
	t.Fatal("no free port range")
	return 0, 0
}

// children returns the pids of this test process's live children (zombies included),
// but for the guard process of backend/process, which lives as long as the test process.
func children() []int {
	var out []int
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid != process.GuardPid() {
				out = append(out, pid)
			}
		}
	}
	return out
}

func waitNoChildren(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := children()
		if len(c) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, pid := range c {
				b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				names = append(names, strconv.Itoa(pid)+":"+strings.ReplaceAll(string(b), "\x00", " "))
			}
			t.Errorf("processes left behind: %v", names)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// conn is a raw protocol connection that records what it sends and receives.
type conn struct {
	t testing.TB
	*Client
}

func dial(t testing.TB, addr string) *conn {
	t.Helper()
	c, err := Dial(addr, "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.conn.SetDeadline(time.Now().Add(60 * time.Second))
	return &conn{t, c}
}

// ok sends a command that must succeed and returns its JSON answer.
func (c *conn) ok(line string) json.RawMessage {
	c.t.Helper()
	raw, err := c.Do(line)
	if err != nil {
		c.t.Fatalf("%s: %v", line, err)
	}
	logExchange(c.t, line, raw)
	return raw
}

// fail sends a command that must fail with code.
func (c *conn) fail(line, code string) *Error {
	c.t.Helper()
	raw, err := c.Do(line)
	var e *Error
	if !errors.As(err, &e) {
		c.t.Fatalf("%s: got %s, %v; want error %s", line, raw, err, code)
	}
	if e.Code != code {
		c.t.Fatalf("%s: got error %v, want %s", line, e, code)
	}
	if _, perr := time.Parse(time.RFC3339, e.Time); perr != nil {
		c.t.Errorf("%s: time %q is not RFC 3339", line, e.Time)
	}
	return e
}

func (c *conn) session(line string) Session {
	c.t.Helper()
	var s Session
	if err := json.Unmarshal(c.ok(line), &s); err != nil {
		c.t.Fatal(err)
	}
	return s
}

func (c *conn) upload(data []byte, execPath string) string {
	c.t.Helper()
	id, err := c.Upload(bytes.NewReader(data), int64(len(data)), execPath)
	if err != nil {
		c.t.Fatalf("upload: %v", err)
	}
	return id
}

func (c *conn) uploadFile(path string) string {
	c.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.upload(b, "")
}

// waitState polls STATUS until the session is in state.
func (c *conn) waitState(id, state string) Session {
	c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var s Session
		if err := c.DoInto("STATUS "+id, &s); err != nil {
			c.t.Fatal(err)
		}
		if s.State == state {
			return s
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("session %s is %s, want %s", id, s.State, state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitOutput polls OUTPUT until the session's output contains want.
func (c *conn) waitOutput(id, want string) string {
	c.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		o, err := c.Output(id, 0)
		if err != nil {
			c.t.Fatal(err)
		}
		if strings.Contains(o.Output, want) {
			b, _ := json.Marshal(o)
			logExchange(c.t, "OUTPUT "+id, b)
			return o.Output
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("output of %s is %q, want it to contain %q", id, o.Output, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// logExchange prints one request and answer with -v, for the user documentation.
func logExchange(t testing.TB, req string, resp []byte) {
	if testing.Verbose() && os.Getenv("LANTERN_TRANSCRIPT") != "" {
		t.Logf("\n> %s\n< %s", req, resp)
	}
}

// tarEntry is one entry of a test archive.
type tarEntry struct {
	hdr  tar.Header
	data []byte
}

func file(name string, mode int64, data []byte) tarEntry {
	return tarEntry{tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data))}, data}
}

func makeTarGz(t testing.TB, entries ...tarEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		h := e.hdr
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(e.data); err != nil {
			t.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func dirHeader(name string) tar.Header {
	return tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: 0o755}
}

func symlinkHeader(name, target string) tar.Header {
	return tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: target, Mode: 0o777}
}

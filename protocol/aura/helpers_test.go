package aura

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// The tests run the real polydbg binary, built once, over real pipes.
var (
	binDir     string
	binPath    string
	buildErr   error
	buildOnce  sync.Once
	nativeOnce sync.Once
	nativePath string
	nativeErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func tmpBinDir() (string, error) {
	if binDir == "" {
		d, err := os.MkdirTemp("", "aura-test")
		if err != nil {
			return "", err
		}
		binDir = d
	}
	return binDir, nil
}

// polydbg returns the path of the built binary.
func polydbg(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := tmpBinDir()
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "polydbg")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/polydbg/polydbg/cmd/polydbg").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building polydbg: %v", buildErr)
	}
	return binPath
}

// nativeProg returns testdata/native.c built with gcc.
func nativeProg(t *testing.T) string {
	t.Helper()
	realparts.Need(t, "gcc")
	nativeOnce.Do(func() {
		dir, err := tmpBinDir()
		if err != nil {
			nativeErr = err
			return
		}
		nativePath = filepath.Join(dir, "native")
		out, err := exec.Command("gcc", "-O1", "-o", nativePath, "testdata/native.c").CombinedOutput()
		if err != nil {
			nativeErr = fmt.Errorf("%v: %s", err, out)
		}
	})
	if nativeErr != nil {
		t.Fatalf("building native.c: %v", nativeErr)
	}
	return nativePath
}

// line is one stdout line: an event (Event set) or a program line.
type line struct {
	Text  string          // the whole line
	Event string          // the event name, for event lines
	JSON  json.RawMessage // the event's JSON
}

// aura is one running `polydbg aura run` with its pipes.
type aura struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	mu     sync.Mutex
	lines  []line
	stderr bytes.Buffer
	next   int // the next line not yet consumed by expect
	wake   chan struct{}
	eof    bool
	waited chan struct{}
	code   int
}

const deadline = 20 * time.Second

// start runs polydbg aura run ARGS with the protocol on (unless protocol is false) and
// extra environment variables.
func start(t *testing.T, protocol bool, env []string, args ...string) *aura {
	t.Helper()
	cmd := exec.Command(polydbg(t), append([]string{"aura", "run"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if protocol {
		cmd.Env = append(cmd.Env, "AURA_DEBUG_PROTOCOL=1")
	}
	a := &aura{t: t, cmd: cmd, wake: make(chan struct{}, 1), waited: make(chan struct{})}
	var err error
	if a.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = &lockedWriter{a: a}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go a.read(stdout)
	t.Cleanup(func() {
		a.stdin.Close()
		select {
		case <-a.waited:
		case <-time.After(deadline):
			cmd.Process.Kill()
			<-a.waited
		}
	})
	return a
}

type lockedWriter struct{ a *aura }

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.a.mu.Lock()
	defer w.a.mu.Unlock()
	w.a.stderr.Write(p)
	w.a.poke()
	return len(p), nil
}

func (a *aura) poke() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

func (a *aura) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		s, err := br.ReadString('\n')
		if s != "" {
			l := line{Text: strings.TrimSuffix(s, "\n")}
			if rest, ok := strings.CutPrefix(l.Text, EventPrefix); ok {
				var head struct{ Event string }
				if jerr := json.Unmarshal([]byte(rest), &head); jerr != nil {
					a.t.Errorf("bad event line %q: %v", l.Text, jerr)
				}
				l.Event, l.JSON = head.Event, json.RawMessage(rest)
			}
			a.mu.Lock()
			a.lines = append(a.lines, l)
			a.mu.Unlock()
			a.poke()
		}
		if err != nil {
			break
		}
	}
	err := a.cmd.Wait()
	a.mu.Lock()
	a.eof = true
	a.code = a.cmd.ProcessState.ExitCode()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		a.code = -1
	}
	a.mu.Unlock()
	close(a.waited)
	a.poke()
}

// send writes one command line.
func (a *aura) send(s string) {
	a.t.Helper()
	if _, err := io.WriteString(a.stdin, s+"\n"); err != nil {
		a.t.Fatalf("send %s: %v", s, err)
	}
}

// waitFor polls cond (under a.mu) until it holds or the deadline passes.
func (a *aura) waitFor(what string, cond func() bool) {
	a.t.Helper()
	timeout := time.After(deadline)
	for {
		a.mu.Lock()
		ok, eof := cond(), a.eof
		a.mu.Unlock()
		if ok {
			return
		}
		if eof {
			a.mu.Lock()
			ok = cond()
			a.mu.Unlock()
			if ok {
				return
			}
			a.t.Fatalf("polydbg ended before %s; stdout:\n%s\nstderr:\n%s", what, a.stdout(), a.stderrText())
		}
		select {
		case <-a.wake:
		case <-timeout:
			a.t.Fatalf("timed out waiting for %s; stdout:\n%s\nstderr:\n%s", what, a.stdout(), a.stderrText())
		}
	}
}

// expect returns the next event named name, skipping program lines and other events.
func (a *aura) expect(name string) json.RawMessage {
	a.t.Helper()
	var got json.RawMessage
	a.waitFor("event "+name, func() bool {
		for ; a.next < len(a.lines); a.next++ {
			if a.lines[a.next].Event == name {
				got = a.lines[a.next].JSON
				a.next++
				return true
			}
		}
		return false
	})
	return got
}

// expectInto decodes the next event named name into v.
func (a *aura) expectInto(name string, v any) {
	a.t.Helper()
	raw := a.expect(name)
	if err := json.Unmarshal(raw, v); err != nil {
		a.t.Fatalf("decode %s: %v", raw, err)
	}
}

// stopped waits for the next stopped event and checks its reason and line (0: any).
func (a *aura) stopped(reason string, line int) StoppedEvent {
	a.t.Helper()
	var ev StoppedEvent
	a.expectInto("stopped", &ev)
	if ev.Reason != reason || (line > 0 && ev.Line != line) {
		a.t.Fatalf("stopped %s at line %d, want %s at %d: %+v", ev.Reason, ev.Line, reason, line, ev)
	}
	return ev
}

// waitStdout waits until a program line equal to s has arrived.
func (a *aura) waitStdout(s string) {
	a.t.Helper()
	a.waitFor(fmt.Sprintf("output line %q", s), func() bool {
		for _, l := range a.lines {
			if l.Event == "" && l.Text == s {
				return true
			}
		}
		return false
	})
}

// waitStderr waits until stderr contains s.
func (a *aura) waitStderr(s string) {
	a.t.Helper()
	a.waitFor(fmt.Sprintf("stderr %q", s), func() bool { return strings.Contains(a.stderr.String(), s) })
}

// exit waits for polydbg to end and returns its exit code.
func (a *aura) exit() int {
	a.t.Helper()
	a.waitFor("the end of polydbg", func() bool { return a.eof })
	<-a.waited
	return a.code
}

// programLines returns the program's own output lines (event lines stripped).
func (a *aura) programLines() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, l := range a.lines {
		if l.Event == "" {
			out = append(out, l.Text)
		}
	}
	return out
}

// sequence returns every stdout line, events shown as "@name".
func (a *aura) sequence() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, l := range a.lines {
		if l.Event != "" {
			out = append(out, "@"+l.Event)
		} else {
			out = append(out, l.Text)
		}
	}
	return out
}

// events returns the names of all events so far.
func (a *aura) events() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, l := range a.lines {
		if l.Event != "" {
			out = append(out, l.Event)
		}
	}
	return out
}

func (a *aura) stdout() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var b strings.Builder
	for _, l := range a.lines {
		b.WriteString(l.Text + "\n")
	}
	return b.String()
}

func (a *aura) stderrText() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stderr.String()
}

// gone waits until process pid no longer exists (or is a zombie nobody reaps).
func gone(t *testing.T, pid int) {
	t.Helper()
	end := time.Now().Add(deadline)
	for {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X') {
				return
			}
		}
		if time.Now().After(end) {
			t.Fatalf("process %d is still alive", pid)
		}
		time.Sleep(5 * time.Millisecond) // polling a process table, not synchronisation
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

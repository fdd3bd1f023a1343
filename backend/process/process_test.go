package process

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"

	"github.com/polydbg/polydbg/internal/memfd"
)

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
)

// helper builds testdata/helper.c with gcc once per test binary.
func helper(t *testing.T) string {
	t.Helper()
	realparts.Need(t, "gcc")
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "process-helper")
		if err != nil {
			helperErr = err
			return
		}
		helperPath = filepath.Join(dir, "helper")
		out, err := exec.Command("gcc", "-O1", "-o", helperPath, "testdata/helper.c").CombinedOutput()
		if err != nil {
			helperErr = errors.New(string(out))
		}
	})
	if helperErr != nil {
		t.Fatalf("building helper: %v", helperErr)
	}
	return helperPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if helperPath != "" {
		os.RemoveAll(filepath.Dir(helperPath))
	}
	os.Exit(code)
}

// collector records output chunks per stream and in arrival order.
type collector struct {
	mu     sync.Mutex
	stdout bytes.Buffer
	stderr bytes.Buffer
	all    bytes.Buffer
	ready  chan struct{}
	once   sync.Once
}

func newCollector() *collector { return &collector{ready: make(chan struct{})} }

func (c *collector) on(s Stream, p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case Stdout:
		c.stdout.Write(p)
	case Stderr:
		c.stderr.Write(p)
	}
	c.all.Write(p)
	if strings.Contains(c.all.String(), "ready\n") {
		c.once.Do(func() { close(c.ready) })
	}
}

func (c *collector) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-c.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("program never said ready")
	}
}

func waitDone(t *testing.T, p *Process) Status {
	t.Helper()
	select {
	case <-p.Done():
		return p.Wait()
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("program did not end")
	}
	return Status{}
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z' && s[i+2] != 'X'
}

// exists reports whether pid exists at all (a zombie exists).
func exists(pid int) bool {
	_, err := os.Stat("/proc/" + strconv.Itoa(pid))
	return err == nil
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	eventually(t, "pid file "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil
	})
	return pid
}

func TestArgsEnvDirAndStreams(t *testing.T) {
	h := helper(t)
	dir := t.TempDir()
	c := newCollector()
	p, err := Start(Spec{
		Path:     h,
		Args:     []string{"echo", "a b", "c"},
		Env:      []string{"FOO=bar"},
		Dir:      dir,
		OnOutput: c.on,
	})
	if err != nil {
		t.Fatal(err)
	}
	st := waitDone(t, p)
	if st.Code != 0 || st.Signaled() {
		t.Fatalf("status %v", st)
	}
	if got := c.stdout.String(); got != "a b c\n" {
		t.Errorf("stdout %q", got)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	if got, want := c.stderr.String(), "FOO=bar cwd="+realDir+"\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if exists(p.Pid()) {
		t.Errorf("pid %d still exists after Wait (zombie)", p.Pid())
	}
}

func TestExitCodesAndSignals(t *testing.T) {
	h := helper(t)
	for _, code := range []int{0, 1, 42} {
		p, err := Start(Spec{Path: h, Args: []string{"exit", strconv.Itoa(code)}})
		if err != nil {
			t.Fatal(err)
		}
		if st := waitDone(t, p); st.Code != code || st.ExitCode() != code || st.Signaled() || st.String() != "exit code "+strconv.Itoa(code) {
			t.Errorf("exit %d: got %+v %q", code, st, st)
		}
	}
	c := newCollector()
	p, err := Start(Spec{Path: h, Args: []string{"sleep"}, OnOutput: c.on})
	if err != nil {
		t.Fatal(err)
	}
	c.waitReady(t)
	if err := p.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	st := waitDone(t, p)
	if st.Signal != syscall.SIGUSR1 || st.Code != -1 || st.SignalName() != "SIGUSR1" || st.ExitCode() != 128+int(syscall.SIGUSR1) || st.String() != "killed by SIGUSR1" {
		t.Errorf("got %+v %q", st, st)
	}
	if err := p.Signal(syscall.SIGTERM); !errors.Is(err, ErrNotRunning) {
		t.Errorf("Signal after end: %v", err)
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(Spec{}); err == nil {
		t.Error("empty spec started")
	}
	if _, err := Start(Spec{Path: "/nonexistent/program"}); err == nil {
		t.Error("missing program started")
	}
	f, err := os.CreateTemp(t.TempDir(), "notexec")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not a program")
	f.Close()
	if _, err := Start(Spec{Path: f.Name()}); err == nil {
		t.Error("non-executable file started")
	}
}

func TestMergedOutputKeepsOrder(t *testing.T) {
	h := helper(t)
	c := newCollector()
	p, err := Start(Spec{Path: h, Args: []string{"interleave"}, MergeOutput: true, OnOutput: c.on})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	want := "out 0\nerr 0\nout 1\nerr 1\nout 2\nerr 2\nout 3\nerr 3\nout 4\nerr 4\n"
	if got := c.all.String(); got != want {
		t.Errorf("merged output %q", got)
	}
	if c.stderr.Len() != 0 {
		t.Errorf("merged output reported stderr chunks: %q", c.stderr.String())
	}
}

func TestLargeOutputIsComplete(t *testing.T) {
	h := helper(t)
	var n int64
	var mu sync.Mutex
	p, err := Start(Spec{Path: h, Args: []string{"flood", "3000000"}, OnOutput: func(s Stream, b []byte) {
		mu.Lock()
		n += int64(len(b))
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p)
	if n != 3000000 {
		t.Errorf("got %d bytes, want 3000000", n)
	}
}

func TestStopAndKillEndGrandchildren(t *testing.T) {
	h := helper(t)
	for _, how := range []string{"stop", "kill"} {
		t.Run(how, func(t *testing.T) {
			pidFile := filepath.Join(t.TempDir(), "gc.pid")
			c := newCollector()
			p, err := Start(Spec{Path: h, Args: []string{"grandchild", pidFile}, OnOutput: c.on})
			if err != nil {
				t.Fatal(err)
			}
			gc := readPid(t, pidFile)
			c.waitReady(t)
			if !alive(gc) {
				t.Fatal("grandchild not running")
			}
			var st Status
			if how == "stop" {
				st = p.Stop(5 * time.Second)
				if st.Signal != syscall.SIGTERM {
					t.Errorf("stop: %v", st)
				}
			} else {
				st = p.Kill()
				if st.Signal != syscall.SIGKILL {
					t.Errorf("kill: %v", st)
				}
			}
			eventually(t, "grandchild to end", func() bool { return !alive(gc) })
			if exists(p.Pid()) {
				t.Errorf("main process %d left as zombie", p.Pid())
			}
		})
	}
}

func TestStopEscalatesToKill(t *testing.T) {
	h := helper(t)
	c := newCollector()
	p, err := Start(Spec{Path: h, Args: []string{"ignoreterm"}, OnOutput: c.on})
	if err != nil {
		t.Fatal(err)
	}
	c.waitReady(t)
	start := time.Now()
	st := p.Stop(200 * time.Millisecond)
	if st.Signal != syscall.SIGKILL {
		t.Errorf("got %v, want killed by SIGKILL", st)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("escalated after %v, before the grace period", d)
	}
}

func TestGroupLeftoversKilledWhenMainExits(t *testing.T) {
	h := helper(t)
	pidFile := filepath.Join(t.TempDir(), "gc.pid")
	p, err := Start(Spec{Path: h, Args: []string{"grandchild", pidFile, "exit"}})
	if err != nil {
		t.Fatal(err)
	}
	gc := readPid(t, pidFile)
	st := waitDone(t, p)
	if st.Code != 0 {
		t.Errorf("status %v", st)
	}
	eventually(t, "orphaned grandchild to be killed", func() bool { return !alive(gc) })
}

func TestRunFromMemfd(t *testing.T) {
	h := helper(t)
	img, err := os.ReadFile(h)
	if err != nil {
		t.Fatal(err)
	}
	for _, withExtra := range []bool{false, true} {
		f, err := memfd.New("helper")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(img); err != nil {
			t.Fatal(err)
		}
		if err := memfd.Seal(f); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte("x")); err == nil {
			t.Error("sealed memfd accepted a write")
		}
		spec := Spec{Exe: f, Argv0: "prog", Args: []string{"echo", "from", "memory"}}
		var extra *os.File
		if withExtra {
			extra, _ = os.Open(os.DevNull)
			spec.ExtraFiles = []*os.File{extra}
		}
		c := newCollector()
		spec.OnOutput = c.on
		p, err := Start(spec)
		if err != nil {
			t.Fatalf("extra=%v: %v", withExtra, err)
		}
		st := waitDone(t, p)
		f.Close()
		if extra != nil {
			extra.Close()
		}
		if st.Code != 0 || c.stdout.String() != "from memory\n" {
			t.Errorf("extra=%v: %v %q %q", withExtra, st, c.stdout.String(), c.stderr.String())
		}
	}
}

func TestSignalGroupRefusesSpecialGroups(t *testing.T) {
	for _, g := range []int{-1, 0, 1} {
		if err := SignalGroup(g, syscall.SIGTERM); err == nil {
			t.Errorf("SignalGroup(%d) allowed", g)
		}
	}
}

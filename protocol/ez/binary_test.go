package ez

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	binErr    error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// polydbg builds the real binary once per test run.
func polydbg(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "ez-polydbg-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "polydbg")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/polydbg/polydbg/cmd/polydbg").CombinedOutput()
		if err != nil {
			binErr = err
			binPath = string(out)
		}
	})
	if binErr != nil {
		t.Fatalf("building polydbg: %v\n%s", binErr, binPath)
	}
	return binPath
}

// runBinary starts "polydbg args..." with pipes and returns a client and the command.
func runBinary(t *testing.T, dir string, args ...string) (*client, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(polydbg(t), args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return newPipeClient(t, w, r), cmd, &stderr
}

// wait waits for the process to exit and returns its exit code.
func wait(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(waitEvent):
		cmd.Process.Kill()
		t.Fatal("polydbg did not exit after end of input")
	}
	return -1
}

// TestBinaryEndToEnd runs "polydbg ez FILE" as an IDE does and replays the document's
// stepping session over the process's real stdin and stdout; then "polydbg debugserver"
// (the name the EZ IDE calls) with the breakpoint session.
func TestBinaryEndToEnd(t *testing.T) {
	file := prog(t, "simple.kite")
	c, cmd, stderr := runBinary(t, filepath.Dir(file), "ez", "simple.kite")
	replay(t, c, simpleSession, file)
	// Read stdout to its end before Wait, which closes the pipe.
	if rest := c.rest(); len(rest) != 0 {
		t.Fatalf("events after exited: %v", rest)
	}
	if code := wait(t, cmd); code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, stderr)
	}

	file = prog(t, "breakpoint.kite")
	c, cmd, stderr = runBinary(t, filepath.Dir(file), "debugserver", file)
	replay(t, c, breakpointSession, file)
	if rest := c.rest(); len(rest) != 0 {
		t.Fatalf("events after exited: %v", rest)
	}
	if code := wait(t, cmd); code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, stderr)
	}
}

// TestBinaryEndOfInputEndsRunningProgram: closing stdin while the program loops forever
// terminates it and the process exits 0; nothing the program prints reaches stdout raw.
func TestBinaryEndOfInputEndsRunningProgram(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "noisy.kite")
	if err := os.WriteFile(file, []byte("let i = 0\nwhile true {\n    i += 1\n    if i % 1000 == 0 { print(\"tick\", i) }\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, cmd, stderr := runBinary(t, dir, "ez")
	c.send("initialize", map[string]any{"file": "noisy.kite", "workingDir": dir})
	c.expect("initialized")
	c.send("start", map[string]any{"stopOnEntry": false})
	c.expect("started")
	if e := c.expect("output"); !strings.HasPrefix(e.str("text"), "tick 1000\n") {
		t.Fatalf("output %s", e.Raw)
	}
	rest := c.rest() // closes stdin, reads stdout to its end; fails on a line that is not an event
	if len(rest) == 0 || rest[len(rest)-1] != "terminated" {
		t.Fatalf("last events %v", rest[max(0, len(rest)-3):])
	}
	if code := wait(t, cmd); code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, stderr)
	}
}

// TestBinaryPauseAfterIdleStop: the real process, stopped and idle long enough for Go's
// monitor thread to sleep, continues into an endless loop; a pause must still be read and
// answered (the stdio front ends read and write with raw system calls, which do not wake
// that thread: backend/kitevm wakes it when a program runs long).
func TestBinaryPauseAfterIdleStop(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "spin.kite"), []byte("let i = 0\nwhile true {\n    i += 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, cmd, stderr := runBinary(t, dir, "ez", "spin.kite")
	c.send("initialize", nil)
	c.expect("initialized")
	c.send("start", map[string]any{"stopOnEntry": true})
	c.expect("started")
	c.stopped("entry", 0)
	time.Sleep(300 * time.Millisecond) // idle: the monitor sleeps
	c.send("continue", nil)
	time.Sleep(100 * time.Millisecond) // the loop runs
	c.send("pause", nil)
	c.stopped("pause", 0)
	c.send("terminate", nil)
	c.skipTo("terminated")
	c.rest()
	if code := wait(t, cmd); code != 0 {
		t.Fatalf("exit code %d; stderr %s", code, stderr)
	}
}

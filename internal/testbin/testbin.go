// Package testbin gives tests the real polydbg executable, built once per test process,
// and a way to check by /proc that processes they started are gone. Tests about signals
// and leftovers run the real binary: killing the test process itself is not an option.
package testbin

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"
)

var (
	once sync.Once
	bin  string
	err  error
)

// Polydbg builds cmd/polydbg once per test process, into a polydbg-testbin-* directory of
// the system's temp directory, and returns its path.
func Polydbg(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		dir, e := os.MkdirTemp("", "polydbg-testbin-")
		if e != nil {
			err = e
			return
		}
		bin = filepath.Join(dir, "polydbg")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		// Built in the main module (found from this file), so that a test of another
		// module (bench) builds it with the main module's dependencies.
		_, self, _, _ := runtime.Caller(0)
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/polydbg")
		build.Dir = filepath.Join(filepath.Dir(self), "..", "..")
		out, e := build.CombinedOutput()
		if e != nil {
			err = fmt.Errorf("go build: %v\n%s", e, out)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Alive reports whether pid is a live process (a zombie is not: it only waits to be reaped).
func Alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z' && b[i+2] != 'X'
}

// WaitGone waits up to five seconds for every pid to be gone and fails the test with the
// ones still alive.
func WaitGone(t testing.TB, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var alive []int
		for _, p := range pids {
			if Alive(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, p := range alive {
				cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
				t.Errorf("process %d (%s) is still alive", p, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))
			}
			return
		}
		time.Sleep(10 * time.Millisecond) // polling the process table, not synchronisation
	}
}

// Remove deletes the built binary; call it from TestMain after m.Run.
func Remove() {
	if bin != "" {
		os.RemoveAll(filepath.Dir(bin))
	}
}

// Descendants returns the pids of every live process below pid (children, their
// children...), read from /proc/PID/task/*/children.
func Descendants(pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*/children")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, field := range bytes.Fields(b) {
				if c, err := strconv.Atoi(string(field)); err == nil {
					out = append(out, c)
					queue = append(queue, c)
				}
			}
		}
	}
	return out
}

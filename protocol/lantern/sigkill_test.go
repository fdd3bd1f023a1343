package lantern

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/internal/testbin"
)

// TestDaemonSIGKILLLeavesNoProcess: the real daemon, killed with SIGKILL while it runs a
// program that forked a grandchild into its process group and a program under gdbserver,
// leaves no process behind (issue 12, item 7: the grandchild used to live on). The pids
// are every descendant of the daemon, read from /proc before the kill.
func TestDaemonSIGKILLLeavesNoProcess(t *testing.T) {
	realparts.Need(t, "gdbserver")
	dir := programs(t)
	lo, hi := freePortRange(t, 5)
	port, _ := freePortRange(t, 1)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(testbin.Polydbg(t), "lantern", "serve", "--listen", addr, "--debug-ports", fmt.Sprintf("%d-%d", lo, hi))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				close(listening)
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-listening:
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon does not listen")
	}
	c := dial(t, addr)
	a := c.uploadFile(filepath.Join(dir, "prog"))
	pidFile := filepath.Join(t.TempDir(), "gc.pid")
	c.session("ARGS " + a + " grandchild " + pidFile)
	c.session("START " + a)
	gc := readPidFile(t, pidFile)
	c.waitOutput(a, "ready")
	b := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + b + " sleep")
	if s := c.session("START " + b + " --debug"); s.State != StateDebugging || s.PID == nil {
		t.Fatalf("START --debug answered %+v", s)
	}

	pids := testbin.Descendants(cmd.Process.Pid)
	if len(pids) < 5 { // program, child, grandchild, gdbserver, its program (and the guard)
		t.Fatalf("descendants of the daemon: %v", pids)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	testbin.WaitGone(t, append(pids, gc)...)
}

package process

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStartHelperWaitsAndSaysWhy: a helper that announces its port late is waited for, the
// wait is explained after a second, and the announced port is found.
func TestStartHelperWaitsAndSaysWhy(t *testing.T) {
	var mu sync.Mutex
	var notes []string
	h, err := StartHelper(context.Background(), HelperSpec{
		Spec:  Spec{Path: "/bin/sh", Args: []string{"-c", "sleep 1.3; echo 'Process /x created; pid = 4321'; echo 'Listening on port 1234'; exec sleep 30"}},
		Name:  "gdbserver",
		Ready: GdbserverListening,
		OnWaiting: func(msg string) {
			mu.Lock()
			notes = append(notes, msg)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Kill()
	mu.Lock()
	defer mu.Unlock()
	if len(notes) != 1 || !strings.Contains(notes[0], "waiting for gdbserver") {
		t.Errorf("notes %q", notes)
	}
	if p, in := GdbserverPort(h.Announced()), GdbserverInferior(h.Announced()); p != 1234 || in != 4321 {
		t.Errorf("port %d inferior %d", p, in)
	}
}

// TestStartHelperExitAndTimeout: a helper that exits first reports its status and its
// error line; one that never gets ready is killed at the timeout.
func TestStartHelperExitAndTimeout(t *testing.T) {
	_, err := StartHelper(context.Background(), HelperSpec{
		Spec:  Spec{Path: "/bin/sh", Args: []string{"-c", "echo starting; echo \"Can't bind address: in use\"; exit 3"}},
		Name:  "gdbserver",
		Ready: GdbserverListening,
	})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Status.Code != 3 || ee.Message != "Can't bind address: in use" {
		t.Fatalf("err %v", err)
	}
	start := time.Now()
	var pid int
	_, err = StartHelper(context.Background(), HelperSpec{
		Spec:    Spec{Path: "/bin/sh", Args: []string{"-c", "echo $$; exec sleep 30"}},
		Name:    "stub",
		Ready:   func(out []byte) bool { pid, _ = strconv.Atoi(strings.TrimSpace(string(out))); return false },
		Timeout: 300 * time.Millisecond,
	})
	if err == nil || !strings.Contains(err.Error(), "was not ready within") || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
	if pid <= 1 || alive(pid) {
		t.Errorf("helper %d not killed", pid)
	}
}

// TestFreePortSkipsClaimed: FreePort skips ports claimed by the caller and ports in use.
func TestFreePortSkipsClaimed(t *testing.T) {
	p, err := FreePort("127.0.0.1", 0, 0, nil)
	if err != nil || p == 0 {
		t.Fatal(p, err)
	}
	q, err := FreePort("127.0.0.1", p, p+50, func(n int) bool { return n == p })
	if err != nil || q == p {
		t.Fatalf("got %d, %v", q, err)
	}
	if _, err := FreePort("127.0.0.1", p, p, func(int) bool { return true }); !errors.Is(err, ErrNoPort) {
		t.Fatalf("err %v", err)
	}
}

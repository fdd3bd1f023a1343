package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
)

// A plain `aura run` hands polydbg's standard input to the native program as it is: it is
// made non-blocking only when it carries the protocol alone (a program reading a
// non-blocking pipe would fail with EAGAIN the moment it waits).
func TestPlainRunKeepsStdinBlocking(t *testing.T) {
	cmd := exec.Command(testbin.Polydbg(t), "aura", "run", "--native", "/bin/cat")
	cmd.Env = withoutEnv(os.Environ(), "AURA_DEBUG_PROTOCOL")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // cat waits on the empty pipe first
	io.WriteString(w, "line one\nline two\n")
	w.Close()
	if err := cmd.Wait(); err != nil || out.String() != "line one\nline two\n" {
		t.Fatalf("cat under aura run: %v, out %q, err %q", err, out.String(), errb.String())
	}
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, name+"=") {
			out = append(out, e)
		}
	}
	return out
}

// rawWriter moves bytes over a non-blocking pipe, waiting when it is full; TryWrite
// writes what the pipe takes and never waits.
func TestRawPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wrc, err := w.SyscallConn() // os.Pipe's ends are non-blocking and in the poller
	if err != nil {
		t.Fatal(err)
	}
	out := rawWriter{rc: wrc}
	msg := bytes.Repeat([]byte("0123456789"), 20000) // more than a pipe holds
	n, err := out.TryWrite(msg)
	if err != nil || n == 0 || n >= len(msg) {
		t.Fatalf("TryWrite into an empty pipe: %d of %d bytes, %v", n, len(msg), err)
	}
	go func() { out.Write(msg[n:]); w.Close() }()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(msg))
	}
}

// A stdio front end sent SIGTERM ends within the outbox's grace even when its client wrote
// thousands of commands and read none of the answers (EZ, DAP, Aura and MCP waited for ever
// for that client to read what was left).
func TestSIGTERMWithAClientThatDoesNotRead(t *testing.T) {
	loop := filepath.Join(t.TempDir(), "loop.kite")
	if err := os.WriteFile(loop, []byte("let i = 0\nwhile true {\n    i += 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dapThreads := func(i int) string {
		body := fmt.Sprintf(`{"seq":%d,"type":"request","command":"threads"}`, i+1)
		return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	for _, c := range []struct {
		name    string
		args    []string
		env     []string
		first   string
		command func(i int) string
	}{
		{"ez", []string{"ez"}, nil, "", func(int) string { return `{"type":"command","command":"stepInto","params":{}}` + "\n" }},
		{"dap", []string{"dap"}, nil, "", dapThreads},
		{"aura", []string{"aura", "run", loop}, []string{"AURA_DEBUG_PROTOCOL=1", "AURA_DEBUG_WAIT=1"},
			`{"cmd":"enable","startPaused":true}` + "\n", func(int) string { return `{"cmd":"stepIn"}` + "\n" }},
		{"mcp", []string{"mcp"}, nil,
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n",
			func(i int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", i+1) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(testbin.Polydbg(t), c.args...)
			cmd.Env = append(os.Environ(), c.env...)
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := cmd.StdoutPipe(); err != nil { // never read
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			var burst strings.Builder
			burst.WriteString(c.first)
			for i := range 4000 {
				burst.WriteString(c.command(i))
			}
			wrote := make(chan error, 1)
			go func() { _, err := io.WriteString(in, burst.String()); wrote <- err }()
			select {
			case err := <-wrote:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the commands were not read") // the server stalled before the answers' bound
			}
			time.Sleep(300 * time.Millisecond) // let it answer into the full pipe
			if d := terminate(t, cmd, 10*time.Second); d > 5*time.Second {
				t.Errorf("SIGTERM took %v", d)
			}
		})
	}
}

// terminate sends cmd SIGTERM and waits for it to exit, failing the test after limit; it
// returns how long the exit took.
func terminate(t *testing.T, cmd *exec.Cmd, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
		t.Logf("exit %v after SIGTERM", time.Since(start))
	case <-time.After(limit):
		t.Fatalf("still running %v after SIGTERM", limit)
	}
	return time.Since(start)
}

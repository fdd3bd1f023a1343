package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"

	"strings"
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
	out := rawWriter{wrc}
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

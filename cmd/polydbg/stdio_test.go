package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
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

// recorder is a writer that records each write; gate, when set, holds writes back.
type recorder struct {
	mu     sync.Mutex
	writes []string
	gate   chan struct{}
	err    error
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.gate != nil {
		<-r.gate
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.writes = append(r.writes, string(p))
	return len(p), r.err
}

// The writes of one burst leave in one write, in order; a failed write-out is returned by
// the next Write; a writer that stops draining holds back writes beyond burstMax.
func TestBurstWriter(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rec := &recorder{}
	bw := newBurstWriter(rec)
	for _, s := range []string{"response\n", "event\n", "prompt "} {
		if _, err := bw.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	bw.flush()
	if len(rec.writes) != 1 || rec.writes[0] != "response\nevent\nprompt " {
		t.Fatalf("writes %q", rec.writes)
	}

	rec.err = errors.New("gone")
	bw.Write([]byte("x"))
	bw.flush()
	if _, err := bw.Write([]byte("y")); err == nil {
		t.Fatal("no error after a failed write-out")
	}

	slow := &recorder{gate: make(chan struct{})}
	bw = newBurstWriter(slow)
	wrote := make(chan struct{})
	go func() {
		big := make([]byte, burstMax)
		bw.Write(big) // taken by the write-out, which waits at the gate
		bw.Write(big) // queued
		bw.Write(big) // over the bound: waits
		close(wrote)
	}()
	select {
	case <-wrote:
		t.Fatal("writes went on while nothing was written out")
	case <-time.After(200 * time.Millisecond):
	}
	close(slow.gate)
	<-wrote
	bw.flush()
}

// A front end that reads its next command has said all it will say: writeOutFirst writes
// out the burst on the reading goroutine before the read, in one write, without waiting
// for the burst writer's own goroutine.
func TestWriteOutBeforeRead(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	rec := &recorder{}
	bw := newBurstWriter(rec)
	bw.Write([]byte("5\t    total += i\n"))
	bw.Write([]byte("(polydbg) "))
	in := writeOutFirst{strings.NewReader("next\n"), bw}
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "next\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.writes) != 1 || rec.writes[0] != "5\t    total += i\n(polydbg) " {
		t.Fatalf("writes %q: want the answer and the prompt in one write before the read", rec.writes)
	}
}

// rawStdin and rawWriter move bytes over a non-blocking pipe and report its end.
func TestRawPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rrc, err := r.SyscallConn() // os.Pipe's ends are non-blocking and in the poller
	if err != nil {
		t.Fatal(err)
	}
	wrc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	in, out := rawStdin{rrc}, rawWriter{wrc}
	msg := bytes.Repeat([]byte("0123456789"), 20000) // more than a pipe holds
	go func() { out.Write(msg); w.Close() }()
	got, err := io.ReadAll(in)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(msg))
	}
}

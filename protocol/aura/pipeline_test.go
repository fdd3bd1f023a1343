package aura

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A client that writes thousands of steps before it reads any answer, over real pipes (an
// OS pipe holds 64 KiB; io.Pipe holds nothing): Run reads them all, the answers wait in its
// outbox, and every stop arrives, in order. Writing straight to the pipe, Run blocks on an
// answer not yet read and stops reading; the client blocks writing: both wait for ever.
func TestPipelinedStepsAreAllAnswered(t *testing.T) {
	file := filepath.Join(t.TempDir(), "loop.kite")
	if err := os.WriteFile(file, []byte("let i = 0\nwhile true {\n    i += 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
	done := make(chan int, 1)
	go func() {
		done <- Run(context.Background(), Config{File: file, Protocol: true, WaitEnable: true,
			Stdin: inR, Stdout: outW, Stderr: io.Discard})
		outW.Close()
	}()
	out := bufio.NewReaderSize(outR, 1<<20)
	await := func(event string) []byte {
		t.Helper()
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("output ended before %s: %v", event, err)
			}
			if bytes.Contains(line, []byte(`"event":"`+event+`"`)) {
				return bytes.TrimPrefix(line, []byte(EventPrefix))
			}
		}
	}
	await("hello")
	if _, err := io.WriteString(inW, `{"cmd":"enable","startPaused":true}`+"\n"); err != nil {
		t.Fatal(err)
	}
	await("stopped")

	// The commands outweigh what the pipe and Run's reader hold (128 KiB), padded with a
	// field Aura ignores; the answers (about 150 bytes each) stay under wire.OutboxMax.
	const steps = 3000
	step := []byte(`{"cmd":"stepIn","note":"` + strings.Repeat("-", 100) + `"}` + "\n")
	wrote := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < steps && err == nil; i++ {
			_, err = inW.Write(step)
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(deadline):
		t.Fatalf("the client could not write its %d steps: Run stopped reading, blocked on answers the client has not read yet", steps)
	}

	// Every step stopped, in order: i never goes back, and grows by at most one a stop.
	last := 0
	for n := range steps {
		st := decode[StoppedEvent](t, await("stopped"))
		i, err := strconv.Atoi(st.Env["i"])
		if err != nil || st.Reason != "step" || i < last || i > last+1 {
			t.Fatalf("stop %d of %d: %+v after i = %d", n+1, steps, st, last)
		}
		last = i
	}
	if last < steps/4 {
		t.Fatalf("%d steps ran the loop %d times", steps, last)
	}
	if _, err := io.WriteString(inW, `{"cmd":"terminate"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	await("terminated")
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, out) }()
	select {
	case code := <-done:
		if code != ExitTerminated {
			t.Errorf("exit code %d, want %d", code, ExitTerminated)
		}
	case <-time.After(deadline):
		t.Fatal("Run did not return")
	}
}

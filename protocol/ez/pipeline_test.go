package ez

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"
)

// An IDE that does not wait: commands pipelined after start are answered in order, after
// "started", and the entry stop is reported exactly once (issue: replies overtook
// "started" in about half the runs).
func TestPipelinedCommandsAfterStartKeepOrder(t *testing.T) {
	file := prog(t, "simple.kite")
	cmd := func(name string, params any) string {
		b, _ := json.Marshal(map[string]any{"type": "command", "command": name, "params": params})
		return string(b) + "\n"
	}
	for run := range 30 {
		c := newClient(t, Options{})
		c.raw(cmd("initialize", map[string]any{"file": file}) + cmd("start", map[string]any{"stopOnEntry": true}) +
			cmd("getStackTrace", nil) + cmd("stepInto", nil) + cmd("getStackTrace", nil))
		// Until the entry stop, replies are errors ("program is running") or answers; the
		// entry stop is reported once; "started" comes before any of them.
		var names []string
		for len(names) < 20 {
			e := c.next()
			names = append(names, e.Event)
			if e.Event == "stopped" {
				if e.str("reason") != "entry" {
					t.Fatalf("run %d: stopped %s", run, e.Raw)
				}
				break
			}
		}
		names = append(names, c.rest()...)
		got := strings.Join(names, " ")
		if len(names) < 3 || names[0] != "initialized" || names[1] != "started" {
			t.Fatalf("run %d: events %s", run, got)
		}
		if n := strings.Count(strings.Join(c.seen, "\n"), `"reason":"entry"`); n != 1 {
			t.Fatalf("run %d: %d entry stops in %s\n%s", run, n, got, strings.Join(c.seen, "\n"))
		}
	}
}

// An IDE that stops reading while the program prints: the server holds the program back
// instead of buffering without bound, and serves again once the IDE reads.
func TestOutputIsHeldBackWhenTheIDEStopsReading(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "chatty.kite")
	if err := os.WriteFile(file, []byte("let i = 0\nwhile true {\n    print(\"line \", i, \" of a program that prints without end\")\n    i += 1\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), inR, outW, Options{}); outW.Close() }()
	cmd := func(name string, params any) {
		b, _ := json.Marshal(map[string]any{"type": "command", "command": name, "params": params})
		if _, err := inW.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// Read the first events, then stop reading.
	buf := make([]byte, 4096)
	cmd("initialize", map[string]any{"file": file})
	cmd("start", map[string]any{"stopOnEntry": false})
	if _, err := outR.Read(buf); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	time.Sleep(300 * time.Millisecond)
	runtime.GC()
	runtime.ReadMemStats(&before)
	time.Sleep(time.Second) // unbounded buffering grew by about 350 MB/s here
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 32<<20 {
		t.Fatalf("the heap grew by %d MB in a second while the IDE did not read", grew>>20)
	}
	// Reading again: the session still serves and ends cleanly at end of input.
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	cmd("pause", nil)
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 1)
		t.Fatal("the server did not end after the IDE read again and closed its input")
	}
}

// A start that finds the program stopped at a stop not yet told (a pipelining IDE's start
// right after a continue that hit a breakpoint) gets one answer, the error: it answered
// started as well, one command with two answers (found by bench's soak test).
func TestStartBeforeTheStopIsToldAnswersOnce(t *testing.T) {
	file := filepath.Join(t.TempDir(), "loop.kite")
	if err := os.WriteFile(file, []byte(stepLoopProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	var out roomyBuffer
	srv := newServer(&out, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	defer srv.closeSession()
	srv.handleLine([]byte(fmt.Sprintf(`{"type":"command","command":"initialize","params":{"file":%q}}`, file)))
	srv.handleLine([]byte(`{"type":"command","command":"start","params":{"stopOnEntry":true}}`))
	ss := &stepServer{srv: srv, timeout: time.After(time.Minute)}
	ss.settle(t) // flushed: written at once (the buffer always has room)
	out.Reset()

	srv.sess.reportedStop = false // stopped, its event still to be written
	srv.handleLine([]byte(`{"type":"command","command":"start"}`))
	if err := srv.flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], `"event":"error"`) || !strings.Contains(lines[0], `"command":"start"`) {
		t.Fatalf("start answered with %d lines:\n%s", len(lines), out.String())
	}
}

// roomyBuffer is a wire.TryWriter that always has room: an outbox writes into it on the
// flushing goroutine.
type roomyBuffer struct{ bytes.Buffer }

func (b *roomyBuffer) TryWrite(p []byte) (int, error) { return b.Write(p) }

package wire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// A client that writes before it reads, over a synchronous pipe: Flush must not wait for
// it, and what was written arrives in order once it reads.
func TestOutboxFlushDoesNotWaitForTheClient(t *testing.T) {
	r, w := io.Pipe()
	o := NewOutbox(w)
	done := make(chan struct{})
	go func() {
		for i := range 100 {
			o.WriteString(strings.Repeat("x", i) + "\n")
			if err := o.Flush(); err != nil {
				t.Error(err)
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Flush waited for a client that does not read")
	}
	var got bytes.Buffer
	go func() { o.Close(); w.Close() }()
	io.Copy(&got, r)
	lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("%d lines arrived", len(lines))
	}
	for i, l := range lines {
		if len(l) != i {
			t.Fatalf("line %d has %d bytes: out of order", i, len(l))
		}
	}
}

// partialWriter takes at most room bytes at once through TryWrite, the rest by Write.
type partialWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	room  int
	tries int
}

func (p *partialWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.buf.Write(b)
}

func (p *partialWriter) TryWrite(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tries++
	n := min(len(b), p.room)
	return p.buf.Write(b[:n])
}

// A destination with room takes the bytes on the flushing goroutine; what it does not take
// is written after, in order.
func TestOutboxWritesAtOnceWhenThereIsRoom(t *testing.T) {
	pw := &partialWriter{room: 1 << 20}
	o := NewOutbox(pw)
	o.WriteString("stopped\n")
	o.Flush()
	if pw.tries != 1 || pw.buf.String() != "stopped\n" {
		t.Fatalf("after Flush: %d tries, %q", pw.tries, pw.buf.String())
	}
	if o.running {
		t.Error("a writer goroutine was started for a write that went at once")
	}
	pw.room = 3
	o.WriteString("abcdefgh")
	o.Flush()
	o.WriteString("ij")
	o.Flush() // the goroutine may still hold the rest: this queues behind it
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pw.buf.String(); got != "stopped\nabcdefghij" {
		t.Fatalf("got %q", got)
	}
	if _, err := o.WriteString("late"); !errors.Is(err, ErrOutboxClosed) {
		t.Errorf("Write after Close: %v", err)
	}
}

// Send writes p at once when nothing is queued and there is room, queues the rest behind
// what is already queued, and keeps the order.
func TestOutboxSend(t *testing.T) {
	pw := &partialWriter{room: 1 << 20}
	o := NewOutbox(pw)
	if err := o.Send([]byte("response+stopped\n")); err != nil {
		t.Fatal(err)
	}
	if pw.tries != 1 || pw.buf.String() != "response+stopped\n" || o.running {
		t.Fatalf("after Send: %d tries, %q, writer started %v", pw.tries, pw.buf.String(), o.running)
	}
	pw.room = 4
	o.Send([]byte("abcdefgh")) // four now, four by the writer goroutine
	o.WriteString("ij")
	o.Send([]byte("kl")) // behind the queue: not tried before it
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if got := pw.buf.String(); got != "response+stopped\nabcdefghijkl" {
		t.Fatalf("got %q", got)
	}
	if err := o.Send([]byte("late")); !errors.Is(err, ErrOutboxClosed) {
		t.Errorf("Send after Close: %v", err)
	}
}

// A client that stops reading holds the writers back at the bound; the first write error
// is returned by later calls.
func TestOutboxBoundAndErrors(t *testing.T) {
	r, w := io.Pipe()
	o := NewOutbox(w)
	blocked := make(chan struct{})
	go func() {
		chunk := make([]byte, 64<<10)
		for range OutboxMax/len(chunk) + 4 {
			o.Write(chunk)
			o.Flush()
		}
		close(blocked)
	}()
	select {
	case <-blocked:
		t.Fatal("Write went past the bound with nobody reading")
	case <-time.After(200 * time.Millisecond):
	}
	r.CloseWithError(errors.New("client gone"))
	select {
	case <-blocked:
	case <-time.After(10 * time.Second):
		t.Fatal("a writer stayed blocked after the client went away")
	}
	if _, err := o.Write([]byte("x")); err == nil {
		t.Error("Write after a failed write succeeded")
	}
	if err := o.Close(); err == nil {
		t.Error("Close did not report the failed write")
	}
}

// The terminal's answer and prompt, queued, leave in one write before its next read.
func TestFlushBeforeRead(t *testing.T) {
	pw := &partialWriter{room: 1 << 20}
	o := NewOutbox(pw)
	o.WriteString("5\t    total += i\n")
	o.WriteString("(polydbg) ")
	if pw.tries != 0 {
		t.Fatal("Write wrote before a flush")
	}
	in := FlushBeforeRead(strings.NewReader("next\n"), o)
	buf := make([]byte, 16)
	if n, err := in.Read(buf); err != nil || string(buf[:n]) != "next\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	if pw.tries != 1 || pw.buf.String() != "5\t    total += i\n(polydbg) " {
		t.Fatalf("%d writes, %q: want the answer and the prompt in one write before the read", pw.tries, pw.buf.String())
	}
}

// CloseFor waits for the client to read while the server is not told to stop, and gives
// up after ShutdownGrace once it is: a client that stopped reading cannot hold a server
// that was sent SIGTERM.
func TestOutboxCloseForGivesUpAfterAStop(t *testing.T) {
	r, w := io.Pipe()
	o := NewOutbox(w)
	o.WriteString("unread")
	o.Flush()
	ctx, cancel := context.WithCancel(context.Background())
	closed := make(chan error, 1)
	go func() { closed <- o.CloseFor(ctx) }()
	select {
	case err := <-closed:
		t.Fatalf("CloseFor returned %v before the client read and before the stop", err)
	case <-time.After(100 * time.Millisecond):
	}
	cancel() // too late for this call, which already waits as Close does: read it
	if b, _ := io.ReadAll(io.LimitReader(r, 6)); string(b) != "unread" {
		t.Fatalf("read %q", b)
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}

	_, w2 := io.Pipe() // a client that never reads
	o2 := NewOutbox(w2)
	o2.WriteString("never read")
	o2.Flush()
	start := time.Now()
	if err := o2.CloseFor(ctx); !errors.Is(err, ErrOutboxStalled) {
		t.Fatalf("CloseFor after the stop: %v", err)
	}
	if d := time.Since(start); d < ShutdownGrace/2 || d > ShutdownGrace+time.Second {
		t.Errorf("CloseFor gave up after %v, want about %v", d, ShutdownGrace)
	}
}

package wire

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// TryWriter is a writer that can also write without waiting: TryWrite writes what the
// destination takes at once (a pipe with room) and returns how much, never blocking. A
// stdio front end's standard output is one (cmd/polydbg).
type TryWriter interface {
	io.Writer
	TryWrite(p []byte) (int, error)
}

// OutboxMax bounds what an Outbox holds unwritten: a Write beyond it waits for the client
// to read, so a client that stops reading holds the program back instead of growing memory.
const OutboxMax = 1 << 20

// ErrOutboxClosed is returned by a Write after Close.
var ErrOutboxClosed = errors.New("wire: outbox closed")

// Outbox is a front end's output to one client. Write queues; Flush sends what is queued
// on the caller's goroutine when the destination takes it at once (a TryWriter with room),
// and otherwise hands it to a goroutine of its own that waits until the client reads.
// So a command is read, handled and answered on one goroutine with no hand-off, yet the
// goroutine that reads commands never blocks on a client that writes before it reads (a
// pipelining client over a synchronous pipe would otherwise deadlock with the server).
// Bytes leave in the order written. Its methods may be called from several goroutines.
type Outbox struct {
	w   io.Writer
	try TryWriter // w, when it can write without waiting

	mu      sync.Mutex
	moved   sync.Cond // signalled when the writer goroutine has written a batch
	buf     []byte    // queued, not yet given to a write
	spare   []byte    // the last batch's buffer, reused
	writing bool      // the writer goroutine holds a batch
	held    int       // the size of that batch
	running bool      // the writer goroutine exists
	kick    chan struct{}
	err     error // the first write error: every later call returns it
	closed  bool
}

// NewOutbox returns an Outbox that writes to w.
func NewOutbox(w io.Writer) *Outbox {
	o := &Outbox{w: w, kick: make(chan struct{}, 1)}
	o.try, _ = w.(TryWriter)
	o.moved.L = &o.mu
	return o
}

// Write queues p. It waits while OutboxMax bytes are queued and unwritten.
func (o *Outbox) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.queue(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// queue appends p to what is queued, first waiting while OutboxMax bytes are (o.mu held).
func (o *Outbox) queue(p []byte) error {
	for o.err == nil && !o.closed && len(o.buf)+o.held >= OutboxMax {
		o.startWriter()
		o.moved.Wait()
	}
	if o.err != nil {
		return o.err
	}
	if o.closed {
		return ErrOutboxClosed
	}
	o.buf = append(o.buf, p...)
	return nil
}

// WriteString queues s.
func (o *Outbox) WriteString(s string) (int, error) {
	o.mu.Lock()
	if o.err == nil && !o.closed && len(o.buf)+o.held < OutboxMax {
		o.buf = append(o.buf, s...)
		o.mu.Unlock()
		return len(s), nil
	}
	o.mu.Unlock()
	return o.Write([]byte(s))
}

// Flush sends what is queued without waiting for the client: what the destination does
// not take at once is written by the outbox's goroutine. It returns the first write error.
func (o *Outbox) Flush() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err != nil || len(o.buf) == 0 {
		return o.err
	}
	if o.try != nil && !o.writing {
		n, err := o.try.TryWrite(o.buf)
		if err != nil {
			o.err = err
			return err
		}
		o.buf = o.buf[:copy(o.buf, o.buf[n:])]
		if len(o.buf) == 0 {
			return nil
		}
	}
	o.startWriter()
	return nil
}

// Send is Write and Flush in one, without copying p when nothing is queued and the
// destination takes all of it at once (a front end that frames a burst itself).
func (o *Outbox) Send(p []byte) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.err == nil && !o.closed && len(o.buf) == 0 && !o.writing && o.try != nil {
		n, err := o.try.TryWrite(p)
		if err != nil {
			o.err = err
			return err
		}
		if p = p[n:]; len(p) == 0 {
			return nil
		}
	}
	if err := o.queue(p); err != nil {
		return err
	}
	o.startWriter()
	return nil
}

// startWriter has the writer goroutine write what is queued (with o.mu held).
func (o *Outbox) startWriter() {
	if !o.running {
		o.running = true
		go o.writer()
	}
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// writer writes queued batches, waiting for the client, until the outbox is closed and
// empty or a write fails.
func (o *Outbox) writer() {
	for range o.kick {
		for {
			o.mu.Lock()
			if o.err != nil || len(o.buf) == 0 {
				o.moved.Broadcast()
				done := o.closed || o.err != nil
				if done {
					o.running = false
				}
				o.mu.Unlock()
				if done {
					return
				}
				break
			}
			batch := o.buf
			o.buf, o.spare = o.spare[:0], nil
			o.writing, o.held = true, len(batch)
			o.mu.Unlock()
			_, err := o.w.Write(batch)
			o.mu.Lock()
			o.writing, o.held = false, 0
			o.spare = batch[:0]
			if err != nil && o.err == nil {
				o.err = err
			}
			o.moved.Broadcast()
			o.mu.Unlock()
		}
	}
}

// Close writes out what is queued, waiting for the client to read it, and ends the
// outbox's goroutine; later Writes fail. It returns the first write error.
func (o *Outbox) Close() error { return o.close(nil) }

// ShutdownGrace is how long CloseFor waits for a client that does not read, once the
// server has been told to stop.
const ShutdownGrace = 2 * time.Second

// ErrOutboxStalled is returned by CloseFor when the client did not read what was left
// within ShutdownGrace; it was dropped.
var ErrOutboxStalled = errors.New("wire: the client did not read the last output")

// CloseFor is Close for a server that ends because ctx is done (a signal): then it waits
// at most ShutdownGrace for the client to read, so that a client that stopped reading
// cannot keep the process alive. While ctx is not done it is Close.
func (o *Outbox) CloseFor(ctx context.Context) error {
	if ctx.Err() == nil {
		return o.Close()
	}
	expired := false
	t := time.AfterFunc(ShutdownGrace, func() {
		o.mu.Lock()
		expired = true
		o.moved.Broadcast()
		o.mu.Unlock()
	})
	defer t.Stop()
	return o.close(&expired)
}

// close is Close; it stops waiting once *expired is set (with o.mu held), when expired is
// not nil.
func (o *Outbox) close(expired *bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	if o.err == nil && (len(o.buf) > 0 || o.writing) {
		o.startWriter()
		for o.err == nil && (len(o.buf) > 0 || o.writing) {
			if expired != nil && *expired {
				o.err, o.buf = ErrOutboxStalled, nil
				break
			}
			o.moved.Wait()
		}
	}
	if o.running {
		o.startWriter() // let it see closed and end
	}
	return o.err
}

// FlushBeforeRead returns a reader that flushes o before each read of r: a front end that
// reads its next command has said all it will say, and its client may be waiting for it
// (the terminal's answer and its prompt leave together, in one write, at that moment).
func FlushBeforeRead(r io.Reader, o *Outbox) io.Reader { return flushFirst{r, o} }

type flushFirst struct {
	r io.Reader
	o *Outbox
}

func (f flushFirst) Read(p []byte) (int, error) {
	if err := f.o.Flush(); err != nil {
		return 0, err
	}
	return f.r.Read(p)
}

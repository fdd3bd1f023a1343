package aura

import (
	"bytes"
	"io"
	"sync"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/internal/wirejson"
)

// EventPrefix begins every event line on stdout.
const EventPrefix = "AURA_DEBUG_EVENT "

// stdout is the process's stdout: the program's own output and, with the protocol on, event
// lines. An event line always begins at the start of a line: a partial line of program
// output is held back until the program completes it, or until a stop or the end of the
// run, when it is written with a line end added. Nothing is lost or reordered otherwise.
// With the protocol on, it writes through a wire.Outbox: a client that writes commands
// before it reads the answers never blocks the goroutine that reads them.
type stdout struct {
	mu       sync.Mutex
	w        io.Writer
	box      *wire.Outbox // w, with the protocol on; nil when off (program output goes straight out)
	protocol bool
	partial  []byte // program output after its last "\n", not yet written
	line     []byte // the event line being written (kept for the next)
	failed   bool   // the writer failed (client gone): later writes are dropped
}

func newStdout(w io.Writer, protocol bool) *stdout {
	o := &stdout{w: w, protocol: protocol}
	if protocol {
		o.box = wire.NewOutbox(w)
		o.w = o.box
	}
	return o
}

func (o *stdout) write(p []byte) {
	if o.failed || len(p) == 0 {
		return
	}
	if _, err := o.w.Write(p); err != nil {
		o.failed = true
	}
}

// program writes program output.
func (o *stdout) program(p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.protocol {
		o.write(p)
		return
	}
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		o.partial = append(o.partial, p...)
		return
	}
	if head := p[:i+1]; len(o.partial) > 0 {
		o.write(append(o.partial, head...)) // the held-back part first, in one write
	} else {
		o.write(head)
	}
	o.partial = append(o.partial[:0], p[i+1:]...)
}

// flushPartial writes a held-back partial line, completed with "\n"; o.mu held.
func (o *stdout) flushPartial() {
	if len(o.partial) == 0 {
		return
	}
	o.write(append(o.partial, '\n'))
	o.partial = o.partial[:0]
}

// event writes one event line. With release, a held-back partial line is written first
// (a stop, or the end of the run); otherwise it stays held back after the event.
func (o *stdout) event(ev any, release bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.protocol {
		return
	}
	if release {
		o.flushPartial()
	}
	o.line = appendEvent(o.line[:0], ev)
	o.write(o.line)
}

// finish writes what is left of the program's output (at the end of the run).
func (o *stdout) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.write(o.partial) // nothing when empty
	o.partial = o.partial[:0]
}

// flush sends what was written since the last flush (after a command, a batch of events):
// on the caller's goroutine when the pipe has room, else by the outbox's own.
func (o *stdout) flush() {
	if o.box == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.failed && o.box.Flush() != nil {
		o.failed = true
	}
}

// close writes out what the client has not read yet, waiting for it (the end of the run).
func (o *stdout) close() {
	if o.box != nil {
		_ = o.box.Close()
	}
}

// appendEvent appends an event line to b: the prefix, compact JSON without HTML escaping, "\n".
func appendEvent(b []byte, ev any) []byte {
	out, err := wirejson.Append(append(b, EventPrefix...), ev)
	if err != nil {
		return append(b[:0], EventPrefix+`{"event":"error","message":"cannot encode event"}`+"\n"...)
	}
	return append(out, '\n')
}

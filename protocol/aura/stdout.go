package aura

import (
	"bytes"
	"context"
	"io"
	"strconv"
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

// close writes out what the client has not read yet, waiting for it (the end of the run);
// after a signal (ctx done) for ShutdownGrace at most.
func (o *stdout) close(ctx context.Context) {
	if o.box != nil {
		_ = o.box.CloseFor(ctx)
	}
}

// appendEvent appends an event line to b: the prefix, compact JSON without HTML escaping, "\n".
func appendEvent(b []byte, ev any) []byte {
	if st, ok := ev.(StoppedEvent); ok { // every step's: written field by field
		return append(st.appendJSON(append(b, EventPrefix...)), '\n')
	}
	out, err := wirejson.Append(append(b, EventPrefix...), ev)
	if err != nil {
		return append(b[:0], EventPrefix+`{"event":"error","message":"cannot encode event"}`+"\n"...)
	}
	return append(out, '\n')
}

// appendJSON appends the event as encoding/json writes it (without HTML escaping), with
// no reflection: a step's stopped event is the message a stepping client waits for.
// TestStoppedEncodedAsJSON holds it to encoding/json's output.
func (ev StoppedEvent) appendJSON(b []byte) []byte {
	b = wirejson.AppendString(append(b, `{"event":`...), ev.Event)
	b = wirejson.AppendString(append(b, `,"reason":`...), ev.Reason)
	b = wirejson.AppendString(append(b, `,"file":`...), ev.File)
	b = strconv.AppendInt(append(b, `,"line":`...), int64(ev.Line), 10)
	b = strconv.AppendInt(append(b, `,"col":`...), int64(ev.Col), 10)
	b = wirejson.AppendStringMap(append(b, `,"env":`...), ev.Env)
	b = append(b, `,"watches":`...)
	if ev.Watches == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, w := range ev.Watches {
			if i > 0 {
				b = append(b, ',')
			}
			b = wirejson.AppendString(append(b, `{"expr":`...), w.Expr)
			if w.Value != nil {
				b = wirejson.AppendString(append(b, `,"value":`...), *w.Value)
			}
			if w.Error != "" {
				b = wirejson.AppendString(append(b, `,"error":`...), w.Error)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if ev.Func != "" {
		b = wirejson.AppendString(append(b, `,"func":`...), ev.Func)
	}
	if ev.BreakpointID != 0 {
		b = strconv.AppendInt(append(b, `,"breakpoint_id":`...), int64(ev.BreakpointID), 10)
	}
	if ev.Error != "" {
		b = wirejson.AppendString(append(b, `,"error":`...), ev.Error)
	}
	return append(b, '}')
}

package aura

import (
	"bytes"
	"io"
	"sync"

	"github.com/polydbg/polydbg/internal/wirejson"
)

// EventPrefix begins every event line on stdout.
const EventPrefix = "AURA_DEBUG_EVENT "

// stdout is the process's stdout: the program's own output and, with the protocol on, event
// lines. An event line always begins at the start of a line: a partial line of program
// output is held back until the program completes it, or until a stop or the end of the
// run, when it is written with a line end added. Nothing is lost or reordered otherwise.
type stdout struct {
	mu       sync.Mutex
	w        io.Writer
	protocol bool
	partial  []byte // program output after its last "\n", not yet written
	line     []byte // the event line being written (kept for the next)
	failed   bool   // the writer failed (client gone): later writes are dropped
}

func newStdout(w io.Writer, protocol bool) *stdout { return &stdout{w: w, protocol: protocol} }

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

// appendEvent appends an event line to b: the prefix, compact JSON without HTML escaping, "\n".
func appendEvent(b []byte, ev any) []byte {
	out, err := wirejson.Append(append(b, EventPrefix...), ev)
	if err != nil {
		return append(b[:0], EventPrefix+`{"event":"error","message":"cannot encode event"}`+"\n"...)
	}
	return append(out, '\n')
}

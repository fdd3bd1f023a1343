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
	if len(o.partial) > 0 {
		buf := append(o.partial, p[:i+1]...)
		o.write(buf)
		o.partial = o.partial[:0]
	} else {
		o.write(p[:i+1])
	}
	o.partial = append(o.partial, p[i+1:]...)
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
	b := encodeEvent(ev)
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.protocol {
		return
	}
	if release {
		o.flushPartial()
	}
	o.write(b)
}

// finish writes what is left of the program's output (at the end of the run).
func (o *stdout) finish() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.partial) > 0 {
		o.write(o.partial)
		o.partial = o.partial[:0]
	}
}

// encodeEvent renders an event line: the prefix, compact JSON without HTML escaping, "\n".
func encodeEvent(ev any) []byte {
	b, err := wirejson.Append(append(make([]byte, 0, 512), EventPrefix...), ev)
	if err != nil {
		return []byte(EventPrefix + `{"event":"error","message":"cannot encode event"}` + "\n")
	}
	return append(b, '\n')
}

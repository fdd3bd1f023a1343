package web

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"sync"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/launch"
)

// Bounds of what a hub keeps, whatever the number of pages open: the server's memory per
// session is these, and per page only a cursor and one message being written.
const (
	outputRing     = 256 << 10 // bytes of program output kept (up to twice this) for pages that fall behind
	outputChunkMax = 64 << 10  // bytes of output in one message
	telemetryKeep  = 240       // telemetry points kept for a page that opens late
	maxVarsPerRef  = 500       // variables sent for one reference
	hubQueue       = 1024      // session events waiting for the hub
)

// hub is the one subscriber of one debuggee: it drains the session's events at once (so it
// never holds the debuggee back), keeps the latest state snapshot, a ring of recent output,
// the console's latest frame and telemetry, and wakes the pages watching it. Pages read
// from the hub, never from the session, so twenty pages cost the session what one does.
type hub struct {
	entry *launch.Entry
	d     *launch.Debuggee
	ctx   context.Context
	stop  context.CancelFunc
	done  chan struct{} // closed when run has drained the session's events

	mu       sync.Mutex
	wake     chan struct{} // closed and replaced at every change
	state    []byte        // JSON of the latest snapshot
	stateVer uint64
	files    []string // the source files the state names
	out      []byte   // the last outputRing bytes of output
	outEnd   int64    // bytes of output ever written
	frame    []byte   // JSON of the latest console frame
	frameVer uint64
	tele     []telePoint
	teleVer  uint64
	mcu      *mcuFeed // a firmware session's device telemetry, or nil
	ended    bool

	gdb gdbcmd.Guest // the page's gdb commands (gdb.go)
}

type telePoint struct {
	Frame  int64 `json:"frame"`
	Cycles int64 `json:"cycles"` // cycles per frame over the last interval
	Budget int64 `json:"budget"`
}

func newHub(e *launch.Entry) *hub {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hub{entry: e, d: e.Debuggee, ctx: ctx, stop: cancel, done: make(chan struct{}), wake: make(chan struct{})}
	// Bounded: if the hub ever falls behind a program that prints without end, the program
	// waits for it (as for a terminal) instead of the queue growing without bound.
	sub := h.d.SubscribeWith(engine.SubscribeOptions{MaxQueued: hubQueue})
	h.snapshot()
	go h.run(sub)
	if h.d.Console != nil {
		go h.console()
	}
	if h.d.MCU != nil {
		h.watchMCU()
	}
	return h
}

// changed wakes every page; call with h.mu held.
func (h *hub) changed() {
	close(h.wake)
	h.wake = make(chan struct{})
}

// run drains the session's events: output goes to the ring, anything that changes what a
// page shows makes a new snapshot once the queue is empty (a burst of events costs one).
func (h *hub) run(sub *engine.Subscription) {
	defer close(h.done)
	defer sub.Close()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-sub.Ready():
		}
		dirty, ended := false, false
		for {
			e, ok, end := sub.TryNext()
			if end {
				ended = true
			}
			if !ok {
				break
			}
			if e.Kind == engine.EventOutput {
				h.appendOutput(e.Text)
				continue
			}
			dirty = true
		}
		if dirty || ended {
			h.snapshot()
		}
		if ended {
			h.mu.Lock()
			h.ended = true
			h.changed()
			h.mu.Unlock()
			return
		}
	}
}

func (h *hub) appendOutput(text string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outEnd += int64(len(text))
	h.out = append(h.out, text...)
	if len(h.out) > 2*outputRing { // trimmed in bulk: a copy per outputRing bytes written
		h.out = append(h.out[:0], h.out[len(h.out)-outputRing:]...)
	}
	h.changed()
}

// outputSince returns the output after cursor (at most outputChunkMax bytes), the new
// cursor, and how many bytes were lost because the page fell further behind than the ring.
func (h *hub) outputSince(cursor int64) (text string, next, dropped int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	start := h.outEnd - int64(len(h.out))
	if cursor < start {
		dropped, cursor = start-cursor, start
	}
	if cursor >= h.outEnd {
		return "", h.outEnd, dropped
	}
	b := h.out[cursor-start:]
	if len(b) > outputChunkMax {
		b = b[:outputChunkMax]
	}
	return string(b), cursor + int64(len(b)), dropped
}

// snapshot takes the session's state as a page shows it and publishes it.
func (h *hub) snapshot() {
	st := takeState(h.d)
	b, _ := json.Marshal(st)
	h.mu.Lock()
	h.state, h.files = b, st.Files
	h.stateVer++
	h.changed()
	h.mu.Unlock()
}

// console samples the screen and the counters at the console's frame rate (at most 60 a
// second) and publishes a frame when the picture changed, a telemetry point every frame.
func (h *hub) console() {
	con := h.d.Console
	fps := h.d.Spec.Console.FPS
	if fps <= 0 || fps > 60 {
		fps = 60
	}
	tick := time.NewTicker(time.Second / time.Duration(fps))
	defer tick.Stop()
	var last []byte
	prev := con.Snapshot()
	budget := con.Limits().CyclesPerFrame
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-tick.C:
		}
		fb := con.Screen()
		c := con.Snapshot()
		h.mu.Lock()
		if string(fb[:]) != string(last) {
			last = append(last[:0], fb[:]...)
			h.frame, _ = json.Marshal(map[string]any{"frame": c.FrameIndex, "w": 128, "h": 128, "px": base64.StdEncoding.EncodeToString(fb[:])})
			h.frameVer++
			h.changed()
		}
		if n := c.FrameIndex - prev.FrameIndex; n > 0 {
			h.tele = append(h.tele, telePoint{Frame: c.FrameIndex, Cycles: (c.Cycles - prev.Cycles) / n, Budget: budget})
			if len(h.tele) > telemetryKeep {
				h.tele = append(h.tele[:0], h.tele[len(h.tele)-telemetryKeep:]...)
			}
			h.teleVer++
			prev = c
			h.changed()
		}
		ended := h.ended
		h.mu.Unlock()
		if ended {
			return
		}
	}
}

// retireWait bounds how long a removed session's hub goes on draining its events.
const retireWait = 2 * time.Second

// retire stops the hub of a session that left the registry or was replaced, once it has
// taken the session's last events (an ended session's subscription ends when it closes),
// so that its pages are told how it ended before their streams end.
func (h *hub) retire() {
	if h.d.State().Ended() {
		select {
		case <-h.done:
		case <-time.After(retireWait):
		}
	}
	h.close()
}

// close stops the hub (its session was removed or replaced).
func (h *hub) close() {
	h.stop()
	h.mu.Lock()
	h.ended = true
	h.changed()
	h.mu.Unlock()
}

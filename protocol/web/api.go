package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// flushEvery coalesces a page's updates: a program printing thousands of lines a second
// costs the page at most this many messages a second per kind.
const flushEvery = 50 * time.Millisecond

// pageChunk is the most output a page is sent at once (every flushEvery at most): a page
// that is further behind gets the last pageChunk bytes, and the count of those skipped.
const pageChunk = 32 << 10

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

type sessionInfo struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Owner   string   `json:"owner"`
	Kind    string   `json:"kind"`
	State   string   `json:"state"`
	Token   string   `json:"token,omitempty"`
	Mirror  bool     `json:"mirror,omitempty"` // a read-only mirror: no controls for anyone
	Console bool     `json:"console"`
	Profile bool     `json:"profile"`
	MCU     bool     `json:"mcu"`               // a firmware session: plots, sampled variables, RTOS tasks
	Palette []string `json:"palette,omitempty"` // a console's colours, "#rrggbb" by index
}

func describe(e *launch.Entry) sessionInfo {
	d := e.Debuggee
	in := sessionInfo{ID: e.ID, Name: e.Name, Owner: e.Owner, Kind: string(d.Spec.Kind), State: d.State().String(), Console: d.Console != nil, Profile: d.Profiler != nil, MCU: d.MCU != nil}
	if d.Console != nil {
		for _, c := range console.Palette {
			r, g, b, _ := c.RGBA()
			in.Palette = append(in.Palette, fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8))
		}
	}
	return in
}

func (s *Server) list() []sessionInfo {
	out := []sessionInfo{}
	for _, e := range s.reg.List() {
		out = append(out, describe(e))
	}
	return out
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) { writeJSON(w, s.list()) }

// sseStream starts a server-sent event stream; send writes one event and flushes.
func sseStream(w http.ResponseWriter) func(event string, data []byte) error {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	return func(event string, data []byte) error {
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second)) // a page that stops reading is dropped
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
}

// sessionEvents streams the session list whenever it changes (and each second, for states).
func (s *Server) sessionEvents(w http.ResponseWriter, r *http.Request) {
	send := sseStream(w)
	ch := s.reg.Changed()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var last []byte
	for {
		b, _ := json.Marshal(s.list())
		if string(b) != string(last) {
			if send("sessions", b) != nil {
				return
			}
			last = b
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		case <-ch:
		case <-tick.C:
		}
	}
}

func (s *Server) hubOr404(w http.ResponseWriter, r *http.Request) *hub {
	h := s.hubFor(r.PathValue("id"))
	if h == nil {
		http.Error(w, "no such session", http.StatusNotFound)
	}
	return h
}

// info describes one session, with its token when the page may have the controls.
func (s *Server) info(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil {
		return
	}
	in := describe(h.entry)
	in.Mirror = s.mirror
	if s.trusted(r) && !s.mirror {
		in.Token = s.SessionToken(h.entry.ID)
	}
	writeJSON(w, in)
}

// events streams one session to one page: the state snapshot when it changes, the output
// since the page's cursor (from the start of the ring), console frames and telemetry.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil {
		return
	}
	send := sseStream(w)
	fmt.Fprint(w, "retry: 500\n\n") // reconnect soon after a restart replaced the session
	var stateVer, frameVer, teleVer, plotSeq, mcuVer uint64
	var teleFrame int64 = -1
	h.mu.Lock()
	cursor := h.outEnd - int64(len(h.out))
	h.mu.Unlock()
	// final: the hub ended (its session was removed or replaced): one last pass sends what
	// the page has not seen yet (an exit, its last output), then the page reconnects.
	for final := false; ; {
		h.mu.Lock()
		wake, state, sv, frame, fv, tv := h.wake, h.state, h.stateVer, h.frame, h.frameVer, h.teleVer
		var tele []telePoint
		if tv != teleVer {
			for _, p := range h.tele {
				if p.Frame > teleFrame {
					tele = append(tele, p)
				}
			}
		}
		outEnd := h.outEnd
		plots, mcuState, nseq, nver := h.mcuSince(plotSeq, mcuVer)
		h.mu.Unlock()
		var err error
		if sv != stateVer {
			stateVer, err = sv, send("state", state)
		}
		if err == nil && cursor < outEnd {
			var text string
			var dropped, skipped int64
			if outEnd-cursor > pageChunk { // a page shows the tail: what it cannot show is skipped
				skipped = outEnd - pageChunk - cursor
				cursor += skipped
			}
			text, cursor, dropped = h.outputSince(cursor)
			dropped += skipped
			b, _ := json.Marshal(map[string]any{"text": text, "dropped": dropped})
			err = send("output", b)
		}
		if err == nil && fv != frameVer {
			frameVer, err = fv, send("frame", frame)
		}
		if err == nil && tv != teleVer {
			teleVer = tv
			if len(tele) > 0 {
				teleFrame = tele[len(tele)-1].Frame
				b, _ := json.Marshal(tele)
				err = send("telemetry", b)
			}
		}
		if err == nil && plots != nil {
			plotSeq, err = nseq, send("plot", plots)
		}
		if err == nil && mcuState != nil {
			mcuVer, err = nver, send("mcu", mcuState)
		}
		if err != nil || final {
			return
		}
		if cursor >= outEnd {
			select {
			case <-r.Context().Done():
				return
			case <-s.stop:
				return
			case <-h.ctx.Done():
				final = true
				continue
			case <-wake:
			}
		}
		select { // coalesce what comes next
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		case <-h.ctx.Done():
			final = true
		case <-time.After(flushEvery):
		}
	}
}

// source serves a file the session's state names (its program, its stack, its
// breakpoints), and nothing else.
func (s *Server) source(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil {
		return
	}
	file := r.URL.Query().Get("file")
	h.mu.Lock()
	known := slices.Contains(h.files, file)
	h.mu.Unlock()
	if !known {
		http.Error(w, "not a source file of this session", http.StatusNotFound)
		return
	}
	lines, err := h.d.Source(file)
	text := strings.Join(lines, "\n") + "\n"
	if err == nil && len(text) > maxSourceBytes {
		err = fmt.Errorf("%s is over the %d bytes the page shows", file, maxSourceBytes)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write([]byte(text))
}

// vars expands one variable reference of the current stop.
func (s *Server) vars(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil {
		return
	}
	ref, err := strconv.Atoi(r.URL.Query().Get("ref"))
	if err != nil || ref <= 0 {
		http.Error(w, "bad ref", http.StatusBadRequest)
		return
	}
	vs, err := variables(h.d, ref)
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	writeJSON(w, vs)
}

var resumeModes = map[string]engine.ResumeMode{
	"continue": engine.Continue, "stepIn": engine.StepInto, "stepOver": engine.StepOver,
	"stepOut": engine.StepOut, "stepFrame": engine.StepFrame,
}

// control runs, pauses, steps (into a chosen call of the line: stepInto with its target)
// or terminates the session.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil || !s.authorized(w, r) {
		return
	}
	var req struct {
		Action string
		Target string // stepInto: the function of the call to enter
		Nth    int    // and which of the line's calls of it (0: the first)
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var err error
	switch mode, ok := resumeModes[req.Action]; {
	case ok && h.d.State() == engine.Initialized:
		err = h.d.Start(mode != engine.Continue)
	case ok:
		err = h.d.Resume(mode)
	case req.Action == "stepInto" && req.Target != "":
		err = h.d.StepIntoTarget(req.Target, req.Nth)
	case req.Action == "pause":
		err = h.d.Pause()
	case req.Action == "terminate":
		err = h.d.Terminate()
	default:
		http.Error(w, "unknown action "+strconv.Quote(req.Action), http.StatusBadRequest)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	writeJSON(w, map[string]bool{"ok": true})
}

// breakpoints toggles a line breakpoint: the file's breakpoints are set again through
// SetBreakpoints with that line added or removed, the others kept with their conditions.
func (s *Server) breakpoints(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil || !s.authorized(w, r) {
		return
	}
	var req struct {
		File string
		Line int
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil || req.Line <= 0 || req.File == "" {
		http.Error(w, "bad request: want {file, line}", http.StatusBadRequest)
		return
	}
	var specs []engine.BreakpointSpec
	removed := false
	for _, b := range h.d.Breakpoints() {
		if b.Spec.Kind != engine.LineBreakpoint || b.Spec.File != req.File {
			continue
		}
		if b.Spec.Line == req.Line || b.Location.Line == req.Line {
			removed = true
			continue
		}
		specs = append(specs, b.Spec)
	}
	if !removed {
		specs = append(specs, engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: req.File, Line: req.Line})
	}
	set := h.d.SetBreakpoints(req.File, specs)
	h.snapshot()
	for _, b := range set {
		if b.Spec.Line == req.Line && !b.Verified {
			http.Error(w, strings.TrimSpace("breakpoint not set: "+b.Message), http.StatusConflict)
			return
		}
	}
	writeJSON(w, map[string]bool{"ok": true})
}

// input sets the console's buttons that are down (bit i is button i).
func (s *Server) input(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil || !s.authorized(w, r) {
		return
	}
	var req struct{ Buttons uint8 }
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1024)).Decode(&req); err != nil || h.d.Console == nil {
		http.Error(w, "bad request: want {buttons} for a console", http.StatusBadRequest)
		return
	}
	h.d.Console.SetInput(req.Buttons)
	writeJSON(w, map[string]bool{"ok": true})
}

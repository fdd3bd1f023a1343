package prometeu

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
)

// Requests lists every request type the server understands.
var Requests = []string{
	"start", "ok", "pause", "resume", "step", "stepFrame", "getState", "setBreakpoint",
	"clearBreakpoint", "getSource", "disassemble", "getFramebuffer", "setInput", "setTelemetry",
}

// MaxDisassemble bounds the instructions one disassemble request returns.
const MaxDisassemble = 1000

// MaxValueLen bounds the text of a value in a message (the stack top of getState).
const MaxValueLen = 1000

// fields is a message's fields besides its type.
type fields map[string]any

// encode writes a message with "type" first and the other fields in name order.
func encode(typ string, f fields) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":`)
	t, _ := json.Marshal(typ)
	b.Write(t)
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var v bytes.Buffer
	enc := json.NewEncoder(&v)
	enc.SetEscapeHTML(false)
	for _, k := range keys {
		v.Reset()
		if err := enc.Encode(f[k]); err != nil {
			v.Reset()
			v.WriteString("null")
		}
		b.WriteByte(',')
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(bytes.TrimSuffix(v.Bytes(), []byte("\n")))
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (s *Server) handshake() []byte {
	m := s.con.Cartridge().Manifest
	mode := s.opts.AppMode
	if mode == "" {
		mode = m.AppMode
	}
	return encode("handshake", fields{
		"protocol_version": ProtocolVersion,
		"runtime_version":  RuntimeVersion,
		"cartridge": map[string]any{
			"app_id": m.AppID, "title": m.Title, "app_version": m.AppVersion, "app_mode": mode,
		},
	})
}

// request is a parsed request line.
type request struct {
	typ    string
	id     any // nil when absent
	hasID  bool
	params map[string]json.RawMessage
}

// reqError is a request that cannot be served: its message, and the request's id and type
// when they could be read.
type reqError struct {
	msg string
}

func (e *reqError) Error() string { return e.msg }

func bad(format string, args ...any) error { return &reqError{fmt.Sprintf(format, args...)} }

// parseRequest reads a request line. It returns the request as far as it could be read
// (for the id of the error response) and what is wrong with it.
func parseRequest(line []byte) (request, error) {
	var req request
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return req, bad("a request must be a JSON object")
		}
		return req, bad("malformed JSON: %v", err)
	}
	if raw == nil {
		return req, bad("a request must be a JSON object")
	}
	if id, ok := raw["id"]; ok {
		d := json.NewDecoder(bytes.NewReader(id))
		d.UseNumber()
		var v any
		if d.Decode(&v) == nil {
			req.id, req.hasID = v, true
		}
	}
	t, ok := raw["type"]
	if !ok {
		return req, bad("type is missing")
	}
	if err := json.Unmarshal(t, &req.typ); err != nil {
		return req, bad("type must be a string")
	}
	known := false
	for _, r := range Requests {
		known = known || r == req.typ
	}
	if !known {
		name := req.typ
		req.typ = ""
		if len(name) > 64 {
			name = name[:64] + "..."
		}
		return req, bad("unknown request type %q (known: %s)", name, strings.Join(Requests, ", "))
	}
	delete(raw, "type")
	delete(raw, "id")
	req.params = raw
	return req, nil
}

// intParam reads an integer parameter in [lo, hi].
func (r request) intParam(name string, lo, hi int64, required bool, def int64) (int64, error) {
	v, ok := r.params[name]
	if !ok {
		if required {
			return 0, bad("%s: %s is missing", r.typ, name)
		}
		return def, nil
	}
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || string(v) == "null" || f != math.Trunc(f) {
		return 0, bad("%s: %s must be an integer", r.typ, name)
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, bad("%s: %s must be between %d and %d", r.typ, name, lo, hi)
	}
	return int64(f), nil
}

func response(req request, f fields) []byte {
	if f == nil {
		f = fields{}
	}
	f["ok"] = true
	if req.typ != "" {
		f["request"] = req.typ
	}
	if req.hasID {
		f["id"] = req.id
	}
	return encode("response", f)
}

func errorResponse(req *request, typ, msg string) []byte {
	f := fields{"ok": false, "error": msg}
	if req != nil {
		if req.hasID {
			f["id"] = req.id
		}
		typ = req.typ
	}
	if typ != "" {
		f["request"] = typ
	}
	return encode("response", f)
}

// handleLine serves one request line and answers it.
func (c *client) handleLine(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	s := c.s
	req, err := parseRequest(line)
	if err != nil {
		c.send(errorResponse(&req, "", err.Error()))
		return
	}
	s.order.Lock()
	defer s.order.Unlock()
	s.drainLocked()
	if req.typ == "start" || req.typ == "ok" {
		if !s.authorized(req) {
			c.send(errorResponse(&req, "", "unauthorized: the handshake answer needs the server's token (\"token\": \"...\")"))
			return
		}
		c.setReady()
		if req.typ == "start" {
			s.mu.Lock()
			resume := s.waiting
			s.waiting = false
			s.mu.Unlock()
			if resume && s.sess.State() == engine.Stopped {
				if err := s.sess.Continue(); err != nil {
					c.send(errorResponse(&req, "", err.Error()))
					return
				}
			}
		}
		c.send(response(req, nil))
		return
	}
	if !c.isReady() {
		c.send(errorResponse(&req, "", "answer the handshake with start or ok first"))
		return
	}
	f, err := s.serve(req)
	if err != nil {
		c.send(errorResponse(&req, "", err.Error()))
		return
	}
	c.send(response(req, f))
}

// authorized checks the token of a handshake answer when the server has one.
func (s *Server) authorized(req request) bool {
	if s.opts.Token == "" {
		return true
	}
	var tok string
	if raw, ok := req.params["token"]; !ok || json.Unmarshal(raw, &tok) != nil {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

// serve runs one request (after the handshake).
func (s *Server) serve(req request) (fields, error) {
	switch req.typ {
	case "pause":
		return nil, s.sess.Pause()
	case "resume", "step", "stepFrame":
		mode := map[string]engine.ResumeMode{"resume": engine.Continue, "step": engine.StepInstruction, "stepFrame": engine.StepFrame}[req.typ]
		if err := s.sess.Resume(mode); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.waiting = false
		s.mu.Unlock()
		return nil, nil
	case "getState":
		return s.state(), nil
	case "setBreakpoint":
		pc, err := req.intParam("pc", 0, math.MaxInt32, true, 0)
		if err != nil {
			return nil, err
		}
		return s.setBreakpoint(uint64(pc))
	case "clearBreakpoint":
		pc, err := req.intParam("pc", 0, math.MaxInt32, true, 0)
		if err != nil {
			return nil, err
		}
		bp, ok := s.sess.InstructionBreakpointAt(uint64(pc))
		if !ok {
			return nil, bad("clearBreakpoint: no breakpoint at pc %d", pc)
		}
		if err := s.sess.RemoveBreakpoint(bp.ID); err != nil {
			return nil, err
		}
		return fields{"pc": pc}, nil
	case "getSource":
		pc, err := req.intParam("pc", 0, math.MaxInt32, true, 0)
		if err != nil {
			return nil, err
		}
		return s.source(uint64(pc))
	case "disassemble":
		pc, err := req.intParam("pc", 0, math.MaxInt32, true, 0)
		if err != nil {
			return nil, err
		}
		n, err := req.intParam("count", 1, MaxDisassemble, false, 16)
		if err != nil {
			return nil, err
		}
		if pc >= int64(len(s.con.Cartridge().Program.Code)) {
			return nil, bad("disassemble: pc %d is outside the program (0..%d)", pc, len(s.con.Cartridge().Program.Code)-1)
		}
		return fields{"instructions": s.con.Disassemble(int(pc), int(n))}, nil
	case "getFramebuffer":
		fb, live := s.con.Screen(), false
		if s.sess.State() == engine.Stopped {
			if l, err := s.con.LiveScreen(); err == nil {
				fb, live = l, true
			}
		}
		return fields{"width": console.Width, "height": console.Height, "format": "png", "live": live,
			"frame_index": s.con.FrameIndex(), "data": base64.StdEncoding.EncodeToString(fb.PNG())}, nil
	case "setInput":
		b, err := req.intParam("buttons", 0, 255, true, 0)
		if err != nil {
			return nil, err
		}
		s.con.SetInput(uint8(b))
		return fields{"buttons": b}, nil
	case "setTelemetry":
		n, err := req.intParam("interval_frames", 0, 1<<30, true, 0)
		if err != nil {
			return nil, err
		}
		s.con.SetTelemetry(int(n))
		return fields{"interval_frames": n}, nil
	}
	return nil, bad("unknown request type %q", req.typ)
}

func (s *Server) setBreakpoint(pc uint64) (fields, error) {
	bp, err := s.sess.EnsureInstructionBreakpoint(pc)
	if err != nil {
		return nil, fmt.Errorf("setBreakpoint: %w", err)
	}
	f, err := s.source(pc)
	if err != nil {
		return nil, err
	}
	f["breakpoint_id"] = bp.ID
	return f, nil
}

// source describes the instruction at pc, with the text of its line.
func (s *Server) source(pc uint64) (fields, error) {
	loc, err := s.sess.ResolvePC(pc)
	if err != nil {
		return nil, bad("%v", err)
	}
	text, _ := s.sess.SourceLine(loc.File, loc.Line)
	return fields{"pc": pc, "file": s.relFile(loc.File), "line": loc.Line, "col": loc.Col, "function": loc.Func, "text": text}, nil
}

// state answers getState.
func (s *Server) state() fields {
	m := s.con.Cartridge().Manifest
	st := s.sess.State()
	f := fields{"state": st.String(), "app_id": m.AppID, "pc": nil, "stack_top": nil, "function": nil,
		"file": nil, "line": nil, "reason": nil}
	n := s.con.Snapshot()
	if st == engine.Stopped {
		if stop := s.sess.LastStop(); stop != nil {
			if live, err := s.con.Live(); err == nil {
				n = live.Counters
				if live.StackTop != nil {
					f["stack_top"] = engine.ClipValue(*live.StackTop, MaxValueLen)
				}
				loc := stop.Location
				f["pc"], f["function"], f["file"], f["line"] = loc.PC, loc.Func, s.relFile(loc.File), loc.Line
				f["reason"] = string(stop.Reason)
			} else {
				f["state"] = engine.Running.String()
			}
		}
	}
	f["frame_index"], f["cycles"], f["vm_steps"], f["syscalls"] = n.FrameIndex, n.Cycles, n.Steps, n.Syscalls
	return f
}

// consoleEvent translates the console's events (on the program's coroutine).
func (s *Server) consoleEvent(e console.Event) {
	var msg []byte
	switch e.Kind {
	case console.EventLog:
		msg = encode("log", fields{"level": e.Level, "source": e.Source, "msg": e.Msg, "frame_index": e.FrameIndex})
	case console.EventTelemetry:
		msg = encode("telemetry", fields{"frame_index": e.FrameIndex, "vm_steps": e.Steps, "syscalls": e.Syscalls, "cycles": e.Cycles})
	case console.EventCert:
		msg = encode("cert", fields{"rule": e.Rule, "used": e.Used, "limit": e.Limit, "frame_index": e.FrameIndex})
	default:
		return
	}
	s.order.Lock()
	s.broadcast(msg)
	s.order.Unlock()
}

// engineEvents delivers the session's events to the clients until it ends.
func (s *Server) engineEvents(sub *engine.Subscription) {
	defer s.events.Done()
	for range sub.Ready() {
		s.order.Lock()
		ended := s.drainLocked()
		s.order.Unlock()
		if ended {
			return
		}
	}
}

// drainLocked broadcasts the events queued up to now (s.order held): a request handled
// next finds every event that happened before it already delivered, so its response
// follows them and precedes the events its action causes. It reports the subscription's end.
func (s *Server) drainLocked() (ended bool) {
	_, ended = s.sub.CatchUp(s.sess, 0, false, func(e engine.Event) {
		if msg := s.eventMessage(e); msg != nil {
			s.broadcast(msg)
		}
	})
	return ended
}

// eventMessage is the message for an engine event, or nil for one clients are not told.
func (s *Server) eventMessage(e engine.Event) []byte {
	var msg []byte
	switch e.Kind {
	case engine.EventStopped:
		loc := e.Stop.Location
		f := fields{"pc": loc.PC, "frame_index": e.Stop.FrameIndex, "file": s.relFile(loc.File), "line": loc.Line, "function": loc.Func}
		if e.Stop.Reason == engine.ReasonBreakpoint {
			f["breakpoint_id"] = e.Stop.BreakpointID
			if e.Stop.Text != "" {
				f["message"] = e.Stop.Text
			}
			msg = encode("breakpointHit", f)
		} else {
			f["reason"] = string(e.Stop.Reason)
			if e.Stop.Text != "" {
				f["message"] = e.Stop.Text
			}
			msg = encode("stopped", f)
		}
	case engine.EventContinued:
		msg = encode("resumed", fields{"mode": e.Mode.String()})
	case engine.EventOutput:
		level, source := "info", e.Category
		switch e.Category {
		case "stderr":
			level = "error"
		case "console":
			source = "debugger"
		}
		msg = encode("log", fields{"level": level, "source": source, "msg": strings.TrimSuffix(e.Text, "\n"), "frame_index": s.con.FrameIndex()})
	case engine.EventExited:
		msg = encode("exited", fields{"code": e.ExitCode, "frame_index": s.con.FrameIndex()})
	case engine.EventTerminated:
		msg = encode("terminated", fields{"frame_index": s.con.FrameIndex()})
	default:
		return nil
	}
	return msg
}

// Start starts the session; with wait, it stops on entry and Start returns once it has
// (serve clients after that, so that they find it stopped).
func (s *Server) Start(wait bool) error {
	seq := s.sess.Seq()
	if err := s.sess.Start(wait); err != nil {
		return err
	}
	if wait {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := s.sess.WaitStop(ctx, seq); err != nil {
			return errors.New("the cartridge did not reach its entry stop")
		}
		s.order.Lock()
		s.drainLocked()
		s.order.Unlock()
	}
	return nil
}

// Wait waits until the session's last event has been delivered to the clients' queues.
func (s *Server) Wait() { s.events.Wait() }

package ez

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// handlers maps each command of the document (and our extensions) to its handler.
var handlers = map[string]func(srv *server, params json.RawMessage) error{
	"initialize":      (*server).initialize,
	"start":           (*server).start,
	"stepInto":        func(srv *server, _ json.RawMessage) error { return srv.step(engine.StepInto, "stepInto") },
	"stepOver":        func(srv *server, _ json.RawMessage) error { return srv.step(engine.StepOver, "stepOver") },
	"stepOut":         func(srv *server, _ json.RawMessage) error { return srv.step(engine.StepOut, "stepOut") },
	"continue":        (*server).cont,
	"pause":           (*server).pause,
	"setBreakpoint":   (*server).setBreakpoint,
	"clearBreakpoint": (*server).clearBreakpoint,
	"getVariables":    (*server).getVariables,
	"getStackTrace":   (*server).getStackTrace,
	"evaluate":        (*server).evaluate,
	"terminate":       (*server).terminate,
}

// commandNames are the handlers' names, for bareRequest.
var commandNames = func() []string {
	var names []string
	for name := range handlers {
		names = append(names, name)
	}
	return names
}()

// handleLine runs one command line; every failure is answered with an error event.
func (srv *server) handleLine(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	req, err := parseRequest(line)
	if err != nil {
		srv.fail(req.Command, err)
		return
	}
	h, ok := handlers[req.Command]
	if !ok {
		srv.fail(req.Command, fmt.Errorf("unknown command %q", req.Command))
		return
	}
	srv.catchUp()
	if err := h(srv, req.Params); err != nil {
		srv.fail(req.Command, err)
	}
}

// need returns the loaded program or the error for a command that needs one.
func (srv *server) need(verb string) (*session, error) {
	if srv.sess == nil {
		return nil, fmt.Errorf("Cannot %s: no program loaded (send initialize first)", verb)
	}
	return srv.sess, nil
}

// cannot words an engine error the way the document does ("Cannot step: program not
// started").
func cannot(verb string, err error) error {
	var why string
	switch {
	case errors.Is(err, engine.ErrNotStarted):
		why = "program not started"
	case errors.Is(err, engine.ErrRunning):
		why = "program is running"
	case errors.Is(err, engine.ErrEnded):
		why = "program has ended"
	case errors.Is(err, engine.ErrNotStopped):
		why = "program is not stopped"
	case errors.Is(err, engine.ErrNoFrame):
		why = "no such frame"
	default:
		return fmt.Errorf("Cannot %s: %w", verb, err)
	}
	return fmt.Errorf("Cannot %s: %s", verb, why)
}

// stateErr is the engine error for a state that does not allow a command.
func stateErr(st engine.State) error {
	switch st {
	case engine.Initialized:
		return engine.ErrNotStarted
	case engine.Running:
		return engine.ErrRunning
	case engine.Stopped:
		return nil
	}
	return engine.ErrEnded
}

func (srv *server) initialize(raw json.RawMessage) error {
	var p initializeParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	ss, err := srv.load(p)
	if err != nil {
		srv.send("error", compileErrorData(err))
		return nil
	}
	srv.closeSession()
	srv.sess = ss
	srv.send("initialized", initializedData{File: ss.file})
	return nil
}

func (srv *server) start(raw json.RawMessage) error {
	ss, err := srv.need("start")
	if err != nil {
		return err
	}
	var p startParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	switch st := ss.s.State(); st {
	case engine.Initialized:
		stop := len(ss.s.Breakpoints()) == 0
		if p.StopOnEntry != nil {
			stop = *p.StopOnEntry
		}
		if err := ss.s.Start(stop); err != nil {
			return cannot("start", err)
		}
		return nil
	case engine.Stopped: // "Begin or resume program execution"
		if err := srv.resume(ss, engine.Continue, "start"); err != nil {
			return err // a stop not yet told: one answer, the error (not started as well)
		}
		srv.send("started", empty{}) // before the events of the run, which are drained after
		return nil
	case engine.Running:
		return errors.New("Cannot start: program is already running")
	default:
		return errors.New("Cannot start: program has ended (send initialize to run it again)")
	}
}

func (srv *server) cont(json.RawMessage) error {
	ss, err := srv.need("continue")
	if err != nil {
		return err
	}
	return srv.resume(ss, engine.Continue, "continue")
}

func (srv *server) step(mode engine.ResumeMode, verb string) error {
	ss, err := srv.need(verb)
	if err != nil {
		return err
	}
	return srv.resume(ss, mode, verb)
}

// resume continues a stopped program. Before a step it records frame 0's variables
// (unless the last step's stop already did) to report what the step changed.
func (srv *server) resume(ss *session, mode engine.ResumeMode, verb string) error {
	if !ss.reportedStop {
		st := ss.s.State()
		if st == engine.Stopped { // stopped, but not yet reported: still running for the IDE
			st = engine.Running
		}
		return cannot(verb, stateErr(st))
	}
	stepping := mode != engine.Continue
	if stepping {
		ss.vars.Snapshot(ss.s.Session, 0)
	}
	if err := ss.s.Resume(mode); err != nil {
		return cannot(verb, err)
	}
	ss.stepping, ss.reportedStop = stepping, false
	if !stepping {
		ss.vars.Reset()
	}
	return nil
}

func (srv *server) pause(json.RawMessage) error {
	ss, err := srv.need("pause")
	if err != nil {
		return err
	}
	if st := ss.s.State(); st != engine.Running {
		if st == engine.Stopped {
			return errors.New("Cannot pause: program is already stopped")
		}
		return cannot("pause", stateErr(st))
	}
	if err := ss.s.Pause(); err != nil {
		return cannot("pause", err)
	}
	return nil
}

func (srv *server) setBreakpoint(raw json.RawMessage) error {
	ss, err := srv.need("set breakpoint")
	if err != nil {
		return err
	}
	var p breakpointParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	file, abs := p.File, resolvePath(p.File, ss.workDir)
	if abs == "" {
		file, abs = ss.file, ss.file
	}
	bp, err := ss.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: abs, Line: p.Line,
		Condition: p.Condition, HitCondition: p.HitCondition, LogMessage: p.LogMessage})
	if err != nil {
		return fmt.Errorf("Cannot set breakpoint at %s:%d: %w", file, p.Line, err)
	}
	// One breakpoint per line: setting a line again replaces it (new options, new id).
	for _, o := range ss.lineBreakpoints(abs, bp.Location.Line) {
		if o.ID != bp.ID && o.Location.Line == bp.Location.Line {
			_ = ss.s.RemoveBreakpoint(o.ID)
		}
	}
	d := breakpointSetData{File: file, Line: bp.Location.Line, ID: bp.ID}
	if bp.Location.Line != p.Line {
		d.RequestedLine = p.Line
	}
	srv.send("breakpointSet", d)
	return nil
}

// lineBreakpoints are the engine's line breakpoints at line of the file at path: bound
// there, or asked for there (engine.Session.BreakpointsAtPlace).
func (ss *session) lineBreakpoints(path string, line int) []engine.Breakpoint {
	at, _ := ss.s.BreakpointsAtPlace(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: path, Line: line})
	return slices.DeleteFunc(at, func(b engine.Breakpoint) bool { return b.Spec.Kind != engine.LineBreakpoint })
}

func (srv *server) clearBreakpoint(raw json.RawMessage) error {
	ss, err := srv.need("clear breakpoint")
	if err != nil {
		return err
	}
	var p breakpointParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	var gone []engine.Breakpoint
	if p.ID != 0 {
		for _, b := range ss.s.Breakpoints() {
			if b.ID == p.ID {
				gone = append(gone, b)
			}
		}
	} else {
		abs := resolvePath(p.File, ss.workDir)
		if abs == "" {
			abs = ss.file
		}
		gone = ss.lineBreakpoints(abs, p.Line)
	}
	if len(gone) == 0 {
		if p.ID != 0 {
			return fmt.Errorf("Cannot clear breakpoint: no breakpoint %d", p.ID)
		}
		return fmt.Errorf("Cannot clear breakpoint: no breakpoint at %s:%d", p.File, p.Line)
	}
	for _, b := range gone {
		_ = ss.s.RemoveBreakpoint(b.ID)
	}
	d := breakpointClearedData{File: p.File, Line: p.Line}
	if len(gone) == 1 {
		d.ID = gone[0].ID
		if p.ID != 0 {
			d.File, d.Line = gone[0].Spec.File, gone[0].Location.Line
		}
	}
	srv.send("breakpointCleared", d)
	return nil
}

func (srv *server) getVariables(raw json.RawMessage) error {
	ss, err := srv.need("get variables")
	if err != nil {
		return err
	}
	var p frameParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	vs, err := ss.s.FrameVariables(p.FrameIndex)
	if err != nil {
		return cannot("get variables", err)
	}
	out := make([]variable, len(vs))
	for i, v := range vs {
		out[i] = toVariable(v)
	}
	srv.send("variables", variablesData{FrameIndex: p.FrameIndex, Variables: out})
	return nil
}

func (srv *server) getStackTrace(json.RawMessage) error {
	ss, err := srv.need("get stack trace")
	if err != nil {
		return err
	}
	st, err := ss.s.Stack()
	if err != nil {
		return cannot("get stack trace", err)
	}
	frames := make([]frame, 0, len(st))
	for _, f := range st {
		frames = append(frames, frame{Index: f.Index, Function: f.Func, File: f.Location.File, Line: f.Location.Line, Column: f.Location.Col})
	}
	srv.send("stackTrace", stackTraceData{Frames: frames})
	return nil
}

func (srv *server) evaluate(raw json.RawMessage) error {
	ss, err := srv.need("evaluate")
	if err != nil {
		return err
	}
	var p evaluateParams
	if err := decodeParams(raw, &p); err != nil {
		return err
	}
	if strings.TrimSpace(p.Expression) == "" {
		return errors.New("Cannot evaluate: empty expression")
	}
	if err := stateErr(ss.s.State()); err != nil {
		return cannot("evaluate", err)
	}
	v, err := ss.s.Evaluate(p.FrameIndex, p.Expression, engine.EvalMode{Pure: !p.SideEffects})
	if err != nil {
		if errors.Is(err, engine.ErrNoFrame) || errors.Is(err, engine.ErrNotStopped) {
			return cannot("evaluate", err)
		}
		return err
	}
	if p.SideEffects {
		ss.vars.Reset() // the variables may have changed
	}
	srv.send("evaluateResult", evaluateResultData{Expression: p.Expression, Result: v.Value, Type: v.Type})
	return nil
}

func (srv *server) terminate(json.RawMessage) error {
	ss, err := srv.need("terminate")
	if err != nil {
		return err
	}
	ss.terminateReq = true
	if ss.s.State().Ended() {
		if ss.endSent {
			srv.send("terminated", empty{})
		}
		return nil // else terminated follows the exited event still on its way
	}
	if err := ss.s.Terminate(); err != nil {
		return cannot("terminate", err)
	}
	return nil
}

// handleEvent translates one engine event.
func (srv *server) handleEvent(e engine.Event) {
	ss := srv.sess
	switch e.Kind {
	case engine.EventStarted:
		srv.send("started", empty{})
	case engine.EventStopped:
		st := e.Stop
		loc := location{File: st.Location.File, Line: st.Location.Line, Column: st.Location.Col}
		if st.Text != "" { // a runtime error, or a breakpoint condition that failed
			at := loc // a copy: loc itself stays off the heap
			srv.send("error", errorData{Message: st.Text, Location: &at})
		}
		d := stoppedData{Reason: string(st.Reason), Location: loc, Function: st.Location.Func}
		if st.Reason == engine.ReasonBreakpoint {
			d.BreakpointID = st.BreakpointID
		}
		srv.send("stopped", d)
		ss.reportedStop = true
		if ss.stepping {
			for _, v := range ss.vars.Update(ss.s.Session, 0) {
				srv.send("variableUpdate", variableUpdateData{Name: v.Name, Value: v.Value, Type: v.Type, Scope: v.Scope})
			}
		} else {
			ss.vars.Reset()
		}
		ss.stepping = false
	case engine.EventOutput:
		cat := e.Category
		if cat != "stderr" {
			cat = "stdout" // logpoints ("console") print like the program
		}
		srv.send("output", outputData{Category: cat, Text: e.Text})
	case engine.EventExited:
		srv.send("exited", exitedData{ExitCode: e.ExitCode})
		if ss.terminateReq {
			srv.send("terminated", empty{})
		}
		ss.endSent, ss.reportedStop = true, false
	case engine.EventTerminated:
		srv.send("terminated", empty{})
		ss.endSent, ss.reportedStop = true, false
	}
}

func toVariable(v engine.ScopedVariable) variable {
	return variable{Name: v.Name, Value: v.Value, Type: v.Type, Scope: v.Scope}
}

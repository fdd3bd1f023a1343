package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

// Budget is what a client may say about the size of an answer.
type Budget struct {
	MaxBytes     int `json:"maxBytes,omitempty" jsonschema:"size budget of the whole answer in bytes (default 8000, at most 200000)"`
	ContextLines int `json:"contextLines,omitempty" jsonschema:"source lines shown before and after the current line (default 3)"`
	StackStart   int `json:"stackStart,omitempty" jsonschema:"first stack frame to list (paging of long stacks)"`
	StackCount   int `json:"stackCount,omitempty" jsonschema:"stack frames to list (default 20)"`
	MaxValueLen  int `json:"maxValueLen,omitempty" jsonschema:"longest value text before it is clipped (default 200)"`
}

func (b Budget) norm() Budget {
	if b.MaxBytes <= 0 {
		b.MaxBytes = 8000
	}
	b.MaxBytes = min(b.MaxBytes, 200000)
	if b.ContextLines <= 0 {
		b.ContextLines = 3
	}
	b.ContextLines = min(b.ContextLines, 50)
	if b.StackCount <= 0 {
		b.StackCount = 20
	}
	if b.MaxValueLen <= 0 {
		b.MaxValueLen = 200
	}
	b.StackStart = max(b.StackStart, 0)
	return b
}

// Location is a place in the program.
type Location struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Func string `json:"func,omitempty"`
	PC   string `json:"pc,omitempty"`
}

// SourceLine is one line of source around a stop.
type SourceLine struct {
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Current bool   `json:"current,omitempty"`
}

// Frame is one frame of the stack.
type Frame struct {
	Index    int      `json:"index"`
	Func     string   `json:"func"`
	Location Location `json:"location"`
}

// Var is a variable as an agent reads it. Ref > 0 means it has children (the variables
// tool lists them, by pages). Change says how it differs from the previous stop in the
// same function: "new" or "changed".
type Var struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Type   string `json:"type,omitempty"`
	Ref    int    `json:"ref,omitempty"`
	Len    int    `json:"len,omitempty"`
	Change string `json:"change,omitempty"`
}

// StopContext is everything an agent needs after an execution tool, in one answer.
type StopContext struct {
	Session      SessionID    `json:"session"`
	State        string       `json:"state" jsonschema:"stopped, running (the wait ran out: call wait or pause), exited or terminated"`
	Reason       string       `json:"reason,omitempty" jsonschema:"why it stopped: entry, breakpoint, step, pause, exception, data breakpoint (a watch)"`
	Text         string       `json:"text,omitempty" jsonschema:"the exception message; for a watch what it saw: name: old -> new, or name = value for a read"`
	BreakpointID int          `json:"breakpointId,omitempty"`
	ExitCode     *int         `json:"exitCode,omitempty"`
	Signal       string       `json:"signal,omitempty" jsonschema:"the signal that ended the program (SIGSEGV), when one did; exitCode is then 128 + its number"`
	Location     *Location    `json:"location,omitempty"`
	Source       []SourceLine `json:"source,omitempty"`
	Stack        []Frame      `json:"stack,omitempty"`
	StackDepth   int          `json:"stackDepth,omitempty" jsonschema:"frames in the whole stack (page with stackStart/stackCount)"`
	Locals       []Var        `json:"locals,omitempty" jsonschema:"frame 0's locals, each marked new or changed against the previous stop"`
	LocalsGone   []string     `json:"localsGone,omitempty"`
	ReturnValue  *Var         `json:"returnValue,omitempty" jsonschema:"the value the function just left returned (after finish)"`
	Output       string       `json:"output,omitempty" jsonschema:"program output since the previous answer"`
	OutputCut    int64        `json:"outputOmitted,omitempty" jsonschema:"bytes of that output left out (the oldest); the output tool pages through it"`
	Calls        []string     `json:"calls,omitempty" jsonschema:"the functions the current line calls from here on, in order: step with into enters one of them"`
	Breakpoints  []BP         `json:"breakpoints,omitempty" jsonschema:"the breakpoints start set, as they bound"`
	Notes        []string     `json:"notes,omitempty" jsonschema:"what was cut to keep the answer in budget, and hints"`
}

// stopContext builds the answer for the session's current state after a halt (or a wait
// that ran out), within the budget.
func (s *Server) stopContext(g *debuggee, h engine.Halt, halted bool, b Budget) StopContext {
	b = b.norm()
	sc := StopContext{Session: SessionID(g.id)}
	st := g.d.State()
	if halted {
		st = h.State
	}
	sc.State = st.String()
	switch st {
	case engine.Running:
		sc.Notes = append(sc.Notes, "the program is still running after the wait; call context to wait longer or pause to stop it")
	case engine.Exited:
		if !halted {
			h = g.d.LastHalt()
		}
		sc.ExitCode, sc.Signal = &h.ExitCode, h.Signal
	case engine.Initialized:
		sc.Notes = append(sc.Notes, "the program has not been started")
	}
	if st == engine.Stopped {
		stop := h.Stop
		if stop == nil {
			stop = g.d.LastStop()
		}
		s.fillStop(g, &sc, stop, b)
	}
	out, cut := g.newOutput(b.MaxBytes / 2)
	sc.Output, sc.OutputCut = out, cut
	if st.Ended() {
		g.release()
	}
	s.fit(&sc, b)
	return sc
}

func (s *Server) fillStop(g *debuggee, sc *StopContext, stop *engine.Stop, b Budget) {
	if stop != nil {
		sc.Reason, sc.Text, sc.BreakpointID = string(stop.Reason), stop.Text, stop.BreakpointID
		if stop.Reason == engine.ReasonException && stop.BreakpointID != 0 && stop.Signal == "" { // catch throw: which exception
			sc.Text = g.d.ExceptionText(stop)
		}
		if stop.ReturnValue != nil {
			v := s.variable(*stop.ReturnValue, b.MaxValueLen)
			sc.ReturnValue = &v
		}
	}
	frames, err := g.d.Stack()
	if err != nil {
		sc.Notes = append(sc.Notes, "stack: "+err.Error())
	}
	sc.StackDepth = len(frames)
	if len(frames) > 0 {
		loc := s.location(g, frames[0].Location)
		sc.Location = &loc
	} else if stop != nil {
		loc := s.location(g, stop.Location)
		sc.Location = &loc
	}
	if sc.Location != nil && sc.Location.File != "" && sc.Location.Line > 0 {
		sc.Source = sourceAround(g.d.Session, sc.Location.File, sc.Location.Line, b.ContextLines)
		g.mu.Lock()
		g.lastSrc[sc.Location.File] = true
		g.mu.Unlock()
	}
	sc.Stack = s.frames(g, frames, b.StackStart, b.StackCount)
	sc.Locals, sc.LocalsGone = s.localsDiff(g, frames, b.MaxValueLen)
	if calls, err := g.d.StatementCalls(); err == nil {
		for _, c := range calls {
			sc.Calls = append(sc.Calls, c.Function)
		}
	}
}

func (s *Server) frames(g *debuggee, frames []engine.Frame, start, count int) []Frame {
	var out []Frame
	for i := start; i < len(frames) && i < start+count; i++ {
		out = append(out, Frame{Index: frames[i].Index, Func: frames[i].Func, Location: s.location(g, frames[i].Location)})
	}
	return out
}

// localsDiff reads frame 0's locals and marks, with the engine's diff, what is new or
// changed (or gone) since the previous answer in the same function.
func (s *Server) localsDiff(g *debuggee, frames []engine.Frame, maxLen int) ([]Var, []string) {
	vars, err := locals(g.d.Session, len(frames))
	if err != nil {
		return nil, nil
	}
	fn := ""
	if len(frames) > 0 {
		fn = frames[0].Func
	}
	g.mu.Lock()
	prev, same := g.prevVars, g.hadVars && g.prevFunc == fn // none before is a snapshot too
	g.prevVars, g.prevFunc, g.hadVars = vars, fn, true
	g.mu.Unlock()
	var changes []engine.VarChange
	var gone []string
	if same {
		var was []engine.ScopedVariable
		changes, was = engine.DiffVariables(prev, vars)
		for _, v := range was {
			gone = append(gone, v.Name)
		}
	}
	out := make([]Var, len(vars))
	for i, v := range vars {
		out[i] = s.variable(v.Variable, maxLen)
		if same {
			out[i].Change = changes[i].String()
		}
	}
	return out, gone
}

// locals returns frame 0's variables of its first scope; at the top level of a program,
// where the variables are globals, its globals too. Only those scopes are read: a native
// frame's globals and registers would cost a stub round trip each at every stop.
func locals(sess *engine.Session, depth int) ([]engine.ScopedVariable, error) {
	scopes, err := sess.Scopes(0)
	if err != nil || len(scopes) == 0 {
		return nil, err
	}
	var out []engine.ScopedVariable
	for i, sc := range scopes {
		if i > 0 && (depth > 1 || sc.Name != "Globals") {
			continue
		}
		vs, err := sess.Variables(sc.Ref)
		if err != nil {
			if i == 0 {
				return nil, err
			}
			continue
		}
		name := engine.ScopeName(sc.Name)
		for _, v := range vs {
			out = append(out, engine.ScopedVariable{Scope: name, Variable: v})
		}
	}
	return out, nil
}

func (s *Server) variable(v engine.Variable, maxLen int) Var {
	return Var{Name: v.Name, Value: engine.ClipValue(v.Value, maxLen), Type: v.Type, Ref: v.Ref, Len: v.Len}
}

func (s *Server) location(g *debuggee, l engine.Location) Location {
	out := Location{File: l.File, Line: l.Line, Func: l.Func}
	if l.HasPC || l.PC != 0 {
		if ip, ok := g.d.Target().(engine.IndexedPCs); ok && ip.PCsAreIndexes() {
			out.PC = fmt.Sprint(l.PC)
		} else {
			out.PC = fmt.Sprintf("%#x", l.PC)
		}
	}
	return out
}

// sourceAround is the lines of file within n of line.
func sourceAround(sess *engine.Session, file string, line, n int) []SourceLine {
	lines, err := sess.Source(file)
	if err != nil {
		return nil
	}
	var out []SourceLine
	for i := max(1, line-n); i <= min(len(lines), line+n); i++ {
		out = append(out, SourceLine{Line: i, Text: engine.ClipValue(lines[i-1], 240), Current: i == line})
	}
	return out
}

// fit shrinks an answer until its JSON is within the budget: output first (the output
// tool pages through it), then locals' values, then the stack, then the source.
func (s *Server) fit(sc *StopContext, b Budget) {
	size := func() int { j, _ := json.Marshal(sc); return len(j) }
	over := size() - b.MaxBytes
	if over <= 0 {
		return
	}
	if n := len(sc.Output); n > 0 {
		cut := min(n, over+200)
		sc.Output = sc.Output[cut:]
		sc.OutputCut += int64(cut)
		sc.Notes = append(sc.Notes, fmt.Sprintf("output: %d bytes left out (the output tool pages through them)", cut))
		if over = size() - b.MaxBytes; over <= 0 {
			return
		}
	}
	for i := range sc.Locals {
		sc.Locals[i].Value = engine.ClipValue(sc.Locals[i].Value, 40)
	}
	shrinkStack := func(floor int) {
		if len(sc.Stack) <= floor || size() <= b.MaxBytes {
			return
		}
		for len(sc.Stack) > floor && size() > b.MaxBytes {
			sc.Stack = sc.Stack[:max(len(sc.Stack)/2, floor)]
		}
		sc.Notes = append(sc.Notes, fmt.Sprintf("stack: showing %d of %d frames (the stack tool pages through them)", len(sc.Stack), sc.StackDepth))
	}
	shrinkStack(3)
	if len(sc.Locals) > 0 && size() > b.MaxBytes {
		total := len(sc.Locals)
		for len(sc.Locals) > 0 && size() > b.MaxBytes {
			sc.Locals = sc.Locals[:len(sc.Locals)/2]
		}
		sc.Notes = append(sc.Notes, fmt.Sprintf("locals: showing %d of %d (the variables tool lists them all)", len(sc.Locals), total))
	}
	shrinkStack(1)
	for len(sc.Source) > 1 && size() > b.MaxBytes {
		sc.Source = nil
		sc.Notes = append(sc.Notes, "source: left out to fit the budget")
	}
}

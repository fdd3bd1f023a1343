package web

import (
	"path/filepath"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// pageState is what a session page shows besides output and the console: the JSON of the
// "state" server-sent event.
type pageState struct {
	State       string           `json:"state"`
	Reason      string           `json:"reason,omitempty"`
	Text        string           `json:"text,omitempty"`
	Location    *engine.Location `json:"location,omitempty"`
	Stack       []pageFrame      `json:"stack"`
	Scopes      []pageScope      `json:"scopes"`
	Breakpoints []pageBreak      `json:"breakpoints"`
	Files       []string         `json:"files"` // the source files the page may ask for
	Profile     bool             `json:"profile"`
	Calls       []pageCall       `json:"calls"` // the functions the stopped line calls from here on
}

// pageCall is a call the stopped line makes, which "Step into" offers.
type pageCall struct {
	Func   string `json:"func"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
}

type pageFrame struct {
	Func string `json:"func"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

type pageScope struct {
	Name string    `json:"name"`
	Vars []pageVar `json:"vars"`
}

type pageVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Type  string `json:"type,omitempty"`
	Ref   int    `json:"ref,omitempty"`
}

type pageBreak struct {
	ID       int    `json:"id"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Verified bool   `json:"verified"`
}

// takeState reads the session: the stack, the innermost frame's scopes with their
// variables, and the breakpoints. Values are clipped by the engine's rule.
func takeState(d *launch.Debuggee) pageState {
	st := pageState{State: d.State().String(), Stack: []pageFrame{}, Scopes: []pageScope{}, Breakpoints: []pageBreak{},
		Profile: d.Profiler != nil, Calls: []pageCall{}}
	if stop := d.LastStop(); stop != nil {
		st.Reason, st.Text = string(stop.Reason), engine.ClipValue(stop.Text, engine.DefaultMaxValueLen)
		loc := stop.Location
		st.Location = &loc
		if frames, err := d.Stack(); err == nil {
			for _, f := range frames {
				st.Stack = append(st.Stack, pageFrame{Func: f.Func, File: f.Location.File, Line: f.Location.Line})
			}
		}
		if calls, err := d.StatementCalls(); err == nil {
			for _, c := range calls {
				st.Calls = append(st.Calls, pageCall{Func: c.Function, Line: c.Line, Column: c.Column})
			}
		}
		if scopes, err := d.Scopes(0); err == nil {
			for _, sc := range scopes {
				vars, _ := variables(d, sc.Ref)
				st.Scopes = append(st.Scopes, pageScope{Name: sc.Name, Vars: vars})
			}
		}
	}
	for _, b := range d.Breakpoints() {
		if b.Spec.Kind != engine.LineBreakpoint {
			continue
		}
		line := b.Location.Line
		if line == 0 {
			line = b.Spec.Line
		}
		st.Breakpoints = append(st.Breakpoints, pageBreak{ID: b.ID, File: b.Spec.File, Line: line, Verified: b.Verified})
	}
	st.Files = sourceFiles(d, st)
	return st
}

// variables lists one reference's variables, clipped.
func variables(d *launch.Debuggee, ref int) ([]pageVar, error) {
	vs, err := d.Variables(ref)
	if err != nil {
		return nil, err
	}
	out := make([]pageVar, 0, min(len(vs), maxVarsPerRef))
	for i, v := range vs {
		if i == maxVarsPerRef {
			break
		}
		out = append(out, pageVar{Name: v.Name, Value: engine.ClipValue(v.Value, engine.DefaultMaxValueLen), Type: v.Type, Ref: v.Ref})
	}
	return out, nil
}

// sourceFiles are the files a page may read: the program's own source, and the files of
// the stack and the breakpoints. Nothing else on the disk is served.
func sourceFiles(d *launch.Debuggee, st pageState) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if f != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	switch {
	case d.Console != nil:
		c := d.Console.Cartridge()
		add(filepath.Join(c.Dir, c.Manifest.Entrypoint))
	case d.Spec.Kind == launch.Kite:
		add(d.Spec.Program)
	}
	if st.Location != nil {
		add(st.Location.File)
	}
	for _, f := range st.Stack {
		add(f.File)
	}
	for _, b := range st.Breakpoints {
		add(b.File)
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// maxSourceBytes bounds a source file sent to the page.
const maxSourceBytes = 4 << 20

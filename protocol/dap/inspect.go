package dap

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/launch"
)

// pageOver is the number of children over which a variable is shown as indexed, so that
// clients fetch it in pages (start/count) instead of whole.
const pageOver = 100

// Frame ids are the engine's frame indexes plus one (DAP treats 0 as "no frame"), with
// the thread's slot above frameShift (threads.go).
func frameIndex(id int) int {
	if id <= 0 {
		return 0
	}
	return id&frameMask - 1
}

func (c *conn) stackTrace(d *launch.Debuggee, a godap.StackTraceArguments) (any, error) {
	slot, err := c.useThread(d, a.ThreadId)
	if err != nil {
		return nil, err
	}
	frames, err := d.Stack()
	if err != nil {
		return nil, err
	}
	total := len(frames)
	frames = engine.Page(frames, a.StartFrame, a.Levels)
	out := make([]godap.StackFrame, 0, len(frames))
	for _, f := range frames {
		sf := godap.StackFrame{Id: slot<<frameShift | (f.Index + 1), Name: f.Func, Line: f.Location.Line, Column: max(f.Location.Col, 1)}
		if f.Location.File != "" {
			sf.Source = c.source(f.Location.File)
		}
		if f.Location.HasPC {
			sf.InstructionPointerReference = pcRef(f.Location.PC)
		}
		if f.Dummy { // a call the debug console made: a label between the frames
			sf.PresentationHint = "label"
		}
		out = append(out, sf)
	}
	return godap.StackTraceResponseBody{StackFrames: out, TotalFrames: total}, nil
}

func (c *conn) scopes(d *launch.Debuggee, frameID int) (any, error) {
	scopes, err := d.Scopes(frameIndex(frameID))
	if err != nil {
		return nil, err
	}
	out := make([]godap.Scope, len(scopes))
	for i, s := range scopes {
		out[i] = godap.Scope{Name: s.Name, VariablesReference: s.Ref}
		switch s.Name {
		case "Locals":
			out[i].PresentationHint = "locals"
		case "Registers":
			out[i].PresentationHint = "registers"
		}
	}
	return godap.ScopesResponseBody{Scopes: out}, nil
}

func (c *conn) variables(d *launch.Debuggee, a godap.VariablesArguments) (any, error) {
	if a.Filter == "named" {
		return godap.VariablesResponseBody{Variables: []godap.Variable{}}, nil // children are all indexed
	}
	vars, err := d.VariablesPage(a.VariablesReference, a.Start, a.Count)
	if err != nil {
		return nil, err
	}
	out := make([]godap.Variable, len(vars))
	for i, v := range vars {
		out[i] = variable(inFormat(d, v, a.Format))
	}
	return godap.VariablesResponseBody{Variables: out}, nil
}

// inFormat applies a client's value format: hex shows integers in hexadecimal, at their
// type's width (the engine's print/x).
func inFormat(d *launch.Debuggee, v engine.Variable, f *godap.ValueFormat) engine.Variable {
	if f != nil && f.Hex {
		v.Value = d.FormatValue(v, 'x')
	}
	return v
}

func variable(v engine.Variable) godap.Variable {
	out := godap.Variable{Name: v.Name, Value: engine.ClipValue(v.Value, 0), Type: v.Type, VariablesReference: v.Ref}
	if v.Constant { // the compiler's value, stored nowhere: shown read-only
		out.PresentationHint = &godap.VariablePresentationHint{Attributes: []string{"constant", "readOnly"}}
	}
	if v.Ref > 0 && v.Len > pageOver {
		out.IndexedVariables = v.Len
	}
	return out
}

// evaluate: watch, hover and clipboard are pure (they never change the program); the REPL
// may assign and call.
func (c *conn) evaluate(d *launch.Debuggee, a godap.EvaluateArguments) (any, error) {
	pure := a.Context != "repl"
	if line, ok := strings.CutPrefix(a.Expression, "-exec"); ok && !pure && (line == "" || line[0] == ' ') {
		return godap.EvaluateResponseBody{Result: c.gdbCommand(d, frameIndex(a.FrameId), line)}, nil
	}
	v, err := d.Evaluate(frameIndex(a.FrameId), a.Expression, engine.EvalMode{Pure: pure})
	if err != nil {
		return nil, err
	}
	dv := variable(inFormat(d, v, a.Format))
	if !pure {
		c.event("invalidated", godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}})
	}
	return godap.EvaluateResponseBody{Result: dv.Value, Type: dv.Type, VariablesReference: dv.VariablesReference,
		IndexedVariables: dv.IndexedVariables}, nil
}

// gdbCommand runs a gdb command typed in the debug console as "-exec COMMAND", the way of
// VS Code's C/C++ debugger and Cortex-Debug (package gdbcmd, on this connection's session).
// Its text is the answer; continue, next, step, finish and stepi resume the program as the
// client's own requests do, and the other commands that run it are refused.
func (c *conn) gdbCommand(d *launch.Debuggee, frame int, line string) string {
	if mode, ok := gdbcmd.ResumeMode(line); ok { // the client is told as by another front end: continued, stopped
		if err := c.resumeTold(d, mode, true); err != nil {
			return err.Error()
		}
		return ""
	}
	out := c.gdb.Run(d.Session, frame, line)
	c.event("invalidated", godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}}) // set var, call
	return strings.TrimSuffix(out, "\n")
}

// completions offers what can end the expression before the cursor: variables and
// functions, fields, keys and indexes, registers (the engine's completion).
func (c *conn) completions(d *launch.Debuggee, a godap.CompletionsArguments) (any, error) {
	text := a.Text
	if col := a.Column - 1; col >= 0 && col <= len(text) { // columns are 1-based
		text = text[:col]
	}
	if line, ok := strings.CutPrefix(text, "-exec "); ok { // a gdb command: its words
		head, cands := c.gdb.Complete(d.Session, line)
		start, n := len(text)-len(line)+len(head), len(line)-len(head)
		out := make([]godap.CompletionItem, len(cands))
		for i, cand := range cands {
			out[i] = godap.CompletionItem{Label: strings.TrimSpace(cand), Text: cand, Start: start, Length: n}
		}
		return godap.CompletionsResponseBody{Targets: out}, nil
	}
	names, n, err := d.CompleteExpression(frameIndex(a.FrameId), text)
	if err != nil {
		return nil, err
	}
	out := make([]godap.CompletionItem, len(names))
	for i, name := range names {
		out[i] = godap.CompletionItem{Label: name, Type: completionType(name, text[:len(text)-n]), Start: len(text) - n, Length: n}
	}
	return godap.CompletionsResponseBody{Targets: out}, nil
}

// completionType is DAP's item type for a candidate that follows head.
func completionType(name, head string) godap.CompletionItemType {
	switch {
	case strings.HasPrefix(name, "$"):
		return "variable"
	case strings.HasSuffix(head, "."):
		return "field"
	case strings.HasSuffix(name, "]"):
		return "value"
	}
	return "variable"
}

// disassemble lists a cartridge's bytecode around an instruction reference.
func (c *conn) disassemble(d *launch.Debuggee, a godap.DisassembleArguments) (any, error) {
	if d.Console == nil {
		return nil, errors.New("disassemble: only cartridges can be disassembled yet")
	}
	pc, err := parseRef(a.MemoryReference, a.Offset)
	if err != nil {
		return nil, err
	}
	start := int(pc) + a.InstructionOffset
	out := make([]disassembledInstruction, 0, a.InstructionCount)
	for start < 0 && len(out) < a.InstructionCount { // before the program: filler, as the spec asks
		out = append(out, invalidInstruction(fmt.Sprintf("%d", start)))
		start++
	}
	for _, in := range d.Console.Disassemble(start, a.InstructionCount-len(out)) {
		text := in.Op
		if in.Operand != "" {
			text += " " + in.Operand
		}
		out = append(out, disassembledInstruction{DisassembledInstruction: godap.DisassembledInstruction{
			Address: pcRef(uint64(in.PC)), Instruction: text, Symbol: in.Func, Line: in.Line, Location: c.source(d.Spec.Program)}})
	}
	for len(out) < a.InstructionCount {
		out = append(out, invalidInstruction(pcRef(uint64(start+len(out)))))
	}
	return struct {
		Instructions []disassembledInstruction `json:"instructions"`
	}{out}, nil
}

// custom serves the requests of codec.go.
func (c *conn) custom(d *launch.Debuggee, r *rawRequest) (any, error) {
	switch r.Command {
	case cmdFramebuffer:
		if d.Console == nil {
			return nil, fmt.Errorf("%s: not a cartridge", r.Command)
		}
		fb := d.Console.Screen()
		return map[string]any{"width": console.Width, "height": console.Height, "frame": d.Console.FrameIndex(),
			"format": "palette indexes, one byte a pixel, rows top to bottom",
			"data":   base64.StdEncoding.EncodeToString(fb[:])}, nil
	case cmdStepFrame:
		if d.Console == nil {
			return nil, fmt.Errorf("%s: not a cartridge", r.Command)
		}
		return nil, c.resume(d, engine.StepFrame)
	case "locations":
		return nil, errors.New("locations: no location references are given out")
	}
	return nil, fmt.Errorf("unknown command %q", strings.TrimSpace(r.Command))
}

// setVariable sets a child of any scope or expandable variable (engine.Session.SetVariable:
// locals, globals, registers, list items, map entries, struct members, array elements).
func (c *conn) setVariable(d *launch.Debuggee, a godap.SetVariableArguments) (any, error) {
	v, err := d.SetVariable(0, a.VariablesReference, a.Name, a.Value)
	if err != nil {
		return nil, err
	}
	c.event("invalidated", godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}})
	dv := variable(v)
	return godap.SetVariableResponseBody{Value: dv.Value, Type: dv.Type, VariablesReference: dv.VariablesReference,
		IndexedVariables: dv.IndexedVariables}, nil
}

// setExpression assigns to an lvalue expression (x, p.x, a[2], *ptr, m["k"]) in a frame.
func (c *conn) setExpression(d *launch.Debuggee, a godap.SetExpressionArguments) (any, error) {
	v, err := d.SetVariable(frameIndex(a.FrameId), 0, a.Expression, a.Value)
	if err != nil {
		return nil, err
	}
	c.event("invalidated", godap.InvalidatedEventBody{Areas: []godap.InvalidatedAreas{"variables"}})
	dv := variable(v)
	return godap.SetExpressionResponseBody{Value: dv.Value, Type: dv.Type, VariablesReference: dv.VariablesReference,
		IndexedVariables: dv.IndexedVariables}, nil
}

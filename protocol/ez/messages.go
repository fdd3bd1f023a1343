package ez

import (
	"strconv"

	"github.com/polydbg/polydbg/internal/wirejson"
)

// Wire types of the EZ protocol. Struct fields keep the document's key order.

// Every message the server writes is an event, {"type":"event","event":NAME,"data":DATA}
// (server.send writes the envelope).

type empty struct{}

// location is a place in the program.
type location struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type initializedData struct {
	File string `json:"file"`
}

type stoppedData struct {
	Reason       string   `json:"reason"`
	Location     location `json:"location"`
	BreakpointID int      `json:"breakpointId,omitempty"`
	Function     string   `json:"function,omitempty"` // extension
}

// appendJSON appends d as encoding/json writes it (TestStepEventsAsJSON).
func (d stoppedData) appendJSON(b []byte) []byte {
	b = wirejson.AppendString(append(b, `{"reason":`...), d.Reason)
	b = d.Location.appendJSON(append(b, `,"location":`...))
	if d.BreakpointID != 0 {
		b = strconv.AppendInt(append(b, `,"breakpointId":`...), int64(d.BreakpointID), 10)
	}
	if d.Function != "" {
		b = wirejson.AppendString(append(b, `,"function":`...), d.Function)
	}
	return append(b, '}')
}

func (l location) appendJSON(b []byte) []byte {
	b = wirejson.AppendString(append(b, `{"file":`...), l.File)
	b = strconv.AppendInt(append(b, `,"line":`...), int64(l.Line), 10)
	b = strconv.AppendInt(append(b, `,"column":`...), int64(l.Column), 10)
	return append(b, '}')
}

type outputData struct {
	Category string `json:"category"`
	Text     string `json:"text"`
}

// compileError is one compiler message (extension of the error event of initialize).
type compileError struct {
	Message  string   `json:"message"`
	Location location `json:"location"`
}

type errorData struct {
	Message  string         `json:"message"`
	Command  string         `json:"command,omitempty"`
	Location *location      `json:"location,omitempty"`
	Errors   []compileError `json:"errors,omitempty"`
}

type variableUpdateData struct {
	Name       string `json:"name"`
	Value      string `json:"value"`
	Type       string `json:"type"`
	FrameIndex int    `json:"frameIndex"`
	Scope      string `json:"scope"` // extension: "local" or "global"
}

// appendJSON appends d as encoding/json writes it (TestStepEventsAsJSON).
func (d variableUpdateData) appendJSON(b []byte) []byte {
	b = wirejson.AppendString(append(b, `{"name":`...), d.Name)
	b = wirejson.AppendString(append(b, `,"value":`...), d.Value)
	b = wirejson.AppendString(append(b, `,"type":`...), d.Type)
	b = strconv.AppendInt(append(b, `,"frameIndex":`...), int64(d.FrameIndex), 10)
	b = wirejson.AppendString(append(b, `,"scope":`...), d.Scope)
	return append(b, '}')
}

type variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Type  string `json:"type"`
	Scope string `json:"scope"` // extension: "local" or "global"
}

type variablesData struct {
	FrameIndex int        `json:"frameIndex"`
	Variables  []variable `json:"variables"`
}

type frame struct {
	Index    int    `json:"index"`
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

type stackTraceData struct {
	Frames []frame `json:"frames"`
}

type breakpointSetData struct {
	File          string `json:"file"`
	Line          int    `json:"line"`
	ID            int    `json:"id"`
	RequestedLine int    `json:"requestedLine,omitempty"` // extension: set when the line moved
}

type breakpointClearedData struct {
	File string `json:"file"`
	Line int    `json:"line"`
	ID   int    `json:"id,omitempty"` // extension: the id of the breakpoint removed
}

type evaluateResultData struct {
	Expression string `json:"expression"`
	Result     string `json:"result"`
	Type       string `json:"type"`
}

type exitedData struct {
	ExitCode int `json:"exitCode"`
}

// Command parameters.

type initializeParams struct {
	File       string `json:"file"`
	WorkingDir string `json:"workingDir"`
}

type startParams struct {
	StopOnEntry *bool `json:"stopOnEntry"`
}

type breakpointParams struct {
	File         string `json:"file"`
	Line         int    `json:"line"`
	ID           int    `json:"id"` // clearBreakpoint extension
	Condition    string `json:"condition"`
	HitCondition string `json:"hitCondition"`
	LogMessage   string `json:"logMessage"`
}

type frameParams struct {
	FrameIndex int `json:"frameIndex"`
}

type evaluateParams struct {
	Expression  string `json:"expression"`
	FrameIndex  int    `json:"frameIndex"`
	SideEffects bool   `json:"sideEffects"` // extension: REPL mode, may call functions
}

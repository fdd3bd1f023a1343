package dap

import (
	"bytes"
	"encoding/json"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/internal/wirejson"
)

// This file is the one place where polydbg goes beyond go-dap v0.12.0 (DAP 1.59): fields
// and requests of the current specification that go-dap lacks, and polydbg's own custom
// requests. Everything else uses go-dap's types as they are.

// capabilities adds the newer Capabilities fields to go-dap's.
type capabilities struct {
	godap.Capabilities
	// SupportsANSIStyling (DAP 1.69): output and variable values may hold ANSI escapes.
	SupportsANSIStyling bool `json:"supportsANSIStyling,omitempty"`
	// BreakpointModes (DAP 1.65): none; every breakpoint has one mode.
	BreakpointModes []json.RawMessage `json:"breakpointModes,omitempty"`
}

// rawRequest is a request whose arguments are kept as they came: launch and attach
// configurations, and the custom requests.
type rawRequest struct {
	godap.Request
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// bodyResponse is a success response with any body.
type bodyResponse struct {
	godap.Response
	Body any `json:"body,omitempty"`
}

// Custom requests (not in the specification), under polydbg's prefix.
const (
	// cmdFramebuffer returns a cartridge's framebuffer as a PNG image (base64).
	cmdFramebuffer = "polydbg/framebuffer"
	// cmdStepFrame runs a cartridge to the next frame boundary.
	cmdStepFrame = "polydbg/stepFrame"
)

// newCodec is go-dap's codec with the requests it lacks registered.
func newCodec() *godap.Codec {
	c := godap.NewCodec()
	raw := func() godap.Message { return &rawRequest{} }
	resp := func() godap.Message { return &bodyResponse{} }
	for _, cmd := range []string{"locations", cmdFramebuffer, cmdStepFrame} {
		_ = c.RegisterRequest(cmd, raw, resp)
	}
	return c
}

// disassembledInstruction adds presentationHint (DAP 1.61: "invalid" for filler) to
// go-dap's type.
type disassembledInstruction struct {
	godap.DisassembledInstruction
	PresentationHint string `json:"presentationHint,omitempty"`
}

func invalidInstruction(addr string) disassembledInstruction {
	return disassembledInstruction{DisassembledInstruction: godap.DisassembledInstruction{Address: addr, Instruction: "??"},
		PresentationHint: "invalid"}
}

// fastRequests are the requests a client sends at every step (the step, then what it shows
// at the stop), decoded with wirejson when their JSON is of its plain shape.
var fastRequests = map[string]func() godap.Message{
	"next":       func() godap.Message { return &godap.NextRequest{} },
	"stepIn":     func() godap.Message { return &godap.StepInRequest{} },
	"stepOut":    func() godap.Message { return &godap.StepOutRequest{} },
	"continue":   func() godap.Message { return &godap.ContinueRequest{} },
	"pause":      func() godap.Message { return &godap.PauseRequest{} },
	"threads":    func() godap.Message { return &godap.ThreadsRequest{} },
	"stackTrace": func() godap.Message { return &godap.StackTraceRequest{} },
	"scopes":     func() godap.Message { return &godap.ScopesRequest{} },
	"variables":  func() godap.Message { return &godap.VariablesRequest{} },
	"evaluate":   func() godap.Message { return &godap.EvaluateRequest{} },
}

// decode is the codec's DecodeMessage. The requests of fastRequests skip its two passes of
// encoding/json when wirejson can decode them: the command is peeked at, the message decoded
// as that request, and taken when it says that type and command (the codec would then have
// decoded the same).
func (c *conn) decode(body []byte) (godap.Message, error) {
	if cmd, ok := peekCommand(body); ok {
		if mk := fastRequests[string(cmd)]; mk != nil {
			m := mk()
			if wirejson.DecodeFresh(body, m) {
				if r := m.(godap.RequestMessage).GetRequest(); r.Type == "request" && r.Command == string(cmd) {
					return m, nil
				}
			}
		}
	}
	return c.codec.DecodeMessage(body)
}

// peekCommand finds the value of the first "command" key of a message, if plain.
func peekCommand(body []byte) ([]byte, bool) {
	const key = `"command":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return nil, false
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	return rest[:max(j, 0)], j > 0
}

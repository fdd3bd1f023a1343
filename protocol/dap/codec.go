package dap

import (
	"encoding/json"

	godap "github.com/google/go-dap"
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

type initializeResponse struct {
	godap.Response
	Body capabilities `json:"body"`
}

type capabilitiesEvent struct {
	godap.Event
	Body struct {
		Capabilities capabilities `json:"capabilities"`
	} `json:"body"`
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

// locationsArguments and locationsBody are DAP 1.63's "locations" request: where a
// locationReference (here: a variable's declaration; none are given out yet) points.
type locationsArguments struct {
	LocationReference int `json:"locationReference"`
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

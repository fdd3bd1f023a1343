package dap

import (
	"fmt"
	"strconv"
	"strings"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// Data breakpoints, on targets with watchpoints (engine.Watchpointer). A dataId is
// "ADDR/SIZE/NAME": on a native or MCU target it names memory, so it stays good for the life
// of the program (a local's address outlives its frame: the watchpoint then watches what
// takes its place); on a Kite program SIZE is 0 and ADDR the target's handle for a variable
// or an element, and a local's watchpoint ends with its activation.

func canWatch(d *launch.Debuggee) bool {
	_, ok := d.Target().(engine.Watchpointer)
	return ok
}

// dataBreakpointInfo answers for a variable of a scope (variablesReference of a scope, or
// none: name is then an expression of the frame). Children of structured values are not
// offered: their names alone do not say where they live.
func (c *conn) dataBreakpointInfo(d *launch.Debuggee, a godap.DataBreakpointInfoArguments) (any, error) {
	none := func(why string) (any, error) {
		return godap.DataBreakpointInfoResponseBody{DataId: nil, Description: why}, nil
	}
	if a.VariablesReference != 0 && !c.named[a.VariablesReference] {
		return none("only the variables of a Locals or Globals scope can be watched")
	}
	w, access, err := d.DataBreakpointInfo(frameIndex(a.FrameId), a.Name)
	if err != nil {
		return none(err.Error())
	}
	types := make([]godap.DataBreakpointAccessType, len(access))
	for i, x := range access {
		types[i] = godap.DataBreakpointAccessType(x)
	}
	desc := fmt.Sprintf("%s (%d bytes at %#x)", w.Name, w.Size, w.Addr)
	if w.Size == 0 { // a place with no address (a Kite variable): Addr is the target's handle
		desc = w.Name
	}
	return godap.DataBreakpointInfoResponseBody{
		DataId:      fmt.Sprintf("%#x/%d/%s", w.Addr, w.Size, w.Name),
		Description: desc, AccessTypes: types, CanPersist: false,
	}, nil
}

// scopesNoted answers scopes, adds the Peripherals scope of a target with an SVD file
// (periph.go), and notes the references of the scopes whose variables are named in the
// program (Locals, Globals), for dataBreakpointInfo.
func (c *conn) scopesNoted(d *launch.Debuggee, frameID int) (any, error) {
	body, err := c.scopes(d, frameID)
	if b, ok := body.(godap.ScopesResponseBody); ok && hasPeripherals(d) {
		b.Scopes = append(b.Scopes, peripheralScope())
		body = b
	}
	if b, ok := body.(godap.ScopesResponseBody); ok {
		for _, s := range b.Scopes {
			if s.Name == "Locals" || s.Name == "Globals" {
				if c.named == nil {
					c.named = map[int]bool{}
				}
				c.named[s.VariablesReference] = true
			}
		}
	}
	return body, err
}

// parseDataID reads a dataId made by dataBreakpointInfo.
func parseDataID(id string) (engine.Watchpoint, error) {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) == 3 {
		addr, err1 := strconv.ParseUint(parts[0], 0, 64)
		size, err2 := strconv.Atoi(parts[1])
		if err1 == nil && err2 == nil && size >= 0 {
			return engine.Watchpoint{Addr: addr, Size: size, Name: parts[2]}, nil
		}
	}
	return engine.Watchpoint{}, fmt.Errorf("bad dataId %q (ask dataBreakpointInfo)", id)
}

// setDataBreakpoints replaces the data breakpoints. A condition is evaluated at each change
// (the program goes on where it is false); hit conditions are not supported on them: such a
// breakpoint is not set, and says so.
func (c *conn) setDataBreakpoints(d *launch.Debuggee, a godap.SetDataBreakpointsArguments) (any, error) {
	out := make([]godap.Breakpoint, len(a.Breakpoints))
	var ws []engine.Watchpoint
	var at []int // out index of each of ws
	for i, b := range a.Breakpoints {
		w, err := parseDataID(b.DataId)
		switch {
		case err != nil:
			out[i].Message = err.Error()
			continue
		case b.HitCondition != "":
			out[i].Message = "data breakpoints take no hit condition"
			continue
		}
		w.Condition = b.Condition
		w.Access = engine.DataAccess(b.AccessType)
		if w.Access == "" {
			w.Access = engine.DataWrite
		}
		ws = append(ws, w)
		at = append(at, i)
	}
	set, err := d.SetDataBreakpoints(ws)
	if err != nil {
		return nil, err
	}
	for j, w := range set {
		out[at[j]] = godap.Breakpoint{Id: w.ID, Verified: w.Verified, Message: w.Message}
	}
	return godap.SetDataBreakpointsResponseBody{Breakpoints: out}, nil
}

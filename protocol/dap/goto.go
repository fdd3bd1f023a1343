package dap

import (
	"fmt"
	"strconv"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// gotoTargets answers gotoTargets: the statement starts of the line that the stopped
// frame may move to (engine.Session.GotoTargets). Target ids live until the next stop.
func (c *conn) gotoTargets(d *launch.Debuggee, a godap.GotoTargetsArguments) (any, error) {
	locs, err := d.GotoTargets(a.Source.Path, a.Line)
	if err != nil {
		return nil, err
	}
	if c.gotos == nil {
		c.gotos = map[int]engine.Location{}
	}
	out := make([]godap.GotoTarget, 0, len(locs))
	for _, l := range locs {
		id := len(c.gotos) + 1
		c.gotos[id] = l
		gt := godap.GotoTarget{Id: id, Label: fmt.Sprintf("line %d", l.Line), Line: l.Line, Column: max(l.Col, 1)}
		if l.HasPC {
			gt.Label += " (pc " + strconv.FormatUint(l.PC, 10) + ")"
			gt.InstructionPointerReference = pcRef(l.PC)
		}
		out = append(out, gt)
	}
	return godap.GotoTargetsResponseBody{Targets: out}, nil
}

// gotoTarget answers goto: the frame moves, and a stopped event with reason "goto" follows
// the response.
func (c *conn) gotoTarget(d *launch.Debuggee, a godap.GotoArguments) error {
	loc, ok := c.gotos[a.TargetId]
	if !ok {
		return fmt.Errorf("goto: no target %d at this stop (ask gotoTargets)", a.TargetId)
	}
	if _, err := c.useThread(d, a.ThreadId); err != nil {
		return err
	}
	return d.Goto(loc)
}

// canGoto says whether d's target moves frames (engine.Jumper).
func canGoto(d *launch.Debuggee) bool {
	_, ok := d.Target().(engine.Jumper)
	return ok
}

package gdbremote

// Target: moving the stopped thread to another line of its function (engine.Jumper): gdb's
// jump, DAP's goto. The pc is written and nothing runs; the frame stays as it is, so a line
// of the same function is the only safe place, as gdb warns.

import (
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

var _ engine.Jumper = (*Target)(nil)

// JumpTargets implements engine.Jumper: the first statement of file:line (of the next line
// with code, as gdb's jump takes a line without any), when it is in the function the
// innermost frame is running.
func (t *Target) JumpTargets(file string, line int) ([]engine.Location, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	pc, err := t.pc()
	if err != nil {
		return nil, err
	}
	loc, err := t.ResolveLine(file, line)
	if err != nil {
		return nil, err
	}
	here, there := t.sym.FuncAt(pc), t.sym.FuncAt(loc.PC)
	if here == nil || there != here {
		return []engine.Location{}, nil
	}
	return []engine.Location{loc}, nil
}

// Jump implements engine.Jumper: the stopped thread's pc becomes loc's.
func (t *Target) Jump(loc engine.Location) error {
	if !loc.HasPC {
		return fmt.Errorf("gdbremote: no address to jump to")
	}
	r, ok := t.desc.PCReg()
	if !ok {
		return fmt.Errorf("gdbremote: no pc register")
	}
	return t.WriteRegister(r.Name, loc.PC)
}

package kitevm

// Target: moving the stopped program's innermost frame to another statement of its
// function (engine.Jumper, DAP's goto). A for loop keeps its iterator on the frame's
// operand stack while its body runs, so a statement may be jumped to only from the same
// loops: the stack then holds exactly what the target statement expects.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/compile"
)

var _ engine.Jumper = (*Target)(nil)

// loopSpan is a for loop's body: from its head (the NEXT instruction) to its exit.
type loopSpan struct{ head, exit int }

// loopsAt returns the heads of the for loops whose body holds pc (the program's coroutine, or mu
// held while stopped).
func (t *Target) loopsAt(pc int) []int {
	if t.loops == nil {
		t.loops = []loopSpan{}
		for i, ins := range t.prog.Code {
			if compile.Op(ins) == compile.NEXT {
				t.loops = append(t.loops, loopSpan{i, int(ins >> 8)})
			}
		}
	}
	var heads []int
	for _, l := range t.loops {
		if l.head <= pc && pc < l.exit {
			heads = append(heads, l.head)
		}
	}
	return heads
}

// errNoJump says why a stop cannot be moved.
var errNoJump = errors.New("goto: the program is stopped where it cannot be moved (a runtime error, or a frame boundary)")

// jumpTargets lists the statement starts of line that frame 0 may move to (mu held).
func (t *Target) jumpTargets(line int) ([]engine.Location, error) {
	if !t.inTrap {
		return nil, errNoJump
	}
	fi, ok := t.vm.Frame(0)
	if !ok {
		return nil, errNoJump
	}
	here := t.loopsAt(fi.PC)
	var out []engine.Location
	for _, pc := range t.prog.StmtPCs(line) {
		if t.prog.FuncAt(pc) == fi.Func && slices.Equal(t.loopsAt(pc), here) {
			out = append(out, t.here(pc))
		}
	}
	return out, nil
}

// JumpTargets implements engine.Jumper.
func (t *Target) JumpTargets(file string, line int) ([]engine.Location, error) {
	if !t.SameFile(file) {
		return nil, fmt.Errorf("%s is not part of the program (%s)", file, t.prog.File)
	}
	var out []engine.Location
	var err error
	if e := t.do(func() { out, err = t.jumpTargets(line) }); e != nil {
		return nil, e
	}
	return out, err
}

// Jump implements engine.Jumper.
func (t *Target) Jump(loc engine.Location) error {
	var err error
	e := t.do(func() {
		var targets []engine.Location
		if targets, err = t.jumpTargets(loc.Line); err != nil {
			return
		}
		pc := int(loc.PC)
		if !loc.HasPC || !slices.ContainsFunc(targets, func(l engine.Location) bool { return int(l.PC) == pc }) {
			err = fmt.Errorf("goto: line %d pc %d is not a statement this frame can move to", loc.Line, loc.PC)
			return
		}
		if err = t.vm.Jump(pc, len(t.loopsAt(pc))); err == nil {
			t.refs = t.refs[:0] // the variables are read again at the new place
		}
	})
	if e != nil {
		return e
	}
	return err
}

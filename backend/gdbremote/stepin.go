package gdbremote

import (
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

var _ engine.CallLister = (*Target)(nil)

// StatementCalls implements engine.CallLister: the direct calls the machine code of the
// current line makes from the pc on, decoded, of functions with debug information (a
// step into passes over the others: a library's, a PLT stub's).
func (t *Target) StatementCalls() ([]engine.CallTarget, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	pc, err := t.pc()
	if err != nil {
		return nil, err
	}
	loc, ok := t.sym.PCToLine(pc)
	_, end, inLine := t.sym.LineRange(pc)
	if !ok || !inLine || end <= pc {
		return nil, nil // no line here: no statement whose calls to list
	}
	code, err := t.ReadMemory(pc, int(min(end-pc, 1<<16)))
	if err != nil {
		return nil, fmt.Errorf("list calls: %w", err)
	}
	var out []engine.CallTarget
	for _, to := range t.sym.CallTargets(code, pc) {
		fn := t.sym.FuncAt(to)
		if fn == nil || fn.Start() != t.sym.ClearThumb(to) {
			continue
		}
		if _, hasLines := t.sym.PCToLine(to); !hasLines {
			continue
		}
		out = append(out, engine.CallTarget{Function: fn.Name, Line: loc.Line})
	}
	return out, nil
}

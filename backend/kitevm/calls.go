package kitevm

import (
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/vm"
)

var _ engine.CallLister = (*Target)(nil)

// StatementCalls implements engine.CallLister: the calls of Kite functions that the
// statement at the top frame's pc makes from there to the end of its line, in the order
// they run (a call's arguments before it). A callee is known when the call loads it from a
// variable: the variable's value now, the program being stopped, is the function it calls.
// Builtins, and callees computed by an expression, are left out.
func (t *Target) StatementCalls() ([]engine.CallTarget, error) {
	var out []engine.CallTarget
	err := t.do(func() {
		fi, ok := t.vm.Frame(0)
		if !ok {
			return // between a console's frames: no statement runs
		}
		line := t.vm.Line(fi.PC).Line
		for pc := fi.PC; pc < fi.Func.End && t.vm.Line(pc).Line == line; pc++ {
			if pc > fi.PC && t.vm.Line(pc).Stmt {
				break // the next statement on the line: a step into cannot reach its calls
			}
			if compile.Op(t.prog.Code[pc]) != compile.CALL {
				continue
			}
			if name := t.calleeName(fi, pc); name != "" {
				li := t.vm.Line(pc)
				out = append(out, engine.CallTarget{Function: name, Line: int(li.Line), Column: int(li.Col)})
			}
		}
	})
	return out, err
}

// calleeName is the name of the Kite function the CALL at pc of the top frame calls, ""
// when that is not known (or it is a builtin or an anonymous function).
func (t *Target) calleeName(fi vm.FrameInfo, call int) string {
	at, ok := compile.Callee(t.prog.Code, call)
	if !ok || at < fi.Func.Entry {
		return ""
	}
	v, ok := t.loaded(fi, t.prog.Code[at])
	if !ok || v.Kind() != vm.FuncKind {
		return ""
	}
	return v.Closure().Fn.Name
}

// loaded is the current value of the variable that ins, an instruction of the top frame's
// function, loads; ok is false for any other instruction.
func (t *Target) loaded(fi vm.FrameInfo, ins uint32) (vm.Value, bool) {
	arg := compile.Arg(ins)
	locals := t.vm.Locals(0)
	own := len(locals) - len(fi.Func.Free) // the captured variables follow the frame's own
	switch compile.Op(ins) {
	case compile.LOADGLOBAL:
		if arg < len(t.prog.Globals) {
			return named(t.vm.Globals(), t.prog.Globals[arg].Name)
		}
	case compile.LOADLOCAL, compile.LOADCELL:
		if own < 0 {
			break
		}
		for _, l := range fi.Func.VisibleLocals(fi.PC) {
			if l.Slot == arg {
				return named(locals[:own], l.Name)
			}
		}
	case compile.LOADFREE:
		if own >= 0 && own+arg < len(locals) {
			return locals[own+arg].Value, true
		}
	}
	return vm.Nil, false
}

// named is the value of the variable called name among vars.
func named(vars []vm.Variable, name string) (vm.Value, bool) {
	for _, v := range vars {
		if v.Name == name {
			return v.Value, true
		}
	}
	return vm.Nil, false
}

package kitevm

// Changing variables of a stopped Kite program: engine.VariableSetter.

import (
	"fmt"
	"strconv"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

// SetVariable implements engine.VariableSetter. The value is a Kite expression evaluated
// in frame (with the REPL's rights: it may call functions). With ref 0, name is an lvalue
// expression: x, xs[i], m["k"], m.key (nested as deep as wanted).
func (t *Target) SetVariable(frame, r int, name, valueExpr string) (engine.Variable, error) {
	ve, err := syntax.ParseExpr("<value>", []byte(valueExpr))
	if err != nil {
		return engine.Variable{}, exprError(err)
	}
	var lv syntax.Expr
	if r == 0 {
		if lv, err = syntax.ParseExpr("<variable>", []byte(name)); err != nil {
			return engine.Variable{}, exprError(err)
		}
	}
	var out engine.Variable
	var bad error
	err = t.doOnVM(func() {
		var rf ref
		if r != 0 {
			if r < 0 || r > len(t.refs) {
				bad = engine.ErrNoVariable
				return
			}
			rf = t.refs[r-1]
			if rf.kind == refLocals {
				frame = rf.frame
			}
		}
		if frame < 0 || frame >= t.vm.NumFrames() {
			bad = engine.ErrNoFrame
			return
		}
		v, err := t.vm.Eval(ve, frame, vm.EvalMode{Budget: 100 * vm.DefaultEvalBudget})
		if err != nil {
			bad = exprError(err)
			return
		}
		if r == 0 {
			bad = t.assign(frame, lv, v)
		} else {
			bad = t.setChild(rf, name, v)
		}
		if bad == nil {
			out = t.variable(name, v)
		}
		bad = errOrNil(bad)
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// assign stores v where the lvalue expression lv points in frame; on the program's coroutine.
func (t *Target) assign(frame int, lv syntax.Expr, v vm.Value) error {
	eval := func(e syntax.Expr) (vm.Value, error) {
		return t.vm.Eval(e, frame, vm.EvalMode{Pure: true})
	}
	switch x := lv.(type) {
	case *syntax.ParenExpr:
		return t.assign(frame, x.X, v)
	case *syntax.Ident:
		return t.setName(frame, x.Name, v)
	case *syntax.IndexExpr:
		c, err := eval(x.X)
		if err != nil {
			return err
		}
		k, err := eval(x.Index)
		if err != nil {
			return err
		}
		return t.vm.SetElement(c, k, v)
	case *syntax.DotExpr:
		c, err := eval(x.X)
		if err != nil {
			return err
		}
		return t.vm.SetElement(c, vm.Str(x.Name.Name), v)
	}
	return fmt.Errorf("cannot assign to %s: not a variable, element or field", syntax.ExprString(lv))
}

// setName sets a variable visible in frame: a local or captured variable, else a global.
func (t *Target) setName(frame int, name string, v vm.Value) error {
	for _, l := range t.vm.Locals(frame) {
		if l.Name == name {
			return t.vm.SetLocal(frame, name, v)
		}
	}
	return t.vm.SetGlobal(name, v)
}

// setChild sets the child called name (as Variables lists it) of a reference.
func (t *Target) setChild(rf ref, name string, v vm.Value) error {
	switch rf.kind {
	case refLocals:
		return t.vm.SetLocal(rf.frame, name, v)
	case refGlobals:
		return t.vm.SetGlobal(name, v)
	}
	c := rf.val
	switch c.Kind() {
	case vm.ListKind:
		i, err := strconv.Atoi(name)
		if err != nil {
			return fmt.Errorf("%q is not an index of the list", name)
		}
		return t.vm.SetElement(c, vm.Int(int64(i)), v)
	case vm.MapKind:
		var key vm.Value
		found := false
		c.Map().Range(func(k, _ vm.Value) bool {
			if k.Repr() == name {
				key, found = k, true
			}
			return !found
		})
		if !found {
			return fmt.Errorf("the map has no key %s", name)
		}
		return t.vm.SetElement(c, key, v)
	case vm.FuncKind:
		return vm.SetCaptured(c, name, v)
	}
	return fmt.Errorf("a %s has no children to set", c.TypeName())
}

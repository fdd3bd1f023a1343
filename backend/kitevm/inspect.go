package kitevm

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

// ref is what a variables reference of the current stop stands for.
type ref struct {
	kind  refKind
	frame int
	val   vm.Value
}

type refKind uint8

const (
	refLocals refKind = iota
	refGlobals
	refValue
)

// MaxChildren bounds how many children of one container are listed.
const MaxChildren = 10_000

func (t *Target) newRef(r ref) int {
	t.refs = append(t.refs, r)
	return len(t.refs)
}

// Stack implements engine.Target.
func (t *Target) Stack() ([]engine.Frame, error) {
	var out []engine.Frame
	err := t.do(func() {
		for i := 0; i < t.vm.NumFrames(); i++ {
			fi, _ := t.vm.Frame(i)
			out = append(out, engine.Frame{Index: i, Func: funcName(fi.Func), Location: t.location(fi.PC, funcName(fi.Func))})
		}
		if f, ok := t.idleFrame(); ok {
			out = append(out, f)
		}
	})
	return out, err
}

// NumFrames implements engine.FrameCounter: Stack's length, without listing it.
func (t *Target) NumFrames() (int, error) {
	n := 0
	err := t.do(func() {
		n = t.vm.NumFrames()
		if _, ok := t.idleFrame(); ok {
			n++
		}
	})
	return n, err
}

// Scopes implements engine.Target: a frame's locals, and the globals.
func (t *Target) Scopes(frame int) ([]engine.Scope, error) {
	var out []engine.Scope
	var bad error
	err := t.do(func() {
		if _, ok := t.idleFrame(); ok && frame == 0 {
			out = []engine.Scope{{Name: "Globals", Ref: t.newRef(ref{kind: refGlobals})}}
			return
		}
		if frame < 0 || frame >= t.vm.NumFrames() {
			bad = engine.ErrNoFrame
			return
		}
		out = []engine.Scope{
			{Name: "Locals", Ref: t.newRef(ref{kind: refLocals, frame: frame})},
			{Name: "Globals", Ref: t.newRef(ref{kind: refGlobals})},
		}
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// Variables implements engine.Target.
func (t *Target) Variables(r int) ([]engine.Variable, error) {
	var out []engine.Variable
	var bad error
	err := t.do(func() {
		if r <= 0 || r > len(t.refs) {
			bad = engine.ErrNoVariable
			return
		}
		out = t.list(t.refs[r-1])
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// AppendFrameVariables implements engine.FrameLister: a frame's locals, then the globals,
// as its two scopes list them, in one inspection.
func (t *Target) AppendFrameVariables(dst []engine.ScopedVariable, frame int) ([]engine.ScopedVariable, error) {
	out := dst
	var bad error
	err := t.do(func() {
		_, idle := t.idleFrame()
		if !idle || frame != 0 {
			if frame < 0 || frame >= t.vm.NumFrames() {
				bad = engine.ErrNoFrame
				return
			}
			t.scratch = t.vm.AppendLocals(t.scratch[:0], frame)
			for _, v := range t.scratch {
				ev := t.variable(v.Name, v.Value)
				ev.Arg = v.Param
				out = append(out, engine.ScopedVariable{Scope: "local", Variable: ev})
			}
		}
		t.scratch = t.vm.AppendGlobals(t.scratch[:0])
		for _, v := range t.scratch {
			out = append(out, engine.ScopedVariable{Scope: "global", Variable: t.variable(v.Name, v.Value)})
		}
		clear(t.scratch) // drop the values: the program may free them
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return dst, err
	}
	return out, nil
}

// list makes the variables a reference stands for; on the program's coroutine.
func (t *Target) list(rf ref) []engine.Variable {
	var out []engine.Variable
	switch rf.kind {
	case refLocals:
		locals := t.vm.Locals(rf.frame)
		out = slices.Grow(out, len(locals))
		for _, v := range locals {
			ev := t.variable(v.Name, v.Value)
			ev.Arg = v.Param
			out = append(out, ev)
		}
	case refGlobals:
		globals := t.vm.Globals()
		out = slices.Grow(out, len(globals))
		for _, v := range globals {
			out = append(out, t.variable(v.Name, v.Value))
		}
	default:
		out = t.children(rf.val)
	}
	return out
}

// variable shows a value; containers get a reference to expand them.
func (t *Target) variable(name string, v vm.Value) engine.Variable {
	ev := engine.Variable{Name: name, Value: preview(v), Type: v.TypeName()}
	switch v.Kind() {
	case vm.ListKind:
		ev.Len = len(v.List().Items)
	case vm.MapKind:
		ev.Len = v.Map().Len()
	case vm.FuncKind:
		ev.Len = len(v.Closure().Free)
	}
	if ev.Len > 0 {
		ev.Ref = t.newRef(ref{kind: refValue, val: v})
	}
	return ev
}

func (t *Target) children(v vm.Value) []engine.Variable {
	var out []engine.Variable
	switch v.Kind() {
	case vm.ListKind:
		for i, x := range v.List().Items {
			if i == MaxChildren {
				break
			}
			out = append(out, t.variable(strconv.Itoa(i), x))
		}
	case vm.MapKind:
		v.Map().Range(func(k, x vm.Value) bool {
			out = append(out, t.variable(k.Repr(), x))
			return len(out) < MaxChildren
		})
	case vm.FuncKind:
		cl := v.Closure()
		for i, fv := range cl.Fn.Free {
			out = append(out, t.variable(fv.Name, cl.Free[i].V))
		}
	}
	return out
}

// Evaluate implements engine.Target. Pure mode refuses calls of user functions and impure
// builtins at compile time, and both modes have a cycle budget.
func (t *Target) Evaluate(frame int, expr string, mode engine.EvalMode) (engine.Variable, error) {
	e, err := syntax.ParseExpr("<expr>", []byte(expr))
	if err != nil {
		return engine.Variable{}, exprError(err)
	}
	var out engine.Variable
	var bad error
	run := t.do
	if !mode.Pure {
		run = t.doOnVM
	}
	err = run(func() {
		if frame < 0 || frame >= t.vm.NumFrames() {
			bad = engine.ErrNoFrame
			return
		}
		budget := int64(vm.DefaultEvalBudget)
		if !mode.Pure {
			budget = 100 * vm.DefaultEvalBudget
		}
		v, err := t.vm.Eval(e, frame, vm.EvalMode{Pure: mode.Pure, Budget: budget})
		if err != nil {
			bad = exprError(err)
			return
		}
		out = t.variable(expr, v)
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// exprError strips the file and position from errors about a one-line expression.
func exprError(err error) error {
	switch e := err.(type) {
	case syntax.ErrorList:
		if len(e) > 0 {
			return fmt.Errorf("%s", e[0].Msg)
		}
	case *vm.Error:
		return fmt.Errorf("%s", e.Msg)
	}
	return err
}

// condition is a breakpoint condition, compiled on the program's coroutine the first time it is
// needed (or at once when the program is not running).
type condition struct {
	t    *Target
	e    syntax.Expr
	pc   int
	c    *vm.Compiled
	cerr error
}

// CompileCondition implements engine.Target.
func (t *Target) CompileCondition(loc engine.Location, expr string) (engine.Condition, error) {
	e, err := syntax.ParseExpr("<condition>", []byte(expr))
	if err != nil {
		return nil, exprError(err)
	}
	c := &condition{t: t, e: e, pc: int(loc.PC)}
	t.mu.Lock()
	started, stopped := t.started, t.stopped
	t.mu.Unlock()
	switch {
	case !started:
		c.compile()
	case stopped:
		_ = t.do(c.compile)
	}
	if c.cerr != nil {
		return nil, c.cerr
	}
	return c, nil
}

func (c *condition) compile() {
	c.c, c.cerr = c.t.vm.Compile(c.e, c.t.prog.FuncAt(c.pc), c.pc, true)
	c.cerr = errOrNil(c.cerr)
}

func errOrNil(err error) error {
	if err == nil {
		return nil
	}
	return exprError(err)
}

// Eval implements engine.Condition; it runs on the program's coroutine, inside a trap.
func (c *condition) Eval() (bool, error) {
	v, err := c.value()
	return v.Truth(), err
}

// String implements engine.Condition: the value as print shows it.
func (c *condition) String() (string, error) {
	v, err := c.value()
	return v.String(), err
}

func (c *condition) value() (vm.Value, error) {
	if c.c == nil && c.cerr == nil {
		c.compile()
	}
	if c.cerr != nil {
		return vm.Nil, c.cerr
	}
	v, err := c.t.vm.EvalCompiled(c.c, 0, 0)
	if err != nil {
		return vm.Nil, exprError(err)
	}
	return v, nil
}

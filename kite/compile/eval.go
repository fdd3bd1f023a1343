package compile

import (
	"fmt"

	"github.com/polydbg/polydbg/kite/syntax"
)

// Snippet is an expression compiled for evaluation in one frame's scope (a watch, a
// breakpoint condition, a REPL input). Its code ends with RETURN; jump targets and constant
// indexes are already relative to the CodeBase and ConstBase given to CompileExpr, so the
// VM can append it to its code and constants as it is.
type Snippet struct {
	Code     []uint32
	Lines    []LineInfo
	Consts   []any
	MaxStack int
}

// ExprOptions says what an evaluated expression may do.
type ExprOptions struct {
	// Pure rejects calls of anything but the builtins for which IsPure is true.
	Pure   bool
	IsPure func(builtin string) bool
	// CodeBase and ConstBase are where the snippet will be placed in the VM.
	CodeBase, ConstBase int
}

// CompileExpr compiles e to run in the scope of function fn stopped at pc: the locals visible
// there, fn's captured variables, then globals and builtins. fn may be nil (globals only).
func CompileExpr(p *Program, e syntax.Expr, fn *Func, pc int, opts ExprOptions) (*Snippet, error) {
	r := newResolver(p.File, p.Builtins)
	r.top = &fnScope{freeIdx: map[*Binding]int{}}
	r.fn = r.top
	var errs syntax.ErrorList
	bad := func(pos syntax.Pos, format string, args ...any) {
		errs = append(errs, &syntax.Error{File: p.File, Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	var visible []LocalVar
	if fn != nil {
		visible = fn.VisibleLocals(pc)
	}
	bind := func(id *syntax.Ident) {
		for i := len(visible) - 1; i >= 0; i-- {
			if l := visible[i]; l.Name == id.Name {
				r.uses[id] = use{b: &Binding{Kind: Local, Name: l.Name, Slot: l.Slot, Captured: l.Cell, fn: r.top}, free: -1}
				return
			}
		}
		if fn != nil {
			for i, fv := range fn.Free {
				if fv.Name == id.Name {
					r.uses[id] = use{b: &Binding{Kind: Local, Name: fv.Name}, free: i}
					return
				}
			}
		}
		for i, g := range p.Globals {
			if g.Name == id.Name && !g.Implicit {
				r.uses[id] = use{b: &Binding{Kind: Global, Name: g.Name, Slot: i}, free: -1}
				return
			}
		}
		for i, b := range p.Builtins {
			if b == id.Name {
				r.uses[id] = use{b: &Binding{Kind: Builtin, Name: b, Slot: i}, free: -1}
				return
			}
		}
		bad(id.NamePos, "undefined variable %s", id.Name)
	}
	var walk func(e syntax.Expr)
	walk = func(e syntax.Expr) {
		switch e := e.(type) {
		case *syntax.Ident:
			bind(e)
		case *syntax.InterpString:
			for _, x := range e.Parts {
				walk(x)
			}
		case *syntax.ListExpr:
			for _, x := range e.Elems {
				walk(x)
			}
		case *syntax.MapExpr:
			for _, en := range e.Entries {
				walk(en.Key)
				walk(en.Value)
			}
		case *syntax.FuncLit:
			bad(e.FnPos, "function literals cannot be evaluated by the debugger")
		case *syntax.UnaryExpr:
			walk(e.X)
		case *syntax.BinaryExpr:
			walk(e.X)
			walk(e.Y)
		case *syntax.CallExpr:
			walk(e.Fn)
			for _, a := range e.Args {
				walk(a)
			}
			if opts.Pure {
				id, ok := e.Fn.(*syntax.Ident)
				if !ok {
					bad(e.Fn.Pos(), "calls are not allowed in pure mode")
				} else if u, ok := r.uses[id]; ok && (u.b.Kind != Builtin || opts.IsPure == nil || !opts.IsPure(id.Name)) {
					if u.b.Kind == Builtin {
						bad(id.NamePos, "%s is impure and cannot be called in pure mode", id.Name)
					} else {
						bad(id.NamePos, "calling %s is not allowed in pure mode (only pure builtins)", id.Name)
					}
				}
			}
		case *syntax.IndexExpr:
			walk(e.X)
			walk(e.Index)
		case *syntax.DotExpr:
			walk(e.X)
		case *syntax.ParenExpr:
			walk(e.X)
		}
	}
	walk(e)
	if len(errs) > 0 {
		return nil, errs
	}
	c := &compiler{r: r, prog: &Program{File: p.File}, consts: map[any]int{}}
	b := &funcBuilder{fn: &Func{Name: "<eval>"}, scope: r.top}
	c.fn = b
	c.expr(e)
	c.emitAt(e.Pos(), RETURN, 0)
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	s := &Snippet{Lines: b.lines, Consts: c.prog.Consts, MaxStack: b.fn.MaxStack}
	for _, ins := range b.code {
		switch op := Op(ins); op {
		case JUMP, LOOP, JUMPFALSE, JUMPFALSEKEEP, JUMPTRUEKEEP, NEXT:
			ins = Encode(op, Arg(ins)+opts.CodeBase)
		case CONST:
			ins = Encode(op, Arg(ins)+opts.ConstBase)
		}
		s.Code = append(s.Code, ins)
	}
	return s, nil
}

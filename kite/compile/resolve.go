package compile

import (
	"github.com/polydbg/polydbg/kite/syntax"
)

// BindingKind says where a name lives at run time.
type BindingKind uint8

const (
	Local   BindingKind = iota // a slot of the declaring function's frame
	Global                     // a slot of the program's globals
	Builtin                    // a builtin (or host) function
)

// A Binding is one declared name (or one implicit global / builtin).
type Binding struct {
	Kind     BindingKind
	Name     string
	Const    bool
	Captured bool // a local that an inner function uses: it lives in a cell
	Param    bool
	Slot     int // local slot, global slot or builtin index
	fn       *fnScope
	decl     *syntax.Ident
}

// use is what an identifier occurrence refers to; free >= 0 when it reaches a local of an
// enclosing function through the current function's free variable free.
type use struct {
	b    *Binding
	free int
}

type fnScope struct {
	parent  *fnScope
	lit     *syntax.FuncLit // nil for the top level
	nlocals int
	free    []FreeVar
	freeIdx map[*Binding]int
	loops   int
}

type blockScope struct {
	names map[string]*Binding
}

// resolver binds every identifier of a file and finds the compile-time errors that need
// scope knowledge (assignment to a constant, break outside a loop, ...).
type resolver struct {
	file     string
	errs     syntax.ErrorList
	builtins map[string]int
	globals  []*Binding
	gnames   map[string]*Binding
	fn       *fnScope
	blocks   []*blockScope
	uses     map[*syntax.Ident]use
	decls    map[*syntax.Ident]*Binding
	funcs    map[*syntax.FuncLit]*fnScope
	top      *fnScope
}

func newResolver(file string, builtins []string) *resolver {
	r := &resolver{
		file:     file,
		builtins: make(map[string]int, len(builtins)),
		gnames:   map[string]*Binding{},
		uses:     map[*syntax.Ident]use{},
		decls:    map[*syntax.Ident]*Binding{},
		funcs:    map[*syntax.FuncLit]*fnScope{},
	}
	for i, b := range builtins {
		r.builtins[b] = i
	}
	return r
}

func (r *resolver) errorf(pos syntax.Pos, format string, args ...any) {
	r.errs = append(r.errs, &syntax.Error{File: r.file, Pos: pos, Msg: sprintf(format, args...)})
}

// resolveFile declares the top-level names first (so functions may refer to globals
// declared later in the file), then walks every statement.
func (r *resolver) resolveFile(f *syntax.File) {
	r.top = &fnScope{freeIdx: map[*Binding]int{}}
	r.fn = r.top
	for _, s := range f.Stmts {
		switch s := s.(type) {
		case *syntax.LetStmt:
			r.declareGlobal(s.Name, s.Const)
		case *syntax.FnStmt:
			r.declareGlobal(s.Name, false)
		}
	}
	for _, s := range f.Stmts {
		r.stmt(s, true)
	}
}

func (r *resolver) declareGlobal(id *syntax.Ident, isConst bool) {
	if prev, ok := r.gnames[id.Name]; ok && prev.decl != nil {
		r.errorf(id.NamePos, "%s redeclared (previous declaration at %s)", id.Name, prev.decl.NamePos)
		r.decls[id] = prev
		return
	}
	b := &Binding{Kind: Global, Name: id.Name, Const: isConst, Slot: len(r.globals), decl: id}
	r.globals = append(r.globals, b)
	r.gnames[id.Name] = b
	r.decls[id] = b
}

func (r *resolver) pushBlock() {
	r.blocks = append(r.blocks, &blockScope{names: map[string]*Binding{}})
}
func (r *resolver) popBlock() { r.blocks = r.blocks[:len(r.blocks)-1] }

// declareLocal adds a local to the innermost block of the current function.
func (r *resolver) declareLocal(id *syntax.Ident, isConst, param bool) *Binding {
	blk := r.blocks[len(r.blocks)-1]
	if prev, ok := blk.names[id.Name]; ok {
		r.errorf(id.NamePos, "%s redeclared in this block (previous declaration at %s)", id.Name, prev.decl.NamePos)
	}
	b := &Binding{Kind: Local, Name: id.Name, Const: isConst, Param: param, Slot: r.fn.nlocals, fn: r.fn, decl: id}
	r.fn.nlocals++
	blk.names[id.Name] = b
	r.decls[id] = b
	return b
}

// lookup finds the binding of a name used in the current function.
func (r *resolver) lookup(name string) *Binding {
	for i := len(r.blocks) - 1; i >= 0; i-- {
		if b, ok := r.blocks[i].names[name]; ok {
			return b
		}
	}
	if b, ok := r.gnames[name]; ok {
		return b
	}
	if i, ok := r.builtins[name]; ok {
		return &Binding{Kind: Builtin, Name: name, Slot: i}
	}
	// Never declared: an implicit global, an error only if it is reached at run time.
	b := &Binding{Kind: Global, Name: name, Slot: len(r.globals)}
	r.globals = append(r.globals, b)
	r.gnames[name] = b
	return b
}

func (r *resolver) use(id *syntax.Ident) *Binding {
	b := r.lookup(id.Name)
	u := use{b: b, free: -1}
	if b.Kind == Local && b.fn != r.fn {
		b.Captured = true
		u.free = r.capture(r.fn, b)
	}
	r.uses[id] = u
	return b
}

// capture makes b a free variable of f (and of every function between f and b's own).
func (r *resolver) capture(f *fnScope, b *Binding) int {
	if i, ok := f.freeIdx[b]; ok {
		return i
	}
	var fv FreeVar
	if f.parent == b.fn {
		fv = FreeVar{Name: b.Name, FromLocal: true, Index: b.Slot}
	} else {
		fv = FreeVar{Name: b.Name, Index: r.capture(f.parent, b)}
	}
	f.free = append(f.free, fv)
	f.freeIdx[b] = len(f.free) - 1
	return len(f.free) - 1
}

func (r *resolver) stmts(list []syntax.Stmt) {
	for _, s := range list {
		r.stmt(s, false)
	}
}

func (r *resolver) block(b *syntax.Block) {
	r.pushBlock()
	r.stmts(b.Stmts)
	r.popBlock()
}

func (r *resolver) stmt(s syntax.Stmt, topLevel bool) {
	switch s := s.(type) {
	case *syntax.LetStmt:
		r.expr(s.Value)
		if !topLevel {
			r.declareLocal(s.Name, s.Const, false)
		}
	case *syntax.FnStmt:
		if !topLevel {
			// Declared before its body so that it can call itself.
			r.declareLocal(s.Name, false, false)
		}
		r.function(s.Func)
	case *syntax.AssignStmt:
		r.assignTarget(s.Target)
		r.expr(s.Value)
	case *syntax.ExprStmt:
		r.expr(s.X)
	case *syntax.IfStmt:
		r.expr(s.Cond)
		r.block(s.Then)
		if s.Else != nil {
			r.stmt(s.Else, false)
		}
	case *syntax.WhileStmt:
		r.expr(s.Cond)
		r.fn.loops++
		r.block(s.Body)
		r.fn.loops--
	case *syntax.ForStmt:
		r.expr(s.X)
		r.pushBlock()
		r.declareLocal(s.Key, false, false)
		if s.Value != nil {
			r.declareLocal(s.Value, false, false)
		}
		r.fn.loops++
		r.block(s.Body)
		r.fn.loops--
		r.popBlock()
	case *syntax.BranchStmt:
		if r.fn.loops == 0 {
			r.errorf(s.TokPos, "%s outside a loop", s.Tok)
		}
	case *syntax.ReturnStmt:
		if r.fn == r.top {
			r.errorf(s.ReturnPos, "return outside a function")
		}
		if s.Result != nil {
			r.expr(s.Result)
		}
	case *syntax.Block:
		r.block(s)
	}
}

func (r *resolver) assignTarget(t syntax.Expr) {
	switch t := t.(type) {
	case *syntax.Ident:
		b := r.use(t)
		switch {
		case b.Const:
			r.errorf(t.NamePos, "cannot assign to constant %s", t.Name)
		case b.Kind == Builtin:
			r.errorf(t.NamePos, "cannot assign to builtin %s", t.Name)
		}
	case *syntax.IndexExpr:
		r.expr(t.X)
		r.expr(t.Index)
	case *syntax.DotExpr:
		r.expr(t.X)
	default:
		r.errorf(t.Pos(), "cannot assign to this expression")
	}
}

func (r *resolver) function(lit *syntax.FuncLit) {
	f := &fnScope{parent: r.fn, lit: lit, freeIdx: map[*Binding]int{}}
	r.funcs[lit] = f
	r.fn = f
	r.pushBlock()
	for _, p := range lit.Params {
		r.declareLocal(p, false, true)
	}
	r.stmts(lit.Body.Stmts)
	r.popBlock()
	r.fn = f.parent
}

func (r *resolver) expr(e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.Ident:
		r.use(e)
	case *syntax.Literal:
	case *syntax.InterpString:
		for _, p := range e.Parts {
			r.expr(p)
		}
	case *syntax.ListExpr:
		for _, x := range e.Elems {
			r.expr(x)
		}
	case *syntax.MapExpr:
		for _, en := range e.Entries {
			r.expr(en.Key)
			r.expr(en.Value)
		}
	case *syntax.FuncLit:
		r.function(e)
	case *syntax.UnaryExpr:
		r.expr(e.X)
	case *syntax.BinaryExpr:
		r.expr(e.X)
		r.expr(e.Y)
	case *syntax.CallExpr:
		r.expr(e.Fn)
		for _, a := range e.Args {
			r.expr(a)
		}
	case *syntax.IndexExpr:
		r.expr(e.X)
		r.expr(e.Index)
	case *syntax.DotExpr:
		r.expr(e.X)
	case *syntax.ParenExpr:
		r.expr(e.X)
	}
}

package compile

import "github.com/polydbg/polydbg/kite/syntax"

// blockStart remembers where the locals opened in a block begin, to close their ranges.
func (c *compiler) openBlock() int { return len(c.fn.locals) }

func (c *compiler) closeBlock(mark int) {
	for _, lr := range c.fn.locals[mark:] {
		if lr.end < 0 {
			lr.end = c.here()
		}
	}
}

// declare stores the value on top of the stack into a newly declared name.
func (c *compiler) declare(id *syntax.Ident) {
	b := c.r.decls[id]
	switch {
	case b.Kind == Global:
		c.emitAt(id.NamePos, DEFGLOBAL, b.Slot)
		return
	case b.Captured:
		c.emitAt(id.NamePos, INITCELL, b.Slot)
	default:
		c.emitAt(id.NamePos, STORELOCAL, b.Slot)
	}
	c.fn.locals = append(c.fn.locals, &localRange{b: b, start: c.here(), end: -1})
}

func (c *compiler) load(id *syntax.Ident) {
	u := c.r.uses[id]
	switch {
	case u.b.Kind == Builtin:
		c.emitAt(id.NamePos, LOADBUILTIN, u.b.Slot)
	case u.b.Kind == Global:
		c.emitAt(id.NamePos, LOADGLOBAL, u.b.Slot)
	case u.free >= 0:
		c.emitAt(id.NamePos, LOADFREE, u.free)
	case u.b.Captured:
		c.emitAt(id.NamePos, LOADCELL, u.b.Slot)
	default:
		c.emitAt(id.NamePos, LOADLOCAL, u.b.Slot)
	}
}

func (c *compiler) store(id *syntax.Ident) {
	u := c.r.uses[id]
	switch {
	case u.b.Kind == Global:
		c.emitAt(id.NamePos, STOREGLOBAL, u.b.Slot)
	case u.free >= 0:
		c.emitAt(id.NamePos, STOREFREE, u.free)
	case u.b.Captured:
		c.emitAt(id.NamePos, STORECELL, u.b.Slot)
	default:
		c.emitAt(id.NamePos, STORELOCAL, u.b.Slot)
	}
}

func (c *compiler) stmts(list []syntax.Stmt) {
	for _, s := range list {
		c.stmt(s)
	}
}

func (c *compiler) block(b *syntax.Block) {
	mark := c.openBlock()
	c.stmts(b.Stmts)
	c.closeBlock(mark)
}

var assignOps = map[syntax.Token]Opcode{
	syntax.PLUS_EQ: ADD, syntax.MINUS_EQ: SUB, syntax.STAR_EQ: MUL, syntax.SLASH_EQ: DIV, syntax.PERCENT_EQ: MOD,
}

func (c *compiler) stmt(s syntax.Stmt) {
	kind := syntax.StmtKind(s)
	switch s := s.(type) {
	case *syntax.LetStmt:
		c.beginStmt(s.LetPos, kind)
		c.expr(s.Value)
		c.declare(s.Name)
	case *syntax.FnStmt:
		c.beginStmt(s.FnPos, kind)
		if b := c.r.decls[s.Name]; b.Kind == Local && b.Captured {
			// A local function that refers to itself: its cell must exist before the
			// closure captures it.
			c.emitAt(s.FnPos, NIL, 0)
			c.declare(s.Name)
			idx := c.funcLit(s.Func, s.Name.Name)
			c.emitAt(s.FnPos, CLOSURE, idx)
			c.emitAt(s.FnPos, STORECELL, b.Slot)
			return
		}
		idx := c.funcLit(s.Func, s.Name.Name)
		c.emitAt(s.FnPos, CLOSURE, idx)
		c.declare(s.Name)
	case *syntax.AssignStmt:
		c.beginStmt(s.Pos(), kind)
		c.assign(s)
	case *syntax.ExprStmt:
		c.beginStmt(s.Pos(), kind)
		c.expr(s.X)
		c.emitAt(s.Pos(), POP, 0)
	case *syntax.IfStmt:
		c.beginStmt(s.IfPos, kind)
		c.expr(s.Cond)
		jf := c.emitAt(s.IfPos, JUMPFALSE, 0)
		c.block(s.Then)
		if s.Else == nil {
			c.patch(jf, c.here())
			return
		}
		j := c.emitAt(s.IfPos, JUMP, 0)
		c.patch(jf, c.here())
		c.stmt(s.Else)
		c.patch(j, c.here())
	case *syntax.WhileStmt:
		head := c.here()
		c.beginStmt(s.WhilePos, kind)
		c.expr(s.Cond)
		jf := c.emitAt(s.WhilePos, JUMPFALSE, 0)
		loop := &loopLabels{continueAt: head}
		c.fn.loops = append(c.fn.loops, loop)
		c.block(s.Body)
		c.fn.loops = c.fn.loops[:len(c.fn.loops)-1]
		c.emitAt(s.WhilePos, LOOP, head)
		for _, b := range loop.breaks {
			c.patch(b, c.here())
		}
		c.patch(jf, c.here())
	case *syntax.ForStmt:
		c.forStmt(s)
	case *syntax.BranchStmt:
		c.beginStmt(s.TokPos, kind)
		loop := c.fn.loops[len(c.fn.loops)-1]
		if s.Tok == syntax.CONTINUE {
			c.emitAt(s.TokPos, LOOP, loop.continueAt)
		} else {
			loop.breaks = append(loop.breaks, c.emitAt(s.TokPos, JUMP, 0))
		}
	case *syntax.ReturnStmt:
		c.beginStmt(s.ReturnPos, kind)
		if s.Result == nil {
			c.emitAt(s.ReturnPos, RETURNNIL, 0)
		} else {
			c.expr(s.Result)
			c.emitAt(s.ReturnPos, RETURN, 0)
		}
	case *syntax.Block:
		c.block(s)
	}
}

func (c *compiler) assign(s *syntax.AssignStmt) {
	op, compound := assignOps[s.Op]
	switch t := s.Target.(type) {
	case *syntax.Ident:
		if compound {
			c.load(t)
			c.expr(s.Value)
			c.emitAt(s.OpPos, op, 0)
		} else {
			c.expr(s.Value)
		}
		c.store(t)
	case *syntax.IndexExpr:
		c.expr(t.X)
		c.expr(t.Index)
		c.assignIndexValue(s, op, compound, t.Lbrack)
	case *syntax.DotExpr:
		c.expr(t.X)
		c.emitAt(t.Dot, CONST, c.constIndex(t.Name.Name))
		c.assignIndexValue(s, op, compound, t.Dot)
	}
}

func (c *compiler) assignIndexValue(s *syntax.AssignStmt, op Opcode, compound bool, at syntax.Pos) {
	if compound {
		c.emitAt(at, DUP2, 0)
		c.emitAt(at, INDEX, 0)
		c.expr(s.Value)
		c.emitAt(s.OpPos, op, 0)
	} else {
		c.expr(s.Value)
	}
	c.emitAt(at, SETINDEX, 0)
}

// forStmt compiles for x in e / for k, v in e. The loop head (NEXT) begins the statement,
// so stepping stops on the for line once per iteration. range(...) is iterated without
// building a list when the name is the builtin.
func (c *compiler) forStmt(s *syntax.ForStmt) {
	if call, ok := s.X.(*syntax.CallExpr); ok && s.Value == nil && c.isBuiltin(call.Fn, "range") && len(call.Args) >= 1 && len(call.Args) <= 3 {
		switch len(call.Args) {
		case 1:
			c.emitAt(call.Lparen, SMALLINT, 0)
			c.expr(call.Args[0])
			c.emitAt(call.Lparen, SMALLINT, 1)
		case 2:
			c.expr(call.Args[0])
			c.expr(call.Args[1])
			c.emitAt(call.Lparen, SMALLINT, 1)
		case 3:
			c.expr(call.Args[0])
			c.expr(call.Args[1])
			c.expr(call.Args[2])
		}
		c.emitAt(call.Pos(), RANGEITER, 0)
	} else {
		c.expr(s.X)
		if s.Value != nil {
			c.emitAt(s.ForPos, ITER2, 0)
		} else {
			c.emitAt(s.ForPos, ITER, 0)
		}
	}
	mark := c.openBlock()
	head := c.here()
	c.beginStmt(s.ForPos, "For")
	next := c.emitAt(s.ForPos, NEXT, 0)
	if s.Value != nil {
		c.fn.depth += 2
		c.declare(s.Value)
	} else {
		c.fn.depth++
	}
	c.declare(s.Key)
	if c.fn.depth > c.fn.fn.MaxStack {
		c.fn.fn.MaxStack = c.fn.depth + 1
	}
	loop := &loopLabels{continueAt: head, extra: 1}
	c.fn.loops = append(c.fn.loops, loop)
	c.block(s.Body)
	c.fn.loops = c.fn.loops[:len(c.fn.loops)-1]
	c.emitAt(s.ForPos, LOOP, head)
	if len(loop.breaks) > 0 {
		brk := c.emitAt(s.ForPos, POP, 0) // the iterator, left by a break
		c.fn.depth++                      // the fallthrough path reaches here without it
		for _, b := range loop.breaks {
			c.patch(b, brk)
		}
	}
	c.patch(next, c.here())
	c.fn.depth--
	c.closeBlock(mark)
}

func (c *compiler) isBuiltin(e syntax.Expr, name string) bool {
	id, ok := e.(*syntax.Ident)
	if !ok || id.Name != name {
		return false
	}
	u, ok := c.r.uses[id]
	return ok && u.b.Kind == Builtin
}

// funcLit compiles a function body into its own code range and returns its index.
func (c *compiler) funcLit(lit *syntax.FuncLit, name string) int {
	savedFn, savedPos, savedKind := c.fn, c.stmtPos, c.stmtKind
	c.stmtKind = ""
	b := c.newFunc(name, lit.FnPos, c.r.funcs[lit])
	b.fn.NumParams = len(lit.Params)
	c.fn = b
	for _, p := range lit.Params {
		pb := c.r.decls[p]
		b.locals = append(b.locals, &localRange{b: pb, start: 0, end: -1})
		if pb.Captured { // an inner function captures the parameter: box it
			c.emitAt(p.NamePos, LOADLOCAL, pb.Slot)
			c.emitAt(p.NamePos, INITCELL, pb.Slot)
		}
	}
	c.stmts(lit.Body.Stmts)
	end := lit.Body.Rbrace
	if !end.IsValid() {
		end = lit.FnPos
	}
	c.beginStmt(end, "Return")
	c.emitAt(end, RETURNNIL, 0)
	c.closeBlock(0)
	c.finishFunc(b)
	c.fn, c.stmtPos, c.stmtKind = savedFn, savedPos, savedKind
	return b.index
}

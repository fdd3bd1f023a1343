package compile

import "github.com/polydbg/polydbg/kite/syntax"

var binaryOps = map[syntax.Token]Opcode{
	syntax.PLUS: ADD, syntax.MINUS: SUB, syntax.STAR: MUL, syntax.SLASH: DIV, syntax.PERCENT: MOD,
	syntax.EQL: EQ, syntax.NEQ: NE, syntax.LT: LT, syntax.LE: LE, syntax.GT: GT, syntax.GE: GE,
}

const minSmallInt, maxSmallInt = -(1 << (ArgBits - 1)), 1<<(ArgBits-1) - 1

func (c *compiler) intConst(pos syntax.Pos, v int64) {
	if v >= minSmallInt && v <= maxSmallInt {
		c.emitAt(pos, SMALLINT, int(v))
		return
	}
	c.emitAt(pos, CONST, c.constIndex(v))
}

func (c *compiler) expr(e syntax.Expr) {
	switch e := e.(type) {
	case *syntax.Ident:
		c.load(e)
	case *syntax.Literal:
		c.literal(e)
	case *syntax.InterpString:
		for _, p := range e.Parts {
			c.expr(p)
		}
		c.emitAt(e.QuotePos, INTERP, len(e.Parts))
	case *syntax.ListExpr:
		for _, x := range e.Elems {
			c.expr(x)
		}
		c.emitAt(e.Lbrack, MAKELIST, len(e.Elems))
	case *syntax.MapExpr:
		for _, en := range e.Entries {
			c.expr(en.Key)
			c.expr(en.Value)
		}
		c.emitAt(e.Lbrace, MAKEMAP, len(e.Entries))
	case *syntax.FuncLit:
		idx := c.funcLit(e, e.Name)
		c.emitAt(e.FnPos, CLOSURE, idx)
	case *syntax.UnaryExpr:
		if lit, ok := e.X.(*syntax.Literal); ok && e.Op == syntax.MINUS {
			switch v := lit.Value.(type) {
			case int64:
				c.intConst(e.OpPos, -v)
				return
			case float64:
				c.emitAt(e.OpPos, CONST, c.constIndex(-v))
				return
			}
		}
		c.expr(e.X)
		if e.Op == syntax.NOT {
			c.emitAt(e.OpPos, NOT, 0)
		} else {
			c.emitAt(e.OpPos, NEG, 0)
		}
	case *syntax.BinaryExpr:
		switch e.Op {
		case syntax.AND, syntax.OR:
			c.expr(e.X)
			op := JUMPFALSEKEEP
			if e.Op == syntax.OR {
				op = JUMPTRUEKEEP
			}
			j := c.emitAt(e.OpPos, op, 0)
			c.expr(e.Y)
			c.fn.depth-- // one value is left whichever way: X (jumped) or Y (X popped)
			c.patch(j, c.here())
		default:
			c.expr(e.X)
			c.expr(e.Y)
			c.emitAt(e.OpPos, binaryOps[e.Op], 0)
		}
	case *syntax.CallExpr:
		c.expr(e.Fn)
		for _, a := range e.Args {
			c.expr(a)
		}
		c.emitAt(e.Fn.Pos(), CALL, len(e.Args))
	case *syntax.IndexExpr:
		c.expr(e.X)
		c.expr(e.Index)
		c.emitAt(e.Lbrack, INDEX, 0)
	case *syntax.DotExpr:
		c.expr(e.X)
		c.emitAt(e.Dot, CONST, c.constIndex(e.Name.Name))
		c.emitAt(e.Dot, INDEX, 0)
	case *syntax.ParenExpr:
		c.expr(e.X)
	default:
		c.errorf(e.Pos(), "unsupported expression")
	}
}

func (c *compiler) literal(l *syntax.Literal) {
	switch l.Kind {
	case syntax.INT:
		c.intConst(l.ValuePos, l.Value.(int64))
	case syntax.FLOAT:
		c.emitAt(l.ValuePos, CONST, c.constIndex(l.Value.(float64)))
	case syntax.STRING:
		c.emitAt(l.ValuePos, CONST, c.constIndex(l.Value.(string)))
	case syntax.TRUE:
		c.emitAt(l.ValuePos, TRUE, 0)
	case syntax.FALSE:
		c.emitAt(l.ValuePos, FALSE, 0)
	default:
		c.emitAt(l.ValuePos, NIL, 0)
	}
}

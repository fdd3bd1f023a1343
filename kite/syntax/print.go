package syntax

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExprString renders an expression as Kite source on one line, for messages and displays
// (a watch, a condition, "cannot assign to ..."). Literals keep their source text; a
// function literal's body is written on the same line, its statements separated by ';'.
// Parentheses are added where a tree built by hand needs them; reparsing the text gives the
// same tree (with ParenExpr for the added parentheses).
func ExprString(x Expr) string {
	var b strings.Builder
	writeExpr(&b, x, precLowest)
	return b.String()
}

// StmtString renders a statement as Kite source on one line, like ExprString.
func StmtString(s Stmt) string {
	var b strings.Builder
	writeStmt(&b, s)
	return b.String()
}

// Operator precedences, low to high.
const (
	precLowest = iota
	precOr
	precAnd
	precNot
	precCmp
	precAdd
	precMul
	precUnary
	precPostfix
	precOperand
)

func binaryPrec(op Token) int {
	switch op {
	case OR:
		return precOr
	case AND:
		return precAnd
	case EQL, NEQ, LT, LE, GT, GE:
		return precCmp
	case PLUS, MINUS:
		return precAdd
	case STAR, SLASH, PERCENT:
		return precMul
	}
	return precLowest
}

func exprPrec(x Expr) int {
	switch x := x.(type) {
	case *BinaryExpr:
		return binaryPrec(x.Op)
	case *UnaryExpr:
		if x.Op == NOT {
			return precNot
		}
		return precUnary
	case *CallExpr, *IndexExpr, *DotExpr:
		return precPostfix
	}
	return precOperand
}

// writeExpr writes x, in parentheses if its precedence is below min.
func writeExpr(b *strings.Builder, x Expr, min int) {
	if x == nil {
		b.WriteString("<nil>")
		return
	}
	if exprPrec(x) < min {
		b.WriteByte('(')
		defer b.WriteByte(')')
	}
	switch x := x.(type) {
	case *Ident:
		b.WriteString(x.Name)
	case *Literal:
		writeLiteral(b, x)
	case *InterpString:
		b.WriteByte('"')
		for _, part := range x.Parts {
			if l, ok := part.(*Literal); ok && l.Kind == STRING && !strings.HasPrefix(l.Raw, `"`) {
				if l.Raw != "" {
					b.WriteString(l.Raw)
				} else if s, ok := l.Value.(string); ok {
					b.WriteString(quote(s, false))
				}
				continue
			}
			b.WriteString("${")
			writeExpr(b, part, precLowest)
			b.WriteByte('}')
		}
		b.WriteByte('"')
	case *ListExpr:
		b.WriteByte('[')
		writeExprs(b, x.Elems)
		b.WriteByte(']')
	case *MapExpr:
		b.WriteByte('{')
		for i, e := range x.Entries {
			if i > 0 {
				b.WriteString(", ")
			}
			if l, ok := e.Key.(*Literal); ok && l.Kind == STRING && l.Raw != "" && !strings.HasPrefix(l.Raw, `"`) {
				b.WriteString(l.Raw) // a bare identifier key
			} else {
				writeExpr(b, e.Key, precLowest)
			}
			b.WriteString(": ")
			writeExpr(b, e.Value, precLowest)
		}
		b.WriteByte('}')
	case *FuncLit:
		b.WriteString("fn")
		if x.Name != "" {
			b.WriteString(" " + x.Name)
		}
		writeParams(b, x.Params)
		b.WriteByte(' ')
		writeBlock(b, x.Body)
	case *UnaryExpr:
		if x.Op == NOT {
			b.WriteString("not ")
			writeExpr(b, x.X, precNot)
		} else {
			b.WriteString(x.Op.String())
			writeExpr(b, x.X, precUnary)
		}
	case *BinaryExpr:
		p := binaryPrec(x.Op)
		right := p + 1
		left := p
		if p == precCmp {
			left = p + 1
		}
		writeExpr(b, x.X, left)
		b.WriteString(" " + x.Op.String() + " ")
		writeExpr(b, x.Y, right)
	case *CallExpr:
		writeExpr(b, x.Fn, precPostfix)
		b.WriteByte('(')
		writeExprs(b, x.Args)
		b.WriteByte(')')
	case *IndexExpr:
		writeExpr(b, x.X, precPostfix)
		b.WriteByte('[')
		writeExpr(b, x.Index, precLowest)
		b.WriteByte(']')
	case *DotExpr:
		writeExpr(b, x.X, precPostfix)
		b.WriteByte('.')
		if x.Name != nil {
			b.WriteString(x.Name.Name)
		}
	case *ParenExpr:
		b.WriteByte('(')
		writeExpr(b, x.X, precLowest)
		b.WriteByte(')')
	default:
		fmt.Fprintf(b, "<%T>", x)
	}
}

func writeLiteral(b *strings.Builder, x *Literal) {
	if x.Raw != "" {
		if x.Kind == STRING && !strings.HasPrefix(x.Raw, `"`) {
			b.WriteString(`"` + x.Raw + `"`) // a bare map key or a part of an InterpString
			return
		}
		b.WriteString(x.Raw)
		return
	}
	switch v := x.Value.(type) {
	case nil:
		b.WriteString("nil")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case float64:
		switch {
		case math.IsNaN(v):
			b.WriteString("(0.0 / 0.0)")
		case math.IsInf(v, 1):
			b.WriteString("(1.0 / 0.0)")
		case math.IsInf(v, -1):
			b.WriteString("(-1.0 / 0.0)")
		default:
			s := strconv.FormatFloat(v, 'g', -1, 64)
			if !strings.ContainsAny(s, ".e") {
				s += ".0"
			}
			b.WriteString(s)
		}
	case string:
		b.WriteString(quote(v, true))
	default:
		fmt.Fprintf(b, "<%T>", v)
	}
}

// quote is s as a Kite string literal, or as the text between its quotes.
func quote(s string, withQuotes bool) string {
	var b strings.Builder
	Quote(&b, s)
	if withQuotes {
		return b.String()
	}
	q := b.String()
	return q[1 : len(q)-1]
}

// Quote writes s as a Kite string literal that reads back to s: the escapes \n \t \r \"
// \\, \$ before '{' (so that it does not read as an interpolation), \u{x} for any other
// control or non-printable character (and \u{fffd} for a byte that is not UTF-8). The
// printer and the VM's value formatting both use it.
func Quote(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '$' && i+1 < len(s) && s[i+1] == '{':
			b.WriteString(`\$`)
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			b.WriteString(`\u{fffd}`)
		case !unicode.IsPrint(r):
			b.WriteString(`\u{`)
			b.WriteString(strconv.FormatInt(int64(r), 16))
			b.WriteByte('}')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// writeExprs writes xs separated by commas (the elements of a list, a call's arguments).
func writeExprs(b *strings.Builder, xs []Expr) {
	for i, x := range xs {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, x, precLowest)
	}
}

func writeParams(b *strings.Builder, params []*Ident) {
	b.WriteByte('(')
	for i, p := range params {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Name)
	}
	b.WriteByte(')')
}

func writeBlock(b *strings.Builder, blk *Block) {
	if blk == nil || len(blk.Stmts) == 0 {
		b.WriteString("{}")
		return
	}
	b.WriteString("{ ")
	for i, s := range blk.Stmts {
		if i > 0 {
			b.WriteString("; ")
		}
		writeStmt(b, s)
	}
	b.WriteString(" }")
}

func writeStmt(b *strings.Builder, s Stmt) {
	switch s := s.(type) {
	case *LetStmt:
		if s.Const {
			b.WriteString("const ")
		} else {
			b.WriteString("let ")
		}
		b.WriteString(s.Name.Name + " = ")
		writeExpr(b, s.Value, precLowest)
	case *FnStmt:
		b.WriteString("fn " + s.Name.Name)
		writeParams(b, s.Func.Params)
		b.WriteByte(' ')
		writeBlock(b, s.Func.Body)
	case *AssignStmt:
		writeExpr(b, s.Target, precLowest)
		b.WriteString(" " + s.Op.String() + " ")
		writeExpr(b, s.Value, precLowest)
	case *ExprStmt:
		writeExpr(b, s.X, precLowest)
	case *IfStmt:
		b.WriteString("if ")
		writeExpr(b, s.Cond, precLowest)
		b.WriteByte(' ')
		writeBlock(b, s.Then)
		if s.Else != nil {
			b.WriteString(" else ")
			writeStmt(b, s.Else)
		}
	case *WhileStmt:
		b.WriteString("while ")
		writeExpr(b, s.Cond, precLowest)
		b.WriteByte(' ')
		writeBlock(b, s.Body)
	case *ForStmt:
		b.WriteString("for " + s.Key.Name)
		if s.Value != nil {
			b.WriteString(", " + s.Value.Name)
		}
		b.WriteString(" in ")
		writeExpr(b, s.X, precLowest)
		b.WriteByte(' ')
		writeBlock(b, s.Body)
	case *BranchStmt:
		b.WriteString(s.Tok.String())
	case *ReturnStmt:
		b.WriteString("return")
		if s.Result != nil {
			b.WriteByte(' ')
			writeExpr(b, s.Result, precLowest)
		}
	case *Block:
		writeBlock(b, s)
	case nil:
		b.WriteString("<nil>")
	default:
		fmt.Fprintf(b, "<%T>", s)
	}
}

package syntax

import (
	"fmt"
	"strconv"
	"strings"
)

// dump renders a node as an s-expression that shows the tree's structure.
func dump(n Node) string {
	var b strings.Builder
	dumpTo(&b, n)
	return b.String()
}

func dumpStmts(list []Stmt) string {
	var parts []string
	for _, s := range list {
		parts = append(parts, dump(s))
	}
	return strings.Join(parts, " ")
}

func dumpTo(b *strings.Builder, n Node) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	list := func(head string, nodes ...Node) {
		w("(%s", head)
		for _, n := range nodes {
			b.WriteByte(' ')
			dumpTo(b, n)
		}
		b.WriteByte(')')
	}
	switch n := n.(type) {
	case nil:
		w("<nil>")
	case *Ident:
		w("%s", n.Name)
	case *Literal:
		switch v := n.Value.(type) {
		case string:
			w("%s", strconv.Quote(v))
		case float64:
			w("%sf", strconv.FormatFloat(v, 'g', -1, 64))
		case nil:
			w("nil")
		default:
			w("%v", v)
		}
	case *InterpString:
		var nodes []Node
		for _, p := range n.Parts {
			nodes = append(nodes, p)
		}
		list("interp", nodes...)
	case *ListExpr:
		var nodes []Node
		for _, e := range n.Elems {
			nodes = append(nodes, e)
		}
		list("list", nodes...)
	case *MapExpr:
		w("(map")
		for _, e := range n.Entries {
			w(" (")
			dumpTo(b, e.Key)
			w(" ")
			dumpTo(b, e.Value)
			w(")")
		}
		w(")")
	case *FuncLit:
		w("(fn")
		if n.Name != "" {
			w(" %s", n.Name)
		}
		w(" (")
		for i, p := range n.Params {
			if i > 0 {
				w(" ")
			}
			w("%s", p.Name)
		}
		w(") ")
		dumpTo(b, n.Body)
		w(")")
	case *UnaryExpr:
		list(n.Op.String(), n.X)
	case *BinaryExpr:
		list(n.Op.String(), n.X, n.Y)
	case *CallExpr:
		nodes := []Node{n.Fn}
		for _, a := range n.Args {
			nodes = append(nodes, a)
		}
		list("call", nodes...)
	case *IndexExpr:
		list("index", n.X, n.Index)
	case *DotExpr:
		list("dot", n.X, n.Name)
	case *ParenExpr:
		list("paren", n.X)
	case *LetStmt:
		kw := "let"
		if n.Const {
			kw = "const"
		}
		list(kw, n.Name, n.Value)
	case *FnStmt:
		if n.Func.Name != n.Name.Name {
			w("(BAD fnstmt name %q != %q)", n.Func.Name, n.Name.Name)
		}
		list("fnstmt", n.Func)
	case *AssignStmt:
		list(n.Op.String(), n.Target, n.Value)
	case *ExprStmt:
		list("expr", n.X)
	case *IfStmt:
		if n.Else != nil {
			list("if", n.Cond, n.Then, n.Else)
		} else {
			list("if", n.Cond, n.Then)
		}
	case *WhileStmt:
		list("while", n.Cond, n.Body)
	case *ForStmt:
		if n.Value != nil {
			list("for", n.Key, n.Value, n.X, n.Body)
		} else {
			list("for", n.Key, n.X, n.Body)
		}
	case *BranchStmt:
		w("%s", n.Tok)
	case *ReturnStmt:
		if n.Result != nil {
			list("return", n.Result)
		} else {
			w("(return)")
		}
	case *Block:
		var nodes []Node
		for _, s := range n.Stmts {
			nodes = append(nodes, s)
		}
		list("block", nodes...)
	default:
		w("<%T>", n)
	}
}

// inspect calls f for n and every node below it, in source order (preorder). An FnStmt's
// Name is not visited (it is the same as its Func's name, and after its position).
func inspect(n Node, f func(Node)) {
	if n == nil {
		return
	}
	f(n)
	switch n := n.(type) {
	case *InterpString:
		for _, p := range n.Parts {
			inspect(p, f)
		}
	case *ListExpr:
		for _, e := range n.Elems {
			inspect(e, f)
		}
	case *MapExpr:
		for _, e := range n.Entries {
			inspect(e.Key, f)
			inspect(e.Value, f)
		}
	case *FuncLit:
		for _, p := range n.Params {
			inspect(p, f)
		}
		inspect(n.Body, f)
	case *UnaryExpr:
		inspect(n.X, f)
	case *BinaryExpr:
		inspect(n.X, f)
		inspect(n.Y, f)
	case *CallExpr:
		inspect(n.Fn, f)
		for _, a := range n.Args {
			inspect(a, f)
		}
	case *IndexExpr:
		inspect(n.X, f)
		inspect(n.Index, f)
	case *DotExpr:
		inspect(n.X, f)
		inspect(n.Name, f)
	case *ParenExpr:
		inspect(n.X, f)
	case *LetStmt:
		inspect(n.Name, f)
		inspect(n.Value, f)
	case *FnStmt:
		inspect(n.Func, f)
	case *AssignStmt:
		inspect(n.Target, f)
		inspect(n.Value, f)
	case *ExprStmt:
		inspect(n.X, f)
	case *IfStmt:
		inspect(n.Cond, f)
		inspect(n.Then, f)
		if n.Else != nil {
			inspect(n.Else, f)
		}
	case *WhileStmt:
		inspect(n.Cond, f)
		inspect(n.Body, f)
	case *ForStmt:
		inspect(n.Key, f)
		if n.Value != nil {
			inspect(n.Value, f)
		}
		inspect(n.X, f)
		inspect(n.Body, f)
	case *ReturnStmt:
		if n.Result != nil {
			inspect(n.Result, f)
		}
	case *Block:
		for _, s := range n.Stmts {
			inspect(s, f)
		}
	}
}

// checkPositions checks that every node below the roots has a valid position, that the
// positions never go backwards in source order, and that none is past the end of src.
func checkPositions(src []byte, roots ...Node) error {
	lines := int32(strings.Count(string(src), "\n") + 1)
	var last Pos
	var err error
	for _, r := range roots {
		inspect(r, func(n Node) {
			if err != nil {
				return
			}
			p := n.Pos()
			switch {
			case !p.IsValid() || p.Col < 1:
				err = fmt.Errorf("%T %s has invalid position %v", n, dump(n), p)
			case p.Line > lines:
				err = fmt.Errorf("%T %s at %v is past the last line %d", n, dump(n), p, lines)
			case p.Line < last.Line || p.Line == last.Line && p.Col < last.Col:
				err = fmt.Errorf("%T %s at %v comes before the previous node at %v", n, dump(n), p, last)
			}
			last = p
		})
	}
	return err
}

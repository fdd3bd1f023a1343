package syntax

// The grammar, where NL is a NEWLINE token (see needsNewline in scanner.go), ';' or, before
// a '}' or the end of the file, nothing:
//
//	File      = { Stmt NL } .
//	Stmt      = ("let" | "const") ident "=" Expr
//	          | "fn" ident Func
//	          | "if" Cond Block [ "else" ( IfStmt | Block ) ]
//	          | "while" Cond Block
//	          | "for" ident [ "," ident ] "in" Cond Block
//	          | "break" | "continue" | "return" [ Expr ]
//	          | Block
//	          | Expr [ ( "=" | "+=" | "-=" | "*=" | "/=" | "%=" ) Expr ] .
//	Block     = "{" { Stmt NL } "}" .
//	Cond      = Expr .                       // a '{' here begins the block, not a map
//	Expr      = And { "or" And } .
//	And       = Not { "and" Not } .
//	Not       = "not" Not | Cmp .
//	Cmp       = Sum [ ( "==" | "!=" | "<" | "<=" | ">" | ">=" ) Sum ] .   // no chains
//	Sum       = Product { ( "+" | "-" ) Product } .
//	Product   = Unary { ( "*" | "/" | "%" ) Unary } .
//	Unary     = "-" Unary | Postfix .
//	Postfix   = Operand { "(" [ Exprs ] ")" | "[" Expr "]" | "." ident } .
//	Operand   = ident | int | float | string | Interp | "true" | "false" | "nil"
//	          | "(" Expr ")" | "[" [ Exprs ] "]" | "{" [ Entry { "," Entry } [ "," ] ] "}"
//	          | "fn" Func .
//	Func      = "(" [ ident { "," ident } [ "," ] ] ")" Block .
//	Exprs     = Expr { "," Expr } [ "," ] .
//	Entry     = Expr ":" Expr .              // a bare identifier key is a string
//	Interp    = STRING_HEAD Expr { STRING_MID Expr } STRING_TAIL .
//
// Inside ( ), [ ], map literals and ${ } newlines are not statement ends.

import (
	"fmt"
	"sort"
	"strconv"
)

// Limits of the parser.
const (
	// MaxErrors is the most errors Parse reports; it stops at the MaxErrors-th.
	MaxErrors = 50
	// MaxNesting is the deepest nesting of brackets, blocks, prefix operators and
	// interpolations the parser accepts ("nesting too deep" beyond it).
	MaxNesting = 1000
	// MaxDepth bounds the depth of the syntax tree, counting each link of a chain such as
	// a+b+c or f(x)(y)[z] as one level, so that any recursive walk of a tree is safe.
	MaxDepth = 10000
)

// Parse parses a Kite source file. When the error is non-nil it is an ErrorList holding
// every error found, in source order: at most one per line (the leftmost; later ones on a
// line are most often its consequences) and at most MaxErrors. Even then the File is not
// nil: it holds the statements that could be parsed (a statement with a syntax error is
// left out; one with a bad literal is kept, the literal's Value being 0 or ""). That is
// enough for tools such as an outline, not for compiling.
func Parse(filename string, src []byte) (*File, error) {
	p := newParser(filename, src)
	f := &File{Name: filename}
	func() {
		defer p.catchBailout()
		p.next()
		f.Stmts = p.parseStmtList(false, Pos{})
	}()
	if err := p.err(); err != nil {
		return f, err
	}
	return f, nil
}

// ParseExpr parses exactly one expression, such as a watch, a breakpoint condition or a
// REPL input. Newlines are allowed anywhere inside it, as inside parentheses. When the
// error is non-nil it is an ErrorList and the expression is nil.
func ParseExpr(filename string, src []byte) (Expr, error) {
	p := newParser(filename, src)
	var x Expr
	func() {
		defer p.catchBailout()
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stmtError); !ok {
					panic(r)
				}
			}
		}()
		p.push(EOF, true)
		p.next()
		x = p.parseExpr()
		if p.tok.tok != EOF {
			p.fail(p.tok.pos, "unexpected %s after expression", p.desc())
		}
	}()
	if err := p.err(); err != nil {
		return nil, err
	}
	return x, nil
}

// stmtError aborts the statement being parsed after an error; bailout aborts the parse.
type (
	stmtError struct{}
	bailout   struct{}
)

type parser struct {
	file string
	s    *scanner
	tok  token // the current token
	pk   token // the token after it, when peeked
	ntok int   // tokens consumed so far
	peek bool

	ctx   []open // the brackets and blocks open
	noMap bool   // a '{' in operand position is not a map literal (if/while/for headers)
	nest  int    // current nesting (MaxNesting)
	depth int    // current tree depth, chains included (MaxDepth)

	errs    ErrorList
	errLine map[int32]int // line -> index in errs
	bailing bool          // a bailout is unwinding the stack
}

func newParser(filename string, src []byte) *parser {
	p := &parser{file: filename, errLine: map[int32]int{}}
	p.s = newScanner(src, p.errorAt)
	return p
}

func (p *parser) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	sort.SliceStable(p.errs, func(i, j int) bool {
		a, b := p.errs[i].Pos, p.errs[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	return p.errs
}

func (p *parser) catchBailout() {
	if r := recover(); r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
	}
}

// errorAt records an error. Only the first error of a line (the leftmost) is kept: the
// others are most often consequences of it.
func (p *parser) errorAt(pos Pos, msg string) {
	if i, ok := p.errLine[pos.Line]; ok {
		if pos.Col < p.errs[i].Pos.Col {
			p.errs[i] = &Error{File: p.file, Pos: pos, Msg: msg}
		}
		return
	}
	p.errLine[pos.Line] = len(p.errs)
	p.errs = append(p.errs, &Error{File: p.file, Pos: pos, Msg: msg})
	if len(p.errs) >= MaxErrors {
		p.bail()
	}
}

func (p *parser) bail() {
	p.bailing = true
	panic(bailout{})
}

// fail records an error and abandons the current statement.
func (p *parser) fail(pos Pos, format string, args ...any) {
	p.errorAt(pos, fmt.Sprintf(format, args...))
	panic(stmtError{})
}

// failHere reports an error at the current token, or only abandons the statement when the
// token is ILLEGAL (the scanner has said why already).
func (p *parser) failHere(format string, args ...any) {
	if p.tok.tok == ILLEGAL {
		panic(stmtError{})
	}
	p.fail(p.tok.pos, format, args...)
}

// next moves to the next token, skipping newlines inside brackets.
func (p *parser) next() {
	for {
		if p.peek {
			p.tok, p.peek = p.pk, false
		} else {
			p.tok = p.s.scan()
		}
		p.ntok++
		if p.tok.tok == NEWLINE && len(p.ctx) > 0 && p.ctx[len(p.ctx)-1].ignoreNL {
			continue
		}
		return
	}
}

// peekTok returns the raw token after the current one.
func (p *parser) peekTok() token {
	if !p.peek {
		p.pk, p.peek = p.s.scan(), true
	}
	return p.pk
}

// open is an open bracket, block or interpolation.
type open struct {
	close    Token // the token that closes it
	ignoreNL bool  // newlines inside are not statement ends
}

func (p *parser) push(close Token, ignoreNL bool) { p.ctx = append(p.ctx, open{close, ignoreNL}) }
func (p *parser) pop()                            { p.ctx = p.ctx[:len(p.ctx)-1] }

func (p *parser) enter() {
	p.nest++
	p.depth++
	if p.nest > MaxNesting {
		p.errorAt(p.tok.pos, fmt.Sprintf("nesting too deep (more than %d levels)", MaxNesting))
		p.bail()
	}
	p.deep()
}

func (p *parser) leave() {
	p.nest--
	p.depth--
}

func (p *parser) deep() {
	if p.depth > MaxDepth {
		p.errorAt(p.tok.pos, fmt.Sprintf("expression too deep (more than %d levels)", MaxDepth))
		p.bail()
	}
}

// desc describes the current token for a message.
func (p *parser) desc() string { return describe(p.tok) }

func describe(t token) string {
	switch t.tok {
	case EOF:
		return "end of file"
	case NEWLINE:
		if t.lit == "" {
			return "end of file"
		}
		return "newline"
	case IDENT:
		return "identifier " + t.lit
	case INT, FLOAT:
		return "number " + t.lit
	case STRING, STRING_HEAD:
		lit := t.lit
		if len(lit) > 20 {
			lit = lit[:17] + "..."
		}
		return "string " + lit
	case ILLEGAL:
		return strconv.Quote(t.lit)
	}
	return "'" + t.tok.String() + "'"
}

func (p *parser) ident(context string) *Ident {
	if p.tok.tok != IDENT {
		p.failHere("expected %s, found %s", context, p.desc())
	}
	id := &Ident{NamePos: p.tok.pos, Name: p.tok.lit}
	p.next()
	return id
}

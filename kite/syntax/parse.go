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

// ---- Statements ----

func isStmtKeyword(t Token) bool {
	switch t {
	case LET, CONST, IF, WHILE, FOR, RETURN, BREAK, CONTINUE:
		return true
	}
	return false
}

// parseStmtList parses statements up to the '}' of a block (inBlock) or the end of file.
func (p *parser) parseStmtList(inBlock bool, lbrace Pos) []Stmt {
	var list []Stmt
	for {
		switch p.tok.tok {
		case NEWLINE, SEMICOLON:
			p.next()
			continue
		case EOF:
			if inBlock {
				p.fail(p.tok.pos, "expected '}' to close block opened at %s, found end of file", lbrace)
			}
			return list
		case RBRACE:
			if inBlock {
				return list
			}
			p.errorAt(p.tok.pos, "unexpected '}'")
			p.next()
			continue
		}
		if s := p.parseStmtRecover(); s != nil {
			list = append(list, s)
		}
	}
}

// parseStmtRecover parses one statement and its end. After an error it skips to where the
// next statement probably starts, and returns nil.
func (p *parser) parseStmtRecover() (s Stmt) {
	ctxLen, noMap, nest, depth, start, col := len(p.ctx), p.noMap, p.nest, p.depth, p.ntok, p.tok.pos.Col
	defer func() {
		if p.bailing {
			return // let it unwind to Parse without a recover and a new panic at every level
		}
		r := recover()
		if r == nil {
			return
		}
		if _, ok := r.(stmtError); !ok {
			panic(r)
		}
		var unclosed []Token
		for _, o := range p.ctx[ctxLen:] {
			unclosed = append(unclosed, o.close)
		}
		p.ctx, p.noMap, p.nest, p.depth = p.ctx[:ctxLen], noMap, nest, depth
		p.sync(unclosed, start, col)
		if p.ntok == start {
			p.next()
		}
		s = nil
	}()
	s = p.parseStmt()
	switch p.tok.tok {
	case NEWLINE, SEMICOLON:
		p.next()
	case RBRACE, EOF:
	case ELSE:
		p.failHere("unexpected 'else' (else must follow the '}' of an if block)")
	case COLON:
		if p.peekTok().tok == EQ {
			p.failHere("unexpected ':=' (declare a variable with let x = ...)")
		}
		p.failHere("unexpected ':' at end of statement")
	default:
		p.failHere("unexpected %s at end of statement", p.desc())
	}
	return s
}

// sync skips tokens after an error in a statement that began with token number start, at
// column col, and left the brackets stack unclosed. It stops
//   - after the newline that ends the statement, once its brackets are closed;
//   - before the '}' that closes the enclosing block;
//   - before a token that begins a line, at column col or left of it, or with a statement
//     keyword, unless it is inside brackets opened while skipping (an unclosed bracket is
//     likelier than a statement that goes on at the indentation of its start).
func (p *parser) sync(stack []Token, start int, col int32) {
	own := len(stack)              // stack[:own] were opened by the statement, the rest while skipping
	var count [STRING_TAIL + 1]int // how many of each closer stack holds
	for _, c := range stack {
		count[c]++
	}
	push := func(c Token) {
		stack = append(stack, c)
		count[c]++
	}
	for {
		t := p.tok
		switch t.tok {
		case EOF:
			return
		case NEWLINE:
			if len(stack) == 0 {
				p.next()
				return
			}
		case LPAREN:
			push(RPAREN)
		case LBRACK:
			push(RBRACK)
		case LBRACE:
			push(RBRACE)
		case STRING_HEAD:
			push(STRING_TAIL)
		case RPAREN, RBRACK, RBRACE, STRING_TAIL:
			if count[t.tok] == 0 {
				if t.tok == RBRACE {
					return // the end of the enclosing block
				}
				break // a stray closer
			}
			for { // close up to the matching opener
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				count[c]--
				if c == t.tok {
					break
				}
			}
			own = min(own, len(stack))
		default:
			if len(stack) == own && t.first && p.ntok > start &&
				(t.pos.Col <= col || isStmtKeyword(t.tok)) {
				return
			}
		}
		p.next()
	}
}

func (p *parser) parseStmt() Stmt {
	switch p.tok.tok {
	case LET, CONST:
		return p.parseLet()
	case FN:
		if p.peekTok().tok == IDENT {
			return p.parseFnStmt()
		}
	case IF:
		return p.parseIf()
	case WHILE:
		pos := p.tok.pos
		p.next()
		cond := p.parseCond("while")
		return &WhileStmt{WhilePos: pos, Cond: cond, Body: p.parseBlock("after while condition")}
	case FOR:
		return p.parseFor()
	case BREAK, CONTINUE:
		s := &BranchStmt{TokPos: p.tok.pos, Tok: p.tok.tok}
		p.next()
		return s
	case RETURN:
		s := &ReturnStmt{ReturnPos: p.tok.pos}
		p.next()
		switch p.tok.tok {
		case NEWLINE, SEMICOLON, RBRACE, EOF:
		default:
			s.Result = p.parseExpr()
		}
		return s
	case LBRACE:
		return p.parseBlock("")
	case ELSE:
		p.fail(p.tok.pos, "unexpected 'else' (else must be on the same line as the '}' before it)")
	}
	return p.parseSimpleStmt()
}

func (p *parser) parseLet() Stmt {
	s := &LetStmt{LetPos: p.tok.pos, Const: p.tok.tok == CONST}
	kw := p.tok.tok.String()
	p.next()
	s.Name = p.ident("name after " + kw)
	if p.tok.tok != EQ {
		p.failHere("expected '=' after %s %s, found %s", kw, s.Name.Name, p.desc())
	}
	p.next()
	s.Value = p.parseExpr()
	return s
}

func (p *parser) parseFnStmt() Stmt {
	pos := p.tok.pos
	p.next()
	name := p.ident("function name")
	f := p.parseFuncRest(pos)
	f.Name = name.Name
	return &FnStmt{FnPos: pos, Name: name, Func: f}
}

func (p *parser) parseIf() Stmt {
	s := &IfStmt{IfPos: p.tok.pos}
	p.next()
	s.Cond = p.parseCond("if")
	s.Then = p.parseBlock("after if condition")
	if p.tok.tok == ELSE {
		p.next()
		switch p.tok.tok {
		case IF:
			p.enter() // else if chains recurse
			s.Else = p.parseIf()
			p.leave()
		case LBRACE:
			s.Else = p.parseBlock("")
		default:
			p.failHere("expected 'if' or '{' after else, found %s", p.desc())
		}
	}
	return s
}

func (p *parser) parseFor() Stmt {
	s := &ForStmt{ForPos: p.tok.pos}
	p.next()
	s.Key = p.ident("loop variable after for")
	if p.tok.tok == COMMA {
		p.next()
		s.Value = p.ident("second loop variable after ','")
	}
	if p.tok.tok != IN {
		p.failHere("expected 'in' after the loop variables, found %s", p.desc())
	}
	p.next()
	s.X = p.parseCond("for")
	s.Body = p.parseBlock("after for ... in expression")
	return s
}

// parseCond parses the expression of an if, while or for header, where a '{' begins the
// body and not a map literal.
func (p *parser) parseCond(kw string) Expr {
	if p.tok.tok == LBRACE {
		if kw == "for" {
			p.failHere("missing expression after 'in'")
		}
		p.failHere("missing condition in %s statement", kw)
	}
	old := p.noMap
	p.noMap = true
	x := p.parseExpr()
	p.noMap = old
	if p.tok.tok == EQ && kw != "for" {
		p.failHere("unexpected '=' in %s condition (compare with ==)", kw)
	}
	return x
}

// parseBlock parses { stmts }; context completes "expected '{' ...".
func (p *parser) parseBlock(context string) *Block {
	if p.tok.tok != LBRACE {
		p.failHere("expected '{' %s, found %s", context, p.desc())
	}
	p.enter()
	b := &Block{Lbrace: p.tok.pos}
	old := p.noMap
	p.noMap = false
	p.push(RBRACE, false)
	p.next()
	b.Stmts = p.parseStmtList(true, b.Lbrace)
	b.Rbrace = p.tok.pos
	p.pop()
	p.noMap = old
	p.leave()
	p.next()
	return b
}

func (p *parser) parseSimpleStmt() Stmt {
	x := p.parseExpr()
	switch op := p.tok.tok; op {
	case EQ, PLUS_EQ, MINUS_EQ, STAR_EQ, SLASH_EQ, PERCENT_EQ:
		s := &AssignStmt{Target: x, OpPos: p.tok.pos, Op: op}
		valid := true
		switch x.(type) {
		case *Ident, *IndexExpr, *DotExpr:
		default:
			valid = false
			p.errorAt(x.Pos(), "cannot assign to "+shorten(ExprString(x)))
		}
		p.next()
		s.Value = p.parseExpr()
		if !valid {
			return nil
		}
		return s
	}
	return &ExprStmt{X: x}
}

func shorten(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// ---- Expressions ----

func (p *parser) parseExpr() Expr {
	p.enter()
	x := p.parseOr()
	p.leave()
	return x
}

// binary parses a left-associative chain of operators ops over operands parsed by sub.
func (p *parser) binary(sub func() Expr, ops ...Token) Expr {
	x := sub()
	links := 0
	for {
		op := p.tok.tok
		found := false
		for _, o := range ops {
			if op == o {
				found = true
				break
			}
		}
		if !found {
			break
		}
		pos := p.tok.pos
		p.next()
		links++
		p.depth++
		p.deep()
		x = &BinaryExpr{X: x, OpPos: pos, Op: op, Y: sub()}
	}
	p.depth -= links
	return x
}

func (p *parser) parseOr() Expr  { return p.binary(p.parseAnd, OR) }
func (p *parser) parseAnd() Expr { return p.binary(p.parseNot, AND) }

func (p *parser) parseNot() Expr {
	if p.tok.tok != NOT {
		return p.parseCmp()
	}
	pos := p.tok.pos
	p.enter()
	p.next()
	x := &UnaryExpr{OpPos: pos, Op: NOT, X: p.parseNot()}
	p.leave()
	return x
}

func isCmp(t Token) bool {
	switch t {
	case EQL, NEQ, LT, LE, GT, GE:
		return true
	}
	return false
}

func (p *parser) parseCmp() Expr {
	x := p.parseAdd()
	if !isCmp(p.tok.tok) {
		return x
	}
	b := &BinaryExpr{X: x, OpPos: p.tok.pos, Op: p.tok.tok}
	p.next()
	b.Y = p.parseAdd()
	if isCmp(p.tok.tok) {
		p.fail(p.tok.pos, "comparisons cannot be chained (write a %s b and b %s c)", b.Op, p.tok.tok)
	}
	return b
}

func (p *parser) parseAdd() Expr { return p.binary(p.parseMul, PLUS, MINUS) }
func (p *parser) parseMul() Expr { return p.binary(p.parseUnary, STAR, SLASH, PERCENT) }

func (p *parser) parseUnary() Expr {
	if p.tok.tok != MINUS {
		return p.parsePostfix()
	}
	pos := p.tok.pos
	p.enter()
	p.next()
	x := &UnaryExpr{OpPos: pos, Op: MINUS, X: p.parseUnary()}
	p.leave()
	return x
}

func (p *parser) parsePostfix() Expr {
	x := p.parseOperand()
	links := 0
	for {
		switch p.tok.tok {
		case LPAREN:
			call := &CallExpr{Fn: x, Lparen: p.tok.pos}
			p.list(RPAREN, "argument list", func() {
				call.Args = append(call.Args, p.parseExpr())
			})
			x = call
		case LBRACK:
			ix := &IndexExpr{X: x, Lbrack: p.tok.pos}
			old := p.noMap
			p.noMap = false
			p.push(RBRACK, true)
			p.next()
			if p.tok.tok == RBRACK {
				p.failHere("missing index in []")
			}
			ix.Index = p.parseExpr()
			if p.tok.tok != RBRACK {
				p.failHere("expected ']' to close index opened at %s, found %s", ix.Lbrack, p.desc())
			}
			p.pop()
			p.noMap = old
			p.next()
			x = ix
		case DOT:
			d := &DotExpr{X: x, Dot: p.tok.pos}
			p.next()
			d.Name = p.ident("name after '.'")
			x = d
		default:
			p.depth -= links
			return x
		}
		links++
		p.depth++
		p.deep()
	}
}

// list parses the comma-separated elements of a bracketed list whose opening token is the
// current one, up to close; trailing commas and newlines are allowed.
func (p *parser) list(close Token, what string, elem func()) {
	open := p.tok
	old := p.noMap
	p.noMap = false
	p.push(close, true)
	p.next()
	for p.tok.tok != close {
		elem()
		if p.tok.tok == COMMA {
			p.next()
			continue
		}
		if p.tok.tok != close {
			switch t := p.tok.tok; {
			case t == EOF, t == RPAREN, t == RBRACK, t == RBRACE, t == STRING_MID, t == STRING_TAIL,
				t == LBRACE && close == RPAREN, p.tok.first && p.tok.pos.Line != open.pos.Line:
				p.failHere("expected '%s' to close %s opened at %s, found %s", close, what, open.pos, p.desc())
			default:
				p.failHere("expected ',' or '%s' in %s, found %s", close, what, p.desc())
			}
		}
	}
	p.pop()
	p.noMap = old
	p.next()
}

func (p *parser) parseOperand() Expr {
	t := p.tok
	switch t.tok {
	case IDENT:
		p.next()
		return &Ident{NamePos: t.pos, Name: t.lit}
	case INT, FLOAT, STRING:
		if t.bad {
			panic(stmtError{}) // an unterminated string: the scanner has said so
		}
		p.next()
		return &Literal{ValuePos: t.pos, Kind: t.tok, Raw: t.lit, Value: t.val}
	case TRUE, FALSE, NIL:
		p.next()
		var v any
		if t.tok != NIL {
			v = t.tok == TRUE
		}
		return &Literal{ValuePos: t.pos, Kind: t.tok, Raw: t.lit, Value: v}
	case STRING_HEAD:
		return p.parseInterp()
	case LPAREN:
		old := p.noMap
		p.noMap = false
		p.push(RPAREN, true)
		p.next()
		x := &ParenExpr{Lparen: t.pos, X: p.parseExpr()}
		if p.tok.tok != RPAREN {
			p.failHere("expected ')' to close '(' opened at %s, found %s", t.pos, p.desc())
		}
		p.pop()
		p.noMap = old
		p.next()
		return x
	case LBRACK:
		l := &ListExpr{Lbrack: t.pos}
		p.list(RBRACK, "list", func() {
			l.Elems = append(l.Elems, p.parseExpr())
		})
		return l
	case LBRACE:
		if p.noMap {
			p.failHere("unexpected '{' (put a map literal here in parentheses)")
		}
		m := &MapExpr{Lbrace: t.pos}
		p.list(RBRACE, "map literal", func() {
			k := p.parseExpr()
			if id, ok := k.(*Ident); ok {
				k = &Literal{ValuePos: id.NamePos, Kind: STRING, Raw: id.Name, Value: id.Name}
			}
			if p.tok.tok != COLON {
				p.failHere("expected ':' after map key, found %s", p.desc())
			}
			p.next()
			m.Entries = append(m.Entries, MapEntry{Key: k, Value: p.parseExpr()})
		})
		return m
	case FN:
		p.next()
		if p.tok.tok == IDENT {
			p.failHere("unexpected name %s: a function literal has no name", p.tok.lit)
		}
		return p.parseFuncRest(t.pos)
	case RPAREN, RBRACK, RBRACE, COMMA, COLON, SEMICOLON, DOT, EQ, PLUS_EQ, MINUS_EQ, STAR_EQ,
		SLASH_EQ, PERCENT_EQ, STRING_MID, STRING_TAIL, ELSE, IN:
		p.failHere("unexpected %s", p.desc())
	}
	p.failHere("expected expression, found %s", p.desc())
	return nil
}

// parseFuncRest parses (params) { body } after fn [name].
func (p *parser) parseFuncRest(fnPos Pos) *FuncLit {
	f := &FuncLit{FnPos: fnPos}
	if p.tok.tok != LPAREN {
		p.failHere("expected '(' after fn, found %s", p.desc())
	}
	p.list(RPAREN, "parameter list", func() {
		f.Params = append(f.Params, p.ident("parameter name"))
	})
	f.Body = p.parseBlock("to begin the function body")
	return f
}

// parseInterp parses an interpolated string: STRING_HEAD expr (STRING_MID expr)* STRING_TAIL.
func (p *parser) parseInterp() Expr {
	s := &InterpString{QuotePos: p.tok.pos}
	old := p.noMap
	p.noMap = false
	p.push(STRING_TAIL, true)
	for {
		t := p.tok
		if t.text != "" {
			s.Parts = append(s.Parts, &Literal{ValuePos: t.tpos, Kind: STRING, Raw: t.text, Value: t.val})
		}
		if t.bad {
			panic(stmtError{}) // an unterminated string: the scanner has said so
		}
		if t.tok == STRING_TAIL {
			break
		}
		dollar := Pos{Line: t.pos.Line, Col: t.pos.Col + int32(len(t.lit)) - 2}
		p.next()
		if p.tok.tok == STRING_MID || p.tok.tok == STRING_TAIL {
			p.failHere("empty expression in '${}'")
		}
		s.Parts = append(s.Parts, p.parseExpr())
		if p.tok.tok != STRING_MID && p.tok.tok != STRING_TAIL {
			p.failHere("expected '}' to close '${' opened at %s, found %s", dollar, p.desc())
		}
	}
	p.pop()
	p.noMap = old
	p.next()
	return s
}

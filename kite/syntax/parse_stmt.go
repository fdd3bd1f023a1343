package syntax

// The parser's statements (see the grammar in parse.go), and the recovery after an error in one.

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

package syntax

// The parser's expressions (see the grammar in parse.go).

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

func (p *parser) parseNot() Expr { return p.prefix(NOT, p.parseNot, p.parseCmp) }

// prefix parses the prefix operator op applied to what self parses (so that it may repeat),
// or, without op, what sub parses.
func (p *parser) prefix(op Token, self, sub func() Expr) Expr {
	if p.tok.tok != op {
		return sub()
	}
	pos := p.tok.pos
	p.enter()
	p.next()
	x := &UnaryExpr{OpPos: pos, Op: op, X: self()}
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

func (p *parser) parseUnary() Expr { return p.prefix(MINUS, p.parseUnary, p.parsePostfix) }

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

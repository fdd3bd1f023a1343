package syntax

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// token is one scanned token.
type token struct {
	tok   Token
	pos   Pos
	lit   string // the token's source text ("" for a synthesized token)
	val   any    // INT: int64, FLOAT: float64, string tokens: the unescaped text
	text  string // string tokens: the raw text between the delimiters
	tpos  Pos    // string tokens: the position of text
	first bool   // the first token on its line
	bad   bool   // an unterminated string, or the end of one forced by a newline
}

// interp is an open ${...} of a string being scanned.
type interp struct {
	braces int // '{' opened inside the interpolation and not yet closed
	quote  Pos // the string's opening quote
	dollar Pos // the '${'
}

// scanner turns source text into tokens. It inserts NEWLINE tokens the way Go inserts
// semicolons (see needsNewline) and reports errors through errh; after an error it still
// returns a token (ILLEGAL for a character it cannot use), so that scanning goes on.
type scanner struct {
	src      []byte
	off      int   // reading offset
	line     int32 // current line
	lineOff  int   // offset of the current line's first byte
	insertNL bool  // a newline here ends a statement
	interps  []interp
	lastLine int32 // line of the last token returned
	nlErrOff int   // offset where an unterminated interpolation was last reported
	errh     func(pos Pos, msg string)
	textBuf  []byte
}

func newScanner(src []byte, errh func(Pos, string)) *scanner {
	s := &scanner{src: src, line: 1, errh: errh, nlErrOff: -1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3 // byte order mark
		s.lineOff = 3
	}
	return s
}

func (s *scanner) pos(off int) Pos {
	return Pos{Line: s.line, Col: int32(off - s.lineOff + 1)}
}

func (s *scanner) errorf(pos Pos, format string, args ...any) {
	s.errh(pos, fmt.Sprintf(format, args...))
}

// needsNewline reports whether a newline after tok ends the statement.
func needsNewline(tok Token) bool {
	switch tok {
	case IDENT, INT, FLOAT, STRING, STRING_TAIL, RPAREN, RBRACK, RBRACE,
		BREAK, CONTINUE, RETURN, TRUE, FALSE, NIL, ILLEGAL:
		return true
	}
	return false
}

// scan returns the next token.
func (s *scanner) scan() token {
	t := s.scan1()
	t.first = t.pos.Line != s.lastLine
	s.lastLine = t.pos.Line
	if t.tok != NEWLINE && t.tok != EOF {
		s.insertNL = needsNewline(t.tok)
	}
	return t
}

func (s *scanner) scan1() token {
	for {
		// Skip white space, comments and newlines that do not end a statement.
		for s.off < len(s.src) {
			c := s.src[s.off]
			if c == ' ' || c == '\t' || c == '\r' {
				s.off++
				continue
			}
			if c == '\n' && !s.insertNL && len(s.interps) == 0 {
				s.off++
				s.line++
				s.lineOff = s.off
				continue
			}
			if c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/' {
				for s.off < len(s.src) && s.src[s.off] != '\n' {
					s.off++
				}
				continue
			}
			break
		}
		start := s.off
		pos := s.pos(start)
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			if len(s.interps) > 0 {
				// A string and its interpolations must end on the line they start on.
				in := s.interps[len(s.interps)-1]
				s.interps = s.interps[:len(s.interps)-1]
				if s.nlErrOff != start {
					s.nlErrOff = start
					found := "newline"
					if s.off >= len(s.src) {
						found = "end of file"
					}
					s.errorf(pos, "expected '}' to close '${' opened at %s, found %s", in.dollar, found)
				}
				return token{tok: STRING_TAIL, pos: pos, val: "", tpos: pos, bad: true}
			}
			if s.insertNL {
				s.insertNL = false
				if s.off < len(s.src) {
					s.off++
					s.line++
					s.lineOff = s.off
					return token{tok: NEWLINE, pos: pos, lit: "\n"}
				}
				return token{tok: NEWLINE, pos: pos}
			}
			return token{tok: EOF, pos: pos}
		}

		c := s.src[s.off]
		switch {
		case isLetter(c):
			s.off++
			for s.off < len(s.src) && (isLetter(s.src[s.off]) || isDigit(s.src[s.off])) {
				s.off++
			}
			if s.off < len(s.src) && s.src[s.off] >= utf8.RuneSelf {
				s.identRest()
			}
			lit := string(s.src[start:s.off])
			if kw, ok := Keywords[lit]; ok {
				return token{tok: kw, pos: pos, lit: lit}
			}
			return token{tok: IDENT, pos: pos, lit: lit}
		case isDigit(c):
			return s.number(start, pos)
		case c == '"':
			s.off++
			return s.stringText(start, pos, pos, true)
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(s.src[s.off:])
			if unicode.IsLetter(r) {
				s.identRest()
				return token{tok: IDENT, pos: pos, lit: string(s.src[start:s.off])}
			}
			s.off += size
			if r == utf8.RuneError && size == 1 {
				s.errorf(pos, "invalid UTF-8 encoding")
			} else {
				s.errorf(pos, "invalid character %U %q", r, r)
			}
			return token{tok: ILLEGAL, pos: pos, lit: string(s.src[start:s.off])}
		}

		s.off++
		tok := ILLEGAL
		switch c {
		case '+':
			tok = s.choose('=', PLUS_EQ, PLUS)
		case '-':
			tok = s.choose('=', MINUS_EQ, MINUS)
		case '*':
			tok = s.choose('=', STAR_EQ, STAR)
		case '/':
			tok = s.choose('=', SLASH_EQ, SLASH)
		case '%':
			tok = s.choose('=', PERCENT_EQ, PERCENT)
		case '=':
			tok = s.choose('=', EQL, EQ)
		case '<':
			tok = s.choose('=', LE, LT)
		case '>':
			tok = s.choose('=', GE, GT)
		case '!':
			tok = s.choose('=', NEQ, ILLEGAL)
			if tok == ILLEGAL {
				s.errorf(pos, "invalid character '!' (use 'not')")
			}
		case '(':
			tok = LPAREN
		case ')':
			tok = RPAREN
		case '[':
			tok = LBRACK
		case ']':
			tok = RBRACK
		case '{':
			tok = LBRACE
			if n := len(s.interps); n > 0 {
				s.interps[n-1].braces++
			}
		case '}':
			tok = RBRACE
			if n := len(s.interps); n > 0 {
				in := &s.interps[n-1]
				if in.braces == 0 {
					s.interps = s.interps[:n-1]
					return s.stringText(start, pos, in.quote, false)
				}
				in.braces--
			}
		case ',':
			tok = COMMA
		case '.':
			tok = DOT
		case ':':
			tok = COLON
		case ';':
			tok = SEMICOLON
		case '&', '|':
			if s.off < len(s.src) && s.src[s.off] == c {
				s.off++
				word := "and"
				if c == '|' {
					word = "or"
				}
				s.errorf(pos, "invalid operator %s (use '%s')", s.src[start:s.off], word)
			} else {
				s.errorf(pos, "invalid character %q", c)
			}
		case '\'':
			s.errorf(pos, "invalid character %q (strings are written in double quotes)", c)
		default:
			s.errorf(pos, "invalid character %q", c)
		}
		return token{tok: tok, pos: pos, lit: string(s.src[start:s.off])}
	}
}

func (s *scanner) choose(next byte, yes, no Token) Token {
	if s.off < len(s.src) && s.src[s.off] == next {
		s.off++
		return yes
	}
	return no
}

// identRest scans the rest of an identifier that may contain non-ASCII letters.
func (s *scanner) identRest() {
	for s.off < len(s.src) {
		c := s.src[s.off]
		if isLetter(c) || isDigit(c) {
			s.off++
			continue
		}
		if c < utf8.RuneSelf {
			return
		}
		r, size := utf8.DecodeRune(s.src[s.off:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return
		}
		s.off += size
	}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isHex(c byte) bool    { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// number scans a number literal. Its extent takes in every letter, digit and '_' that
// follows, so that 0x, 12ab and 1_ are each one invalid literal.
func (s *scanner) number(start int, pos Pos) token {
	hex := s.src[s.off] == '0' && s.off+1 < len(s.src) && (s.src[s.off+1] == 'x' || s.src[s.off+1] == 'X')
	if hex {
		s.off += 2
	}
	dot, exp := false, false
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case !hex && !exp && (c == 'e' || c == 'E'):
			exp = true
			s.off++
			if s.off+1 < len(s.src) && (s.src[s.off] == '+' || s.src[s.off] == '-') && isDigit(s.src[s.off+1]) {
				s.off++
			}
			continue
		case isLetter(c) || isDigit(c):
			s.off++
			continue
		case c == '.' && !hex && !dot && !exp && s.off+1 < len(s.src) && isDigit(s.src[s.off+1]):
			dot = true
			s.off++
			continue
		}
		break
	}
	lit := string(s.src[start:s.off])
	tok, val := s.numberValue(lit, pos, hex)
	return token{tok: tok, pos: pos, lit: lit, val: val}
}

// digits scans d+(_d+)* from lit[i:] and returns the end; ok is false if there is no digit.
func digits(lit string, i int, isD func(byte) bool) (int, bool) {
	if i >= len(lit) || !isD(lit[i]) {
		return i, false
	}
	for i < len(lit) {
		if isD(lit[i]) {
			i++
		} else if lit[i] == '_' && i+1 < len(lit) && isD(lit[i+1]) {
			i++
		} else {
			break
		}
	}
	return i, true
}

func (s *scanner) numberValue(lit string, pos Pos, hex bool) (Token, any) {
	clean := strings.ReplaceAll(lit, "_", "")
	if hex {
		i := 2
		if i < len(lit) && lit[i] == '_' {
			i++ // 0x_1f, as in Go
		}
		end, ok := digits(lit, i, isHex)
		if !ok || end != len(lit) {
			s.errorf(pos, "invalid number literal %s", lit)
			return INT, int64(0)
		}
		u, err := strconv.ParseUint(clean[2:], 16, 64)
		if err != nil {
			s.errorf(pos, "integer literal %s does not fit in 64 bits", lit)
			return INT, int64(0)
		}
		return INT, int64(u) // 0x8000000000000000 and up wrap to negative ints
	}
	end, ok := digits(lit, 0, isDigit)
	float := false
	if ok && end < len(lit) && lit[end] == '.' {
		end, ok = digits(lit, end+1, isDigit)
		float = true
	}
	if ok && end < len(lit) && (lit[end] == 'e' || lit[end] == 'E') {
		end++
		if end < len(lit) && (lit[end] == '+' || lit[end] == '-') {
			end++
		}
		end, ok = digits(lit, end, isDigit)
		float = true
	}
	if !ok || end != len(lit) {
		s.errorf(pos, "invalid number literal %s", lit)
		if float {
			return FLOAT, float64(0)
		}
		return INT, int64(0)
	}
	if float {
		f, err := strconv.ParseFloat(clean, 64)
		if err != nil && errors.Is(err, strconv.ErrRange) && (f > 1 || f < -1) {
			s.errorf(pos, "float literal %s is out of range", lit)
			return FLOAT, float64(0)
		}
		return FLOAT, f
	}
	if len(lit) > 1 && lit[0] == '0' {
		s.errorf(pos, "invalid number literal %s (leading zeros are not allowed)", lit)
		return INT, int64(0)
	}
	n, err := strconv.ParseInt(clean, 10, 64)
	if err != nil {
		s.errorf(pos, "integer literal %s overflows int64", lit)
		return INT, int64(0)
	}
	return INT, n
}

// stringText scans the text of a string from s.off, just after its opening quote
// (head) or after the '}' that closes an interpolation, up to and including the closing
// quote or the next '${'. start and pos are those of the token; quote is the position of
// the string's opening quote.
func (s *scanner) stringText(start int, pos, quote Pos, head bool) token {
	textStart := s.off
	tpos := s.pos(textStart)
	buf := s.textBuf[:0]
	simple := true // no escape so far: the value is the raw text
	var tok Token
	var textEnd int
	bad := false
	for {
		if s.off >= len(s.src) || s.src[s.off] == '\n' {
			if n := len(s.interps); n > 0 && head {
				s.errorf(quote, "unterminated string (is a '}' missing to close the '${' at %s?)", s.interps[n-1].dollar)
			} else {
				s.errorf(quote, "unterminated string")
			}
			bad = true
			textEnd = s.off
			tok = STRING_TAIL
			if head {
				tok = STRING
			}
			break
		}
		c := s.src[s.off]
		if c == '"' {
			textEnd = s.off
			s.off++
			tok = STRING_TAIL
			if head {
				tok = STRING
			}
			break
		}
		if c == '$' && s.off+1 < len(s.src) && s.src[s.off+1] == '{' {
			textEnd = s.off
			s.interps = append(s.interps, interp{quote: quote, dollar: s.pos(s.off)})
			s.off += 2
			tok = STRING_MID
			if head {
				tok = STRING_HEAD
			}
			break
		}
		if c == '\\' {
			if simple {
				buf = append(buf, s.src[textStart:s.off]...)
				simple = false
			}
			buf = s.escape(buf)
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(s.src[s.off:])
			if r == utf8.RuneError && size == 1 {
				s.errorf(s.pos(s.off), "invalid UTF-8 encoding in string")
			}
			if !simple {
				buf = append(buf, s.src[s.off:s.off+size]...)
			}
			s.off += size
			continue
		}
		if !simple {
			buf = append(buf, c)
		}
		s.off++
	}
	text := string(s.src[textStart:textEnd])
	val := text
	if !simple {
		val = string(buf)
	}
	s.textBuf = buf
	return token{tok: tok, pos: pos, lit: string(s.src[start:s.off]), val: val, text: text, tpos: tpos, bad: bad}
}

// escape scans the escape sequence at s.off (a backslash) and appends its value to buf.
func (s *scanner) escape(buf []byte) []byte {
	start := s.off
	pos := s.pos(start)
	s.off++ // the backslash
	if s.off >= len(s.src) || s.src[s.off] == '\n' {
		return buf // reported as an unterminated string
	}
	c := s.src[s.off]
	s.off++
	switch c {
	case 'n':
		return append(buf, '\n')
	case 't':
		return append(buf, '\t')
	case 'r':
		return append(buf, '\r')
	case '"', '\\', '$':
		return append(buf, c)
	case 'u':
		if s.off >= len(s.src) || s.src[s.off] != '{' {
			s.errorf(pos, "invalid escape \\u (write \\u{1F600})")
			return buf
		}
		s.off++
		ds := s.off
		for s.off < len(s.src) && isHex(s.src[s.off]) && s.off-ds < 8 {
			s.off++
		}
		hexDigits := string(s.src[ds:s.off])
		closed := s.off < len(s.src) && s.src[s.off] == '}'
		if closed {
			s.off++
		}
		if !closed || hexDigits == "" || len(hexDigits) > 6 {
			s.errorf(pos, "invalid unicode escape %s", s.src[start:s.off])
			return buf
		}
		r, _ := strconv.ParseUint(hexDigits, 16, 32)
		if r > unicode.MaxRune || 0xD800 <= r && r < 0xE000 {
			s.errorf(pos, "invalid unicode escape %s: not a valid code point", s.src[start:s.off])
			return buf
		}
		return utf8.AppendRune(buf, rune(r))
	}
	if c >= utf8.RuneSelf {
		_, size := utf8.DecodeRune(s.src[s.off-1:])
		s.off += size - 1
	}
	s.errorf(pos, "invalid escape %s", s.src[start:s.off])
	return buf
}

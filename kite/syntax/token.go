// Package syntax is Kite's front end: the scanner, the parser and the syntax tree.
package syntax

import "fmt"

// A Token is a lexical token kind.
type Token int8

const (
	ILLEGAL Token = iota
	EOF
	NEWLINE // a statement-ending newline (or ';')

	IDENT
	INT    // 12, 0x1f, 1_000
	FLOAT  // 3.5, 1e9
	STRING // a string literal without interpolation; see STRING_HEAD

	// Keywords.
	LET
	CONST
	FN
	IF
	ELSE
	WHILE
	FOR
	IN
	BREAK
	CONTINUE
	RETURN
	TRUE
	FALSE
	NIL
	AND
	OR
	NOT

	// Operators and punctuation.
	PLUS    // +
	MINUS   // -
	STAR    // *
	SLASH   // /
	PERCENT // %
	EQ      // =
	PLUS_EQ
	MINUS_EQ
	STAR_EQ
	SLASH_EQ
	PERCENT_EQ
	EQL // ==
	NEQ // !=
	LT
	LE
	GT
	GE
	LPAREN
	RPAREN
	LBRACK
	RBRACK
	LBRACE
	RBRACE
	COMMA
	DOT
	COLON
	SEMICOLON

	// An interpolated string "a${x}b${y}c" scans as STRING_HEAD `"a${`, the tokens of x,
	// STRING_MID `}b${`, the tokens of y, STRING_TAIL `}c"`. (Added after the others so
	// that the values of the tokens above do not change.)
	STRING_HEAD
	STRING_MID
	STRING_TAIL
)

var tokenNames = [...]string{
	ILLEGAL: "illegal token", EOF: "end of file", NEWLINE: "newline",
	IDENT: "identifier", INT: "int literal", FLOAT: "float literal", STRING: "string literal",
	LET: "let", CONST: "const", FN: "fn", IF: "if", ELSE: "else", WHILE: "while", FOR: "for",
	IN: "in", BREAK: "break", CONTINUE: "continue", RETURN: "return", TRUE: "true",
	FALSE: "false", NIL: "nil", AND: "and", OR: "or", NOT: "not",
	PLUS: "+", MINUS: "-", STAR: "*", SLASH: "/", PERCENT: "%", EQ: "=",
	PLUS_EQ: "+=", MINUS_EQ: "-=", STAR_EQ: "*=", SLASH_EQ: "/=", PERCENT_EQ: "%=",
	EQL: "==", NEQ: "!=", LT: "<", LE: "<=", GT: ">", GE: ">=",
	LPAREN: "(", RPAREN: ")", LBRACK: "[", RBRACK: "]", LBRACE: "{", RBRACE: "}",
	COMMA: ",", DOT: ".", COLON: ":", SEMICOLON: ";",
	STRING_HEAD: "string literal", STRING_MID: "}", STRING_TAIL: "}",
}

func (t Token) String() string {
	if int(t) < len(tokenNames) && tokenNames[t] != "" {
		return tokenNames[t]
	}
	return fmt.Sprintf("token(%d)", int(t))
}

// Keywords maps each keyword's spelling to its token.
var Keywords = map[string]Token{
	"let": LET, "const": CONST, "fn": FN, "if": IF, "else": ELSE, "while": WHILE,
	"for": FOR, "in": IN, "break": BREAK, "continue": CONTINUE, "return": RETURN,
	"true": TRUE, "false": FALSE, "nil": NIL, "and": AND, "or": OR, "not": NOT,
}

// Pos is a position in a source file: 1-based line and column (in bytes).
// The zero Pos means "no position".
type Pos struct {
	Line, Col int32
}

func (p Pos) IsValid() bool { return p.Line > 0 }

func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// An Error is one problem found in a source file.
type Error struct {
	File string
	Pos  Pos
	Msg  string
}

// Error formats the error as the language doc prescribes: "file:line:col: error: message".
func (e *Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: error: %s", e.File, e.Pos.Line, e.Pos.Col, e.Msg)
}

// ErrorList is every error found in one file, in source order.
type ErrorList []*Error

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	s := l[0].Error()
	for _, e := range l[1:] {
		s += "\n" + e.Error()
	}
	return s
}

package gdbremote

import (
	"fmt"
	"strings"
)

// nameEnd is the index after the name that goes on at s[i], C++'s scopes and all
// (geo::Shape::count).
func nameEnd(s string, i int) int {
	for i < len(s) {
		switch {
		case isIdentByte(s[i]):
			i++
		case strings.HasPrefix(s[i:], "::") && i+2 < len(s) && isIdent(s[i+2:i+3]):
			i += 2
		default:
			return i
		}
	}
	return i
}

// lexArith splits a C expression into numbers, names, $registers, character literals and
// operators.
func lexArith(s string) ([]string, error) {
	toks, _, err := lexArithAt(s)
	return toks, err
}

// lexArithAt is lexArith with where each token starts in s.
func lexArithAt(s string) (toks []string, at []int, err error) {
	for i := 0; i < len(s); {
		c := s[i]
		if c != ' ' && c != '\t' {
			at = append(at, i)
		}
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\'' || c == '"' || strings.ContainsRune("LuU", rune(c)) && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"'):
			if c != '\'' && c != '"' { // a wide literal: L'a', u"ab"
				c = s[i+1]
				i++
			}
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, nil, fmt.Errorf("unterminated %s literal in %q", map[byte]string{'\'': "character", '"': "string"}[c], s)
			}
			j++
			if c == '\'' && strings.HasPrefix(s[j:], "::") && j+2 < len(s) && isIdent(s[j+2:j+3]) { // 'file.c'::name
				j = nameEnd(s, j+2)
			}
			toks = append(toks, s[at[len(at)-1]:j])
			i = j
		case c == '$' || isIdent(s[i:i+1]):
			j := nameEnd(s, i+1)
			toks = append(toks, s[i:j])
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i + 1
			for j < len(s) && (s[j] == '.' || isIdentByte(s[j]) ||
				(s[j] == '+' || s[j] == '-') && (s[j-1] == 'e' || s[j-1] == 'E') && !strings.HasPrefix(strings.ToLower(s[i:j]), "0x")) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			n := 1
			for _, op := range []string{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->", ".*", "->*"} {
				if strings.HasPrefix(s[i:], op) {
					n = len(op)
				}
			}
			if n == 1 && c == '=' { // an assignment gdb's parser would read the value of
				return nil, nil, syntaxError(strings.TrimSpace(s[i+1:]))
			}
			if !strings.ContainsRune("+-*/%<>=!&|^~()[].@,?:", rune(c)) {
				return nil, nil, fmt.Errorf("Invalid character '%c' in expression.", c) // gdb's words
			}
			toks = append(toks, s[i:i+n])
			i += n
		}
	}
	return toks, at, nil
}

// syntaxError is gdb's error for an expression it cannot parse, naming the text from where
// it stopped making sense.
func syntaxError(near string) error {
	return fmt.Errorf("A syntax error in expression, near `%s'.", near)
}

// syntaxError is the parser's syntax error at token pos (at the end: near nothing).
func (p *arithParser) syntaxError(pos int) error {
	if pos < len(p.at) {
		return syntaxError(p.src[p.at[pos]:])
	}
	return syntaxError("")
}

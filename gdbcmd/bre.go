package gdbcmd

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
)

// compileBRE compiles a regular expression as gdb reads one in info functions, info types
// and rbreak: POSIX basic syntax with GNU's extensions, in which ( ) | { } + ? are
// themselves and \( \) \| \{ \} \+ \? are the operators, and a * that opens the
// expression or a group is itself. It is rewritten into Go's syntax.
func compileBRE(expr string) (*regexp.Regexp, error) {
	var b strings.Builder
	atStart := true // where a * has nothing to repeat
	for i := 0; i < len(expr); i++ {
		c := expr[i]
		switch {
		case c == '\\' && i+1 < len(expr):
			i++
			switch n := expr[i]; n {
			case '(', ')', '|', '{', '}', '+', '?':
				b.WriteByte(n)
				atStart = n == '(' || n == '|'
				continue
			case '<', '>':
				b.WriteString(`\b`)
			default:
				b.WriteByte('\\')
				b.WriteByte(n)
			}
		case c == '[':
			j := bracketEnd(expr, i)
			if j < 0 {
				return nil, errors.New("Unmatched [ or [^") // gdb's words
			}
			b.WriteString(strings.ReplaceAll(expr[i:j+1], `\`, `\\`)) // a backslash is itself in a bracket
			i = j
		case c == '*' && atStart:
			b.WriteString(`\*`)
		case strings.IndexByte("()|{}+?", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		atStart = c == '^' && b.Len() == 1
	}
	re, err := regexp.Compile(b.String())
	var perr *syntax.Error
	if errors.As(err, &perr) && (perr.Code == syntax.ErrMissingParen || perr.Code == syntax.ErrUnexpectedParen) {
		return nil, errors.New(`Unmatched ( or \(`) // gdb's (glibc's) words
	}
	return re, err
}

// bracketEnd is the index of the ] that closes the bracket expression opening at expr[i],
// or -1: a ] right after [ or [^ is a member, and so are the classes [:alpha:] inside.
func bracketEnd(expr string, i int) int {
	j := i + 1
	if j < len(expr) && expr[j] == '^' {
		j++
	}
	if j < len(expr) && expr[j] == ']' {
		j++
	}
	for ; j < len(expr); j++ {
		switch {
		case expr[j] == '[' && j+1 < len(expr) && (expr[j+1] == ':' || expr[j+1] == '.' || expr[j+1] == '='):
			end := strings.Index(expr[j+2:], string(expr[j+1])+"]")
			if end < 0 {
				return -1
			}
			j += 2 + end + 1
		case expr[j] == ']':
			return j
		}
	}
	return -1
}

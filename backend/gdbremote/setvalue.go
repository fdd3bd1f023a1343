package gdbremote

// The value of `set var X = VALUE`: a C literal, a variable, or integer and float
// arithmetic over them (i + 1, n * 2 - 1, -x, (a + b) / 2, 'a' + 1), as gdb allows.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// num is an integer or a float operand.
type num struct {
	i       int64
	f       float64
	isFloat bool
}

func (n num) text() string {
	if n.isFloat {
		return strconv.FormatFloat(n.f, 'g', -1, 64)
	}
	return strconv.FormatInt(n.i, 10)
}

func (n num) float() float64 {
	if n.isFloat {
		return n.f
	}
	return float64(n.i)
}

// arith evaluates arithmetic over operands; lookup reads the value text of an operand that
// is not a literal (a variable, a member, a register: the evaluator in a frame).
type arith struct {
	lookup func(string) (string, error)
	s      string
	pos    int
}

// valueText turns a value expression into a literal Store can encode: the value of a lone
// operand, or the result of its arithmetic. A lone operand that is not one answers
// errNotArith.
func (t *Target) valueText(fr *elfsym.Frame, expr string) (string, error) {
	ev := &evaluator{t: t, fr: fr}
	if v, err := ev.value(expr); err == nil {
		if f := strings.Fields(v.Text); len(f) > 0 {
			return f[0], nil
		}
	}
	lookup := func(tok string) (string, error) {
		v, err := ev.value(tok)
		return v.Text, err
	}
	return arithText(expr, lookup)
}

// arithText computes expr with lookup for its variables.
func arithText(expr string, lookup func(string) (string, error)) (string, error) {
	a := &arith{lookup: lookup, s: expr}
	n, err := a.sum()
	if err == nil && a.skip() < len(a.s) {
		err = fmt.Errorf("unexpected %q in %q", a.s[a.pos:], expr)
	}
	if err != nil && !hasOperator(expr) {
		return "", errNotArith
	}
	if err != nil {
		return "", err
	}
	return n.text(), nil
}

var errNotArith = fmt.Errorf("not arithmetic")

// hasOperator reports whether expr has an arithmetic operator outside char literals (not
// the - of ->, a leading - of a number or a leading * of a dereference).
func hasOperator(expr string) bool {
	s := strings.TrimSpace(expr)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\'':
			i = quoteEnd(s, i) - 1
		case strings.IndexByte("+/%()", c) >= 0, c == '*' && i > 0:
			return true
		case c == '-':
			if i+1 < len(s) && s[i+1] == '>' {
				i++
			} else if i > 0 || i+1 < len(s) && (s[i+1] < '0' || s[i+1] > '9') {
				return true
			}
		}
	}
	return false
}

func (a *arith) skip() int {
	for a.pos < len(a.s) && a.s[a.pos] == ' ' {
		a.pos++
	}
	return a.pos
}

func (a *arith) sum() (num, error) {
	l, err := a.product()
	for err == nil && a.skip() < len(a.s) && (a.s[a.pos] == '+' || a.s[a.pos] == '-') {
		op := a.s[a.pos]
		a.pos++
		var r num
		if r, err = a.product(); err == nil {
			l = combine(l, r, op)
		}
	}
	return l, err
}

func (a *arith) product() (num, error) {
	l, err := a.unary()
	for err == nil && a.skip() < len(a.s) && strings.IndexByte("*/%", a.s[a.pos]) >= 0 {
		op := a.s[a.pos]
		a.pos++
		var r num
		if r, err = a.unary(); err != nil {
			break
		}
		if (op == '/' || op == '%') && !r.isFloat && r.i == 0 || op == '%' && (l.isFloat || r.isFloat) {
			return l, fmt.Errorf("division by zero or %% of a float in %q", a.s)
		}
		l = combine(l, r, op)
	}
	return l, err
}

func combine(l, r num, op byte) num {
	if l.isFloat || r.isFloat {
		x, y := l.float(), r.float()
		switch op {
		case '+':
			return num{f: x + y, isFloat: true}
		case '-':
			return num{f: x - y, isFloat: true}
		case '*':
			return num{f: x * y, isFloat: true}
		}
		return num{f: x / y, isFloat: true}
	}
	switch op {
	case '+':
		return num{i: l.i + r.i}
	case '-':
		return num{i: l.i - r.i}
	case '*':
		return num{i: l.i * r.i}
	case '/':
		return num{i: l.i / r.i}
	}
	return num{i: l.i % r.i}
}

func (a *arith) unary() (num, error) {
	if a.skip() >= len(a.s) {
		return num{}, fmt.Errorf("a value is missing in %q", a.s)
	}
	switch a.s[a.pos] {
	case '-':
		a.pos++
		n, err := a.unary()
		n.i, n.f = -n.i, -n.f
		return n, err
	case '(':
		a.pos++
		n, err := a.sum()
		if err == nil && (a.skip() >= len(a.s) || a.s[a.pos] != ')') {
			err = fmt.Errorf("missing ) in %q", a.s)
		}
		a.pos++
		return n, err
	}
	start := a.pos
	if a.s[a.pos] == '*' { // a dereference
		a.pos++
	}
	for a.pos < len(a.s) {
		c := a.s[a.pos]
		if c == '\'' {
			a.pos = quoteEnd(a.s, a.pos)
			continue
		}
		if c == '-' && a.pos+1 < len(a.s) && a.s[a.pos+1] == '>' {
			a.pos += 2
			continue
		}
		if c == ' ' || strings.IndexByte("+-*/%()", c) >= 0 {
			break
		}
		a.pos++
	}
	return a.operand(a.s[start:a.pos])
}

func quoteEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != '\'' {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(s))
}

// operand reads a number, a char literal or what the evaluator makes of a variable.
func (a *arith) operand(tok string) (num, error) {
	if tok == "" {
		return num{}, fmt.Errorf("a value is missing in %q", a.s)
	}
	text := tok
	if strings.HasPrefix(tok, "'") {
		c, ok := elfsym.CharLiteral(tok)
		if !ok {
			return num{}, fmt.Errorf("%s is not a character", tok)
		}
		return num{i: int64(c)}, nil
	}
	if _, err := strconv.ParseFloat(tok, 64); err != nil {
		if _, ierr := strconv.ParseInt(tok, 0, 64); ierr != nil {
			v, err := a.lookup(tok)
			if err != nil {
				return num{}, err
			}
			if f := strings.Fields(v); len(f) > 0 {
				text = f[0]
			}
		}
	}
	switch text {
	case "true":
		return num{i: 1}, nil
	case "false":
		return num{}, nil
	}
	if i, err := strconv.ParseInt(text, 0, 64); err == nil {
		return num{i: i}, nil
	}
	if u, err := strconv.ParseUint(text, 0, 64); err == nil {
		return num{i: int64(u)}, nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return num{f: f, isFloat: true}, nil
	}
	return num{}, fmt.Errorf("%s is not a number", tok)
}

package gdbremote

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// C arithmetic over the program's values, for print, watch expressions and hovers: what
// gdb users type (x + 1, a->x - b->x, arr[i] * 2, n % 3 == 0, ~mask & 0xff, -f / 2). The
// operands are what evaluator.value reads (variables, fields, elements, *p, &v, $registers,
// numbers); the arithmetic is C's on 64-bit integers and doubles, and on pointers by the
// size of what they point to (p[i], p + n, p - q). Casts to scalar and pointer types,
// sizeof and gdb's v@n (n objects from where v lives) are read as gdb reads them.

// arithOperand is a value during evaluation: a piece of the program (obj), or a number.
type arithOperand struct {
	obj   *elfsym.Value // a variable or a part of one, until arithmetic makes a number of it
	kind  string        // "int", "uint" or "float" once a number
	i     int64
	u     uint64
	f     float64
	isPtr bool // a number taken from a pointer: no arithmetic on it
}

// arithParser is a recursive-descent parser that evaluates as it goes; skip (the right side
// of a decided && or ||) parses without reading the program.
type arithParser struct {
	e    *evaluator
	toks []string
	pos  int
	skip bool
}

// runArith parses expr whole and evaluates it (skip: parses only, reading nothing).
func runArith(e *evaluator, expr string, skip bool) (arithOperand, *arithParser, error) {
	toks, err := lexArith(expr)
	if err != nil {
		return arithOperand{}, nil, err
	}
	p := &arithParser{e: e, toks: toks, skip: skip}
	v, err := p.binary(0)
	if err == nil && p.pos != len(p.toks) {
		err = fmt.Errorf("unexpected %q in %q", p.toks[p.pos], expr)
	}
	return v, p, err
}

// arith evaluates expr as a C expression.
func (e *evaluator) arith(expr string) (elfsym.Value, error) {
	v, _, err := runArith(e, expr, false)
	if err != nil {
		return elfsym.Value{}, err
	}
	if v.obj != nil {
		out := *v.obj
		out.Name = expr
		return out, nil
	}
	return v.value(expr), nil
}

// checkArith parses expr as a C expression without reading the program: nil when it is one.
func checkArith(expr string) error {
	_, _, err := runArith(nil, expr, true)
	return err
}

// truth evaluates expr as a C condition: true when it is not zero.
func (e *evaluator) truth(expr string) (bool, error) {
	v, p, err := runArith(e, expr, false)
	if err != nil {
		return false, err
	}
	return p.truth(v)
}

// value formats a number as the evaluator's values are.
func (v arithOperand) value(name string) elfsym.Value {
	switch v.kind {
	case "float":
		return elfsym.Value{Name: name, Type: "double", Kind: "float", Text: strconv.FormatFloat(v.f, 'g', 17, 64)}
	case "uint":
		return elfsym.Value{Name: name, Type: "unsigned long", Kind: "uint", Text: strconv.FormatUint(v.u, 10)}
	}
	return elfsym.Value{Name: name, Type: "long", Kind: "int", Text: strconv.FormatInt(v.i, 10)}
}

// lexArith splits a C expression into numbers, names, $registers, character literals and
// operators.
func lexArith(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '\'':
			j := i + 1
			for j < len(s) && s[j] != '\'' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated character literal in %q", s)
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		case c == '$' || isIdent(s[i:i+1]):
			j := i + 1
			for j < len(s) && isIdentByte(s[j]) {
				j++
			}
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
			for _, op := range []string{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "->"} {
				if strings.HasPrefix(s[i:], op) {
					n = 2
				}
			}
			if !strings.ContainsRune("+-*/%<>=!&|^~()[].@", rune(c)) || n == 1 && c == '=' {
				return nil, fmt.Errorf("unexpected %q in %q", c, s)
			}
			toks = append(toks, s[i:i+n])
			i += n
		}
	}
	return toks, nil
}

func (p *arithParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

// binaryPrec is C's precedence of the binary operators, loosest first.
var binaryPrec = map[string]int{
	"||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
	"<": 7, "<=": 7, ">": 7, ">=": 7, "<<": 8, ">>": 8, "@": 9, "+": 10, "-": 10, "*": 11, "/": 11, "%": 11,
}

// binary parses operators of precedence above min, left to right.
func (p *arithParser) binary(min int) (arithOperand, error) {
	l, err := p.unary()
	for err == nil {
		op := p.peek()
		prec, ok := binaryPrec[op]
		if !ok || prec <= min {
			break
		}
		p.pos++
		skip := p.skip
		if op == "&&" || op == "||" {
			var lt bool
			if lt, err = p.truth(l); err != nil {
				break
			}
			p.skip = skip || op == "&&" && !lt || op == "||" && lt // decided: the right side is not read
		}
		var r arithOperand
		r, err = p.binary(prec)
		p.skip = skip
		if err == nil {
			l, err = p.apply(op, l, r)
		}
	}
	return l, err
}

// unary parses prefix operators (casts and sizeof among them), a primary and its postfix
// operators.
func (p *arithParser) unary() (arithOperand, error) {
	switch op := p.peek(); op {
	case "-", "+", "!", "~", "*", "&":
		p.pos++
		v, err := p.unary()
		if err != nil || p.skip {
			return v, err
		}
		switch op {
		case "*":
			return p.deref(v)
		case "&":
			if v.obj == nil {
				return v, errors.New("attempt to take address of value not located in memory")
			}
			a, err := p.e.t.sym.AddressOf(*v.obj, cachedMem{p.e.t})
			return arithOperand{obj: &a}, err
		}
		return p.apply(op, arithOperand{kind: "int"}, v)
	case "sizeof":
		p.pos++
		return p.sizeof()
	case "(":
		if name, ok := p.typeName(); ok {
			v, err := p.unary()
			if err != nil || p.skip {
				return v, err
			}
			return p.cast(name, v)
		}
	}
	v, err := p.primary()
	for err == nil {
		switch p.peek() {
		case ".", "->":
			arrow := p.peek() == "->"
			p.pos++
			field := p.peek()
			if field == "" || !isIdent(field) {
				return v, fmt.Errorf("a field name must follow %q", p.toks[p.pos-1])
			}
			p.pos++
			if arrow {
				if v, err = p.child(v, "*"); err != nil {
					return v, err
				}
			}
			v, err = p.child(v, field)
		case "[":
			p.pos++
			var idx arithOperand
			if idx, err = p.binary(0); err != nil {
				return v, err
			}
			if p.peek() != "]" {
				return v, errors.New("missing ]")
			}
			p.pos++
			v, err = p.index(v, idx)
		default:
			return v, nil
		}
	}
	return v, err
}

// typeName reads "( type )" at a cast or sizeof, when the parenthesis holds a type name;
// otherwise it reads nothing.
func (p *arithParser) typeName() (string, bool) {
	if p.peek() != "(" || p.pos+1 >= len(p.toks) {
		return "", false
	}
	first := p.toks[p.pos+1]
	if !isIdent(first) || !isTypeKeyword(first) && (p.program() == nil || !p.program().IsTypeName(first)) {
		return "", false
	}
	var words []string
	for i := p.pos + 1; i < len(p.toks); i++ {
		switch t := p.toks[i]; {
		case t == ")":
			p.pos = i + 1
			return strings.Join(words, " "), true
		case t == "*" || isIdent(t):
			words = append(words, t)
		default:
			return "", false
		}
	}
	return "", false
}

// program is the program's symbols, nil for an evaluation of constants alone.
func (p *arithParser) program() *elfsym.File {
	if p.e == nil || p.e.t == nil {
		return nil
	}
	return p.e.t.sym
}

// errNoProgram refuses what needs the program's types where there is none.
var errNoProgram = errors.New("no program to read types from")

// isTypeKeyword reports whether a name is one of C's type keywords (all that checkArith,
// which has no program, can tell a cast by; a typedef's name is looked up).
func isTypeKeyword(s string) bool {
	switch s {
	case "char", "short", "int", "long", "unsigned", "signed", "float", "double", "_Bool",
		"struct", "union", "enum", "void", "const", "volatile":
		return true
	}
	return false
}

// cast is (name) v: a scalar or pointer converted as C converts it.
func (p *arithParser) cast(name string, v arithOperand) (arithOperand, error) {
	if p.program() == nil {
		return v, errNoProgram
	}
	t, err := p.e.t.sym.ParseType(name)
	if err != nil {
		return v, err
	}
	n, err := p.number(v)
	if err != nil {
		return v, err
	}
	i := n.i
	if n.kind == "uint" {
		i = int64(n.u)
	}
	c, err := p.e.t.sym.Convert(t, i, n.f, n.kind == "float", cachedMem{p.e.t})
	if err != nil {
		return v, err
	}
	c.Name = "(" + name + ")"
	return arithOperand{obj: &c}, nil
}

// sizeof is C's sizeof of a type in parentheses or of an expression (not evaluated for
// its value: only its type counts), an unsigned long.
func (p *arithParser) sizeof() (arithOperand, error) {
	if name, ok := p.typeName(); ok {
		if p.skip {
			return arithOperand{kind: "uint"}, nil
		}
		if p.program() == nil {
			return arithOperand{}, errNoProgram
		}
		t, err := p.e.t.sym.ParseType(name)
		if err != nil {
			return arithOperand{}, err
		}
		n, err := elfsym.TypeSize(t)
		return arithOperand{kind: "uint", u: uint64(n)}, err
	}
	v, err := p.unary()
	if err != nil || p.skip {
		return v, err
	}
	if v.obj == nil {
		if v.kind == "int" && v.i >= math.MinInt32 && v.i <= math.MaxInt32 {
			return arithOperand{kind: "uint", u: 4}, nil
		}
		return arithOperand{kind: "uint", u: 8}, nil
	}
	n, err := p.e.t.sym.SizeOf(*v.obj)
	return arithOperand{kind: "uint", u: uint64(n)}, err
}

// deref is *v: what a pointer points to (the first element of an array).
func (p *arithParser) deref(v arithOperand) (arithOperand, error) {
	if v.obj != nil && v.obj.Kind == "array" {
		c, err := p.e.t.sym.Element(*v.obj, 0, cachedMem{p.e.t})
		if err == nil {
			c.Name = "*" + v.obj.Name
			return arithOperand{obj: &c}, nil
		}
	}
	if v.obj != nil && v.obj.Kind == "pointer" {
		c, err := p.e.t.sym.Element(*v.obj, 0, cachedMem{p.e.t})
		if err == nil {
			c.Name = "*" + v.obj.Name
			return arithOperand{obj: &c}, nil
		}
	}
	return p.child(v, "*")
}

func isIdent(s string) bool {
	return isIdentByte(s[0]) && (s[0] < '0' || s[0] > '9')
}

// primary parses a parenthesised expression, a number, a character or a name.
func (p *arithParser) primary() (arithOperand, error) {
	t := p.peek()
	if t == "" {
		return arithOperand{}, errors.New("the expression ends early")
	}
	p.pos++
	switch {
	case t == "(":
		v, err := p.binary(0)
		if err == nil && p.peek() != ")" {
			err = errors.New("missing )")
		}
		if err == nil {
			p.pos++
		}
		return v, err
	case t[0] == '\'':
		c, ok := elfsym.CharLiteral(t)
		if !ok {
			return arithOperand{}, fmt.Errorf("bad character literal %s", t)
		}
		return arithOperand{kind: "int", i: int64(c)}, nil
	case t[0] >= '0' && t[0] <= '9' || t[0] == '.':
		return parseNumber(t)
	case t[0] == '$' || isIdent(t):
		if p.skip {
			return arithOperand{kind: "int"}, nil
		}
		v, err := p.e.value(t)
		if err != nil {
			return arithOperand{}, err
		}
		return arithOperand{obj: &v}, nil
	}
	return arithOperand{}, fmt.Errorf("unexpected %q", t)
}

// parseNumber reads a C integer (decimal, 0x hex, 0 octal, 0b binary; u and l suffixes) or
// floating constant (a point or an exponent; an f or l suffix).
func parseNumber(t string) (arithOperand, error) {
	lower := strings.ToLower(t)
	hex := strings.HasPrefix(lower, "0x")
	if strings.ContainsAny(t, "_oO") {
		return arithOperand{}, fmt.Errorf("invalid number %q", t)
	}
	if !hex && strings.ContainsAny(lower, ".e") {
		f, err := strconv.ParseFloat(strings.TrimRight(lower, "fl"), 64)
		if err != nil {
			return arithOperand{}, fmt.Errorf("invalid number %q", t)
		}
		return arithOperand{kind: "float", f: f}, nil
	}
	digits := strings.TrimRight(lower, "ul")
	n, err := strconv.ParseUint(digits, 0, 64) // 0x, 0b and a leading 0 as C reads them
	if err != nil {
		return arithOperand{}, fmt.Errorf("invalid number %q", t)
	}
	if strings.Contains(lower[len(digits):], "u") || n > math.MaxInt64 {
		return arithOperand{kind: "uint", u: n}, nil
	}
	return arithOperand{kind: "int", i: int64(n)}, nil
}

// child follows a field, an element or a pointer ("*") of a piece of the program.
func (p *arithParser) child(v arithOperand, key string) (arithOperand, error) {
	if p.skip {
		return v, nil
	}
	if v.obj == nil {
		if key == "*" {
			return v, errors.New("attempt to take contents of a non-pointer value")
		}
		return v, fmt.Errorf("a number has no field %s", key)
	}
	c, err := child(*v.obj, key)
	if err != nil {
		return v, err
	}
	return arithOperand{obj: &c}, nil
}

// index is v[idx]: an element of an array, or p[0] of a pointer.
func (p *arithParser) index(v, idx arithOperand) (arithOperand, error) {
	if p.skip {
		return v, nil
	}
	n, err := p.number(idx)
	if err != nil {
		return v, err
	}
	if n.kind == "float" {
		return v, errors.New("an array index must be an integer")
	}
	i := n.i
	if n.kind == "uint" {
		i = int64(n.u)
	}
	if v.obj != nil && (v.obj.Kind == "pointer" || v.obj.Kind == "array") {
		if c, err := p.e.t.sym.Element(*v.obj, i, cachedMem{p.e.t}); err == nil || v.obj.Kind == "pointer" {
			return arithOperand{obj: &c}, err
		}
	}
	return p.child(v, "["+strconv.FormatInt(i, 10)+"]")
}

// number makes a number of an operand: an integer, character, boolean, enum, float or
// pointer value of the program.
func (p *arithParser) number(v arithOperand) (arithOperand, error) {
	if v.obj == nil {
		return v, nil
	}
	o := v.obj
	switch o.Kind {
	case "char": // signed or not as printed ("200 '\310'" for an unsigned char)
		if n, err := number(*o); err == nil {
			return arithOperand{kind: "int", i: n}, nil
		}
	case "int", "uint", "bool", "enum", "pointer":
		if len(o.Bytes) == 0 || len(o.Bytes) > 8 {
			break
		}
		u := Uint(o.Bytes, p.e.t.order)
		switch o.Kind {
		case "uint", "bool", "pointer":
			return arithOperand{kind: "uint", u: u, isPtr: o.Kind == "pointer"}, nil
		}
		shift := uint(64 - 8*len(o.Bytes))
		return arithOperand{kind: "int", i: int64(u<<shift) >> shift}, nil
	case "float":
		f, err := strconv.ParseFloat(o.Text, 64)
		if err == nil {
			return arithOperand{kind: "float", f: f}, nil
		}
	}
	return v, fmt.Errorf("%s (%s) is not a number", o.Name, o.Type)
}

// truth is v as a condition.
func (p *arithParser) truth(v arithOperand) (bool, error) {
	if p.skip {
		return false, nil
	}
	n, err := p.number(v)
	return n.nonzero(), err
}

// apply computes l op r with C's usual arithmetic conversions on 64 bits.
func (p *arithParser) apply(op string, l, r arithOperand) (arithOperand, error) {
	if p.skip {
		return arithOperand{kind: "int"}, nil
	}
	if v, ok, err := p.pointerOp(op, l, r); ok {
		return v, err
	}
	var err error
	if l, err = p.number(l); err != nil {
		return l, err
	}
	if r, err = p.number(r); err != nil {
		return r, err
	}
	switch op {
	case "!":
		return bool01(!r.nonzero()), nil
	case "&&":
		return bool01(l.nonzero() && r.nonzero()), nil
	case "||":
		return bool01(l.nonzero() || r.nonzero()), nil
	}
	if (l.isPtr || r.isPtr) && strings.Contains("*/%", op) {
		return l, fmt.Errorf("invalid operands to %s: a pointer", op)
	}
	switch {
	case l.kind == "float" || r.kind == "float":
		a, b := l.float(), r.float()
		if c, ok := compare(op, a, b); ok {
			return bool01(c), nil
		}
		switch op {
		case "+":
			return arithOperand{kind: "float", f: a + b}, nil
		case "-":
			return arithOperand{kind: "float", f: a - b}, nil
		case "*":
			return arithOperand{kind: "float", f: a * b}, nil
		case "/":
			return arithOperand{kind: "float", f: a / b}, nil
		}
		return l, fmt.Errorf("invalid operands to %s: a floating-point value", op)
	case l.kind == "uint" || r.kind == "uint":
		if c, ok := compare(op, l.uint(), r.uint()); ok {
			return bool01(c), nil
		}
		n, err := integer(op, l.uint(), r.uint())
		return arithOperand{kind: "uint", u: n}, err
	}
	if c, ok := compare(op, l.i, r.i); ok {
		return bool01(c), nil
	}
	n, err := integer(op, l.i, r.i)
	return arithOperand{kind: "int", i: n}, err
}

// pointerOp is l op r when it is pointer arithmetic or gdb's @: p + n, n + p, p - n, p - q,
// v@n. ok is false for the other operations.
func (p *arithParser) pointerOp(op string, l, r arithOperand) (arithOperand, bool, error) {
	ptr := func(v arithOperand) bool { return v.obj != nil && (v.obj.Kind == "pointer" || v.obj.Kind == "array") }
	if op != "@" && !ptr(l) && !ptr(r) {
		return l, false, nil
	}
	if op != "@" && (l.obj != nil || r.obj != nil) && p.program() == nil {
		return l, true, errNoProgram
	}
	sym, mem := p.program(), cachedMem{p.e.t}
	for _, v := range []*arithOperand{&l, &r} { // an array is a pointer to its first element
		if op != "@" && v.obj != nil && v.obj.Kind == "array" {
			d, err := sym.Decay(*v.obj, mem)
			if err != nil {
				return *v, true, err
			}
			v.obj = &d
		}
	}
	count := func(v arithOperand) (int64, error) {
		n, err := p.number(v)
		if err == nil && n.kind == "float" {
			err = fmt.Errorf("invalid operands to %s: a floating-point count", op)
		}
		return n.i + int64(n.u), err
	}
	switch {
	case op == "@":
		if l.obj == nil {
			return l, true, errors.New("Only values in memory can be extended with '@'.")
		}
		n, err := count(r)
		if err != nil {
			return l, true, err
		}
		v, err := sym.Repeat(*l.obj, n, mem)
		return arithOperand{obj: &v}, true, err
	case op == "-" && ptr(l) && ptr(r):
		d, err := sym.Diff(*l.obj, *r.obj)
		return arithOperand{kind: "int", i: d}, true, err
	case (op == "+" || op == "-") && ptr(l):
		n, err := count(r)
		if err != nil {
			return l, true, err
		}
		if op == "-" {
			n = -n
		}
		v, err := sym.Add(*l.obj, n, mem)
		return arithOperand{obj: &v}, true, err
	case op == "+" && ptr(r):
		n, err := count(l)
		if err != nil {
			return r, true, err
		}
		v, err := sym.Add(*r.obj, n, mem)
		return arithOperand{obj: &v}, true, err
	}
	return l, false, nil
}

// bool01 is C's value of a truth: 1 or 0.
func bool01(b bool) arithOperand {
	if b {
		return arithOperand{kind: "int", i: 1}
	}
	return arithOperand{kind: "int"}
}

func (v arithOperand) nonzero() bool { return v.i != 0 || v.u != 0 || v.f != 0 }

// compare is a op b for a comparison operator; ok is false for another operator.
func compare[T cmp.Ordered](op string, a, b T) (result, ok bool) {
	switch op {
	case "<":
		return a < b, true
	case "<=":
		return a <= b, true
	case ">":
		return a > b, true
	case ">=":
		return a >= b, true
	case "==":
		return a == b, true
	case "!=":
		return a != b, true
	}
	return false, false
}

// integer is a op b for C's integer operators (~ takes b alone), wrapping on 64 bits.
func integer[T int64 | uint64](op string, a, b T) (T, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/", "%":
		if b == 0 {
			return 0, errors.New("Division by zero")
		}
		if op == "/" {
			return a / b, nil
		}
		return a % b, nil
	case "<<":
		return a << (uint64(b) & 63), nil
	case ">>":
		return a >> (uint64(b) & 63), nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	case "~":
		return ^b, nil
	}
	return 0, fmt.Errorf("unknown operator %s", op)
}

func (v arithOperand) float() float64 {
	switch v.kind {
	case "float":
		return v.f
	case "uint":
		return float64(v.u)
	}
	return float64(v.i)
}

func (v arithOperand) uint() uint64 {
	if v.kind == "uint" {
		return v.u
	}
	return uint64(v.i)
}

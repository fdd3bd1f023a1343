package gdbremote

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/cstring"
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
	kind  string        // "int", "uint", "float" or "complex" once a number
	i     int64
	u     uint64
	f     float64
	im    float64 // a complex number's imaginary part (kind "complex"; f its real part)
	isPtr bool    // a number taken from a pointer: no arithmetic on it
	// this is the object a member function is bound to ((o.*pmf)(), called with it)
	this *uint64
	ct   cType // its C type (ctypes.go); zero for an int literal's 0 of a unary operator
	// overloads are the functions a C++ name names, obj the last; a call chooses among
	// them by its arguments (chooseOverload).
	overloads []elfsym.Value
	ifunc     bool // obj is a GNU indirect function's resolver (a call runs what it returns)
}

// arithParser is a recursive-descent parser that evaluates as it goes; skip (the right side
// of a decided && or ||) parses without reading the program.
type arithParser struct {
	e    *evaluator
	toks []string
	at   []int  // where each token starts in src
	src  string // the expression
	pos  int
	skip bool
	// castType is the type the expression being read is cast to: (int)abs(-3) says abs's
	// return type, which a function without debug information does not.
	castType string
	calls    bool // a call was parsed (skip: a condition's check)
}

// runArith parses expr whole and evaluates it (skip: parses only, reading nothing).
func runArith(e *evaluator, expr string, skip bool) (arithOperand, *arithParser, error) {
	toks, at, err := lexArithAt(expr)
	if err != nil {
		return arithOperand{}, nil, err
	}
	p := &arithParser{e: e, toks: toks, at: at, src: expr, skip: skip}
	v, err := p.conditional()
	if err == nil && p.pos != len(p.toks) {
		err = p.syntaxError(p.pos)
		if p.toks[p.pos] == ")" { // gdb's parser ends the expression at a ) it did not open
			err = errors.New("Junk after end of expression.")
		}
	}
	return v, p, err
}

// arith evaluates expr as a C expression.
func (e *evaluator) arith(expr string) (elfsym.Value, error) {
	v, _, err := runArith(e, expr, false)
	if err != nil {
		return elfsym.Value{}, err
	}
	if v.obj != nil && v.obj.Kind == "nodebug" && v.obj.Text == "" && !e.typeOnly { // it has no type to print it by
		return elfsym.Value{}, elfsym.UnknownTypeError(v.obj.Name)
	}
	if v.obj != nil && v.obj.Kind == elfsym.KindUnread && !e.typeOnly { // a place whose contents cannot be read
		return elfsym.Value{}, elfsym.UnreadError(*v.obj)
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
	_, p, err := runArith(nil, expr, true)
	if err == nil && p.calls {
		return fmt.Errorf("%q calls a function of the program, which a condition does not do here (gdb runs it): test the values it reads instead", expr)
	}
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
	typ := v.ct.name
	switch v.kind {
	case "complex":
		return v.complexValue(name)
	case "float":
		if typ == "" {
			typ = "double"
		}
		if v.ct.bits == 32 { // as gdb prints a float: the digits that read back the same value
			return elfsym.Value{Name: name, Type: typ, Kind: "float", Text: elfsym.FloatText(elfsym.Single, 0, uint64(math.Float32bits(float32(v.f))))}
		}
		return elfsym.Value{Name: name, Type: typ, Kind: "float", Text: elfsym.FloatText(elfsym.Double, 0, math.Float64bits(v.f))}
	case "uint":
		if typ == "" {
			typ = "unsigned long"
		}
		return elfsym.Value{Name: name, Type: typ, Kind: "uint", Text: strconv.FormatUint(v.u, 10)}
	}
	if typ == "" {
		typ = "long"
	}
	if v.ct == tBool {
		return elfsym.Value{Name: name, Type: typ, Kind: "bool", Text: strconv.FormatBool(v.i != 0)}
	}
	return elfsym.Value{Name: name, Type: typ, Kind: "int", Text: strconv.FormatInt(v.i, 10)}
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
	".*": 12, "->*": 12, // C++'s pointers to members
}

// conditional parses C's c ? a : b, the loosest of its operators (right to left): only the
// side chosen is read from the program.
func (p *arithParser) conditional() (arithOperand, error) {
	c, err := p.binary(0)
	if err != nil || p.peek() != "?" {
		return c, err
	}
	p.pos++
	chosen, err := p.truth(c)
	if err != nil {
		return c, err
	}
	skip := p.skip
	defer func() { p.skip = skip }()
	p.skip = skip || !chosen
	a, err := p.conditional()
	if err != nil {
		return a, err
	}
	if p.peek() != ":" {
		return a, fmt.Errorf("missing : of a ? in %q", strings.Join(p.toks, " "))
	}
	p.pos++
	p.skip = skip || chosen
	b, err := p.conditional()
	if chosen {
		return a, err
	}
	return b, err
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
		if op == "&" { // &Outer::b: a pointer to a member
			if mp, ok, err := p.memberPointer(); ok {
				return mp, err
			}
		}
		v, err := p.unary()
		if err != nil || p.skip {
			return v, err
		}
		if op != "&" && op != "*" {
			if r, ok, err := p.userOperator(op, v); ok { // C++: -a of a class with operator-
				return r, err
			}
		}
		switch op {
		case "*":
			return p.deref(v)
		case "&":
			v = v.referred()
			if v.obj == nil {
				return v, errors.New("Attempt to take address of value not located in memory.") // gdb's words
			}
			a, err := p.e.t.sym.AddressOf(*v.obj, cachedMem{p.e.t})
			return arithOperand{obj: &a}, err
		}
		r, err := p.apply(op, arithOperand{kind: "int"}, v)
		if e := v.referred().obj; err == nil && op != "!" && e != nil && e.Kind == "enum" && e.Typed() && len(e.Bytes) >= 4 {
			// gdb keeps the type of an enum at least as wide as int: -f of a flag enum is flags still
			if c, cerr := p.e.t.sym.Convert(e.DWARFType(), int64(r.uint()), 0, false, cachedMem{p.e.t}); cerr == nil {
				c.Name = op + e.Name
				return arithOperand{obj: &c}, nil
			}
		}
		return r, err
	case "sizeof":
		p.pos++
		return p.sizeof()
	case "(":
		if name, ok := p.typeName(); ok {
			outer := p.castType
			p.castType = name // the return type of a call of a function without debug information
			v, err := p.unary()
			p.castType = outer
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
				return v, p.syntaxError(p.pos)
			}
			p.pos++
			field += p.operatorSymbol(field)   // a.operator+(b)
			if arrow || isPointerToStruct(v) { // (gdb's p.f of a pointer is p->f)
				if arrow && !p.skip && pointsToNoStruct(v.referred()) { // gdb's words for x->f, px->f of an int
					return v, errors.New("Attempt to extract a component of a value that is not a structure pointer.")
				}
				d, derr := p.child(v, "*")
				if derr != nil && (!arrow || !isStruct(v)) { // and s->f of a struct s.f
					return d, derr
				}
				if derr == nil {
					v = p.wholeObject(d)
				}
			}
			if !p.skip { // C++: obj.Base::member
				if r, ok, qerr := p.qualifiedMember(v, field); ok {
					v, err = r, qerr
					continue
				}
			}
			if p.peek() == "(" && !p.skip { // C++: obj.method(...)
				if r, ok, cerr := p.methodCall(v, field, false); ok {
					v, err = r, cerr
					continue
				}
			}
			member, merr := p.child(v, field)
			if merr != nil && !p.skip { // obj.method without a call: the method, as gdb shows it
				if m, ok, cerr := p.methodValue(v, field); ok {
					member, merr = m, cerr
				}
			}
			v, err = member, merr
		case "(":
			if v.this != nil && !p.skip { // (o.*pmf)(...): run with o as this
				p.pos++
				v, err = p.callOn(v, v.this)
				continue
			}
			if p.skip && (v.obj == nil || v.obj.Kind == "func") && p.pos > 0 && isIdent(p.toks[p.pos-1]) { // f(...) only parsed
				p.pos++
				p.calls = true
				if _, err = p.arguments(); err != nil {
					return v, err
				}
				v = arithOperand{kind: "int"}
				continue
			}
			if v.obj != nil && v.obj.Kind == "pointer" && !p.skip { // through a function pointer: fp(2), ops[1](2, 3)
				if fn, derr := p.deref(v); derr == nil && fn.obj != nil && fn.obj.Kind == "func" {
					v = fn
				}
			}
			if v.obj == nil || v.obj.Kind != "func" {
				return v, nil
			}
			p.pos++
			v, err = p.call(v)
		case "[":
			p.pos++
			var idx arithOperand
			if idx, err = p.conditional(); err != nil {
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

func isIdent(s string) bool {
	return isIdentByte(s[0]) && (s[0] < '0' || s[0] > '9')
}

// primary parses a parenthesised expression, a number, a character or a name.
func (p *arithParser) primary() (arithOperand, error) {
	t := p.peek()
	if t == "" {
		return arithOperand{}, p.syntaxError(p.pos)
	}
	p.pos++
	switch {
	case t == "(":
		v, err := p.conditional()
		if err == nil && p.peek() != ")" {
			err = p.syntaxError(p.pos)
		}
		if err == nil {
			p.pos++
		}
		return v, err
	case len(t) > 2 && strings.ContainsRune("LuU", rune(t[0])) && (t[1] == '\'' || t[1] == '"'): // L'a', L"ab"
		return p.wideLiteral(t)
	case t[0] == '\'' && strings.Contains(t, "'::"): // 'file.c'::name
		if p.skip {
			return arithOperand{kind: "int"}, nil
		}
		v, err := p.e.value(t)
		if err != nil {
			file, name, _ := strings.Cut(t[1:], "'::")
			if fv, ok := p.program().FileFuncValue(file, name); ok { // 'file.c'::fact
				return arithOperand{obj: &fv}, nil
			}
			return arithOperand{}, err
		}
		return arithOperand{obj: &v}, nil
	case t[0] == '\'':
		c, ok := elfsym.CharLiteral(t)
		if !ok {
			return arithOperand{}, charConstantError(t)
		}
		v := arithOperand{kind: "int", i: int64(c), ct: tChar}
		if !p.skip && p.program() != nil { // a char, as gdb prints it: 65 'A'
			if ch, err := p.cast("char", v); err == nil {
				ch.obj.Name = t
				return ch, nil
			}
		}
		return v, nil
	case t[0] == '"':
		if p.skip {
			return arithOperand{kind: "int"}, nil
		}
		if p.program() == nil { // what is done with it needs the program's types
			return arithOperand{}, errNoProgram
		}
		b := []byte(cstring.Unescape(t[1 : len(t)-1]))
		for strings.HasPrefix(p.peek(), `"`) { // "ab" "cd" is "abcd", as in C
			n := p.peek()
			p.pos++
			b, t = append(b, cstring.Unescape(n[1:len(n)-1])...), t+" "+n
		}
		s := p.e.t.sym.StringLiteral(b)
		s.Name = t
		return arithOperand{obj: &s}, nil
	case t[0] >= '0' && t[0] <= '9' || t[0] == '.':
		return parseNumber(t)
	case t[0] == '$' || isIdent(t):
		if _, ok := convenienceFuncs[t]; ok && p.peek() == "(" {
			p.pos++
			return p.convenience(t)
		}
		if p.skip {
			return arithOperand{kind: "int"}, nil
		}
		if c, ok := p.templateFunction(t); ok { // twice<long>(3)
			return c, nil
		}
		v, err := p.e.value(t)
		if err != nil {
			if p.peek() == "(" { // in a C++ method, area() is this->area()
				if this, ok := p.e.thisObject(); ok {
					if r, ok, cerr := p.methodCall(arithOperand{obj: &this}, t, true); ok {
						return r, cerr
					}
				}
			}
			if c, ok := p.constant(t); ok {
				return c, nil
			}
			return arithOperand{}, err
		}
		return arithOperand{obj: &v}, nil
	}
	return arithOperand{}, p.syntaxError(p.pos - 1)
}

// wideLiteral is a wide character or string literal: L'a' (97 L'a'), u"ab".
func (p *arithParser) wideLiteral(t string) (arithOperand, error) {
	if p.skip {
		return arithOperand{kind: "int"}, nil
	}
	if p.program() == nil {
		return arithOperand{}, errNoProgram
	}
	prefix, body := t[:1], cstring.Unescape(t[2:len(t)-1])
	if t[1] == '"' {
		s := p.e.t.sym.WideStringLiteral(prefix, body)
		s.Name = t
		return arithOperand{obj: &s}, nil
	}
	r := []rune(body)
	if len(r) != 1 {
		return arithOperand{}, charConstantError(t[1:])
	}
	c := p.e.t.sym.WideCharLiteral(prefix, r[0])
	c.Name = t
	return arithOperand{obj: &c}, nil
}

// charConstantError is gdb's word for a character literal that is none: empty, or 'ab'.
func charConstantError(lit string) error {
	if lit == "''" {
		return errors.New("Empty character constant.")
	}
	return errors.New("Invalid character constant.")
}

// constant is a name that is not a variable but a value: an enumeration constant, or a
// function.
func (p *arithParser) constant(name string) (arithOperand, bool) {
	sym := p.program()
	if sym == nil {
		return arithOperand{}, false
	}
	if t, val, ok := sym.Enumerator(name); ok {
		if c, err := sym.Convert(t, val, 0, false, cachedMem{p.e.t}); err == nil {
			c.Name = name
			return arithOperand{obj: &c}, true
		}
	}
	if p.cplusFrame() { // by C++'s lookup: the name as written, in the scopes of the frame's function
		if fvs := sym.FuncValuesInScope(name, p.framePC()); len(fvs) > 0 {
			last := fvs[len(fvs)-1] // gdb names an overloaded function by its last (a call chooses by its arguments)
			return arithOperand{obj: &last, overloads: fvs}, true
		}
	}
	if fn, _ := sym.FuncByName(name); fn != nil && (fn.Name == name || !p.cplusFrame()) { // (add is not geo::add, B not B::B)
		if fv, ok := sym.FuncValueAt(name, p.framePC()); ok { // (a file's own static function first)
			return arithOperand{obj: &fv}, true
		}
	}
	if m, ok := p.e.t.functionSymbol(name); ok { // a library's function: puts
		fv := elfsym.NoDebugFunc(m)
		return arithOperand{obj: &fv, ifunc: m.IFunc}, true
	}
	if m, ok := p.e.t.dataSymbol(name); ok { // a variable without debug information: read through a cast
		dv, err := p.e.t.symbolVariable(m)
		if err != nil {
			return arithOperand{}, false
		}
		return arithOperand{obj: &dv}, true
	}
	return arithOperand{}, false
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
		ct := tDouble
		switch {
		case strings.HasSuffix(lower, "f"):
			ct, f = tFloat, float64(float32(f))
		case strings.HasSuffix(lower, "l"): // 1.5L: held as a double here, typed as C types it
			ct = tLongDouble
		}
		return arithOperand{kind: "float", f: f, ct: ct}, nil
	}
	digits := strings.TrimRight(lower, "ul")
	n, err := strconv.ParseUint(digits, 0, 64) // 0x, 0b and a leading 0 as C reads them
	if err != nil {
		return arithOperand{}, fmt.Errorf("invalid number %q", t)
	}
	suffix := lower[len(digits):]
	decimal := !hex && !(len(digits) > 1 && digits[0] == '0')
	ct := literalType(n, decimal, strings.Contains(suffix, "u"), strings.Contains(suffix, "l"))
	return arithOperand{kind: "uint", u: n, ct: ct}.wrap(), nil
}

// child follows a field, an element or a pointer ("*") of a piece of the program.
func (p *arithParser) child(v arithOperand, key string) (arithOperand, error) {
	if p.skip {
		return v, nil
	}
	if v.obj == nil {
		if key == "*" {
			return v, errors.New("Attempt to take contents of a non-pointer value.")
		}
		if strings.HasPrefix(key, "[") { // gdb's words
			return v, fmt.Errorf("cannot subscript something of type `%s'", promote(v.ct).name)
		}
		return v, errors.New("Attempt to extract a component of a value that is not a structure.")
	}
	c, err := child(*v.obj, key)
	if err != nil {
		// what cannot be read is a place still: h->next of a null h is at 0x10 (&h->next)
		if u, ok := p.e.t.sym.Within(v.obj.Referred(), key, cachedMem{p.e.t}); ok {
			return arithOperand{obj: &u}, nil
		}
		if u, ok := elfsym.Pointee(*v.obj); ok && key == "*" && p.e.typeOnly {
			return arithOperand{obj: &u}, nil
		}
		if v.obj.Kind == elfsym.KindUnread {
			return v, elfsym.UnreadError(*v.obj)
		}
		return v, err
	}
	return arithOperand{obj: &c}, nil
}

// isStruct reports whether v is a struct, union or class (a reference to one too).
func isStruct(v arithOperand) bool {
	v = v.referred()
	return v.obj != nil && (v.obj.Kind == "struct" || v.obj.Kind == "union")
}

// pointsToNoStruct reports whether v, by its type, is neither a struct, union or class
// nor a pointer to one (an int, a pointer to an int): what -> cannot take a member of.
func pointsToNoStruct(v arithOperand) bool {
	if v.obj == nil {
		return true
	}
	if v.obj.DWARFType() == nil {
		return false // (no type to tell by)
	}
	t := elfsym.Underlying(v.obj.DWARFType())
	if pt, ok := t.(*dwarf.PtrType); ok {
		t = elfsym.Underlying(pt.Type)
	}
	_, ok := t.(*dwarf.StructType)
	return !ok
}

// isPointerToStruct reports whether v is a pointer to a struct, union or class.
func isPointerToStruct(v arithOperand) bool {
	if v.obj == nil || v.obj.Kind != "pointer" {
		return false
	}
	pt, ok := elfsym.Underlying(v.obj.DWARFType()).(*dwarf.PtrType)
	if !ok {
		return false
	}
	_, ok = elfsym.Underlying(pt.Type).(*dwarf.StructType)
	return ok
}

// referred is the object a C++ reference refers to (elfsym.Value.Referred); any other
// operand is itself.
func (v arithOperand) referred() arithOperand {
	if v.obj != nil && v.obj.Referent != nil {
		r := *v.obj.Referent
		return arithOperand{obj: &r}
	}
	return v
}

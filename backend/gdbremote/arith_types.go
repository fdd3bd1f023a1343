package gdbremote

// The evaluator's C on the program's types (arith.go parses and computes): casts, sizeof,
// *p, p[i] and an array's elements, pointer arithmetic and gdb's v@n, through the types
// elfsym keeps on the values it reads.

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

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
	depth := 0 // inside an abstract declarator's parentheses: int (*)(int, char)
	for i := p.pos + 1; i < len(p.toks); i++ {
		switch t := p.toks[i]; {
		case t == ")" && depth == 0:
			p.pos = i + 1
			return strings.Join(words, " "), true
		case t == "(" && len(words) > 0:
			depth++
			words = append(words, t)
		case t == ")" || t == "," && depth > 0:
			if t == ")" {
				depth--
			}
			words = append(words, t)
		case t == "*" || isIdent(t):
			words = append(words, t)
		case t == "[" && i+1 < len(p.toks) && p.toks[i+1] == "]" && len(words) > 0: // int (*)[]
			words[len(words)-1] += "[]"
			i++
		case t == "[" && i+2 < len(p.toks) && p.toks[i+2] == "]" && len(words) > 0: // int[10]
			if _, err := strconv.Atoi(p.toks[i+1]); err != nil {
				return "", false
			}
			words[len(words)-1] += "[" + p.toks[i+1] + "]"
			i += 2
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
func isTypeKeyword(s string) bool { return elfsym.IsTypeKeyword(s) }

// cast is (name) v: a scalar or pointer converted as C converts it.
func (p *arithParser) cast(name string, v arithOperand) (arithOperand, error) {
	if p.program() == nil {
		return v, errNoProgram
	}
	if strings.TrimSpace(name) == "void" { // (void)f(): the value thrown away, as C's
		void := elfsym.Value{Name: "(void)", Type: "void", Kind: "void", Text: "void"}
		return arithOperand{obj: &void}, nil
	}
	t, err := p.e.t.sym.ParseType(name)
	if err != nil {
		return v, err
	}
	if v.obj != nil && v.obj.Kind == "nodebug" { // (int)counter: the variable read as the cast says
		c, err := p.e.t.sym.ReadAs(t, *v.obj, cachedMem{p.e.t})
		if err != nil {
			return v, err
		}
		c.Name = "(" + name + ")" + v.obj.Name
		return arithOperand{obj: &c}, nil
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
// its value: only its type counts), an int as gdb types it (C's size_t is unsigned).
func (p *arithParser) sizeof() (arithOperand, error) {
	if name, ok := p.typeName(); ok {
		if p.skip {
			return arithOperand{kind: "uint"}, nil
		}
		if p.program() == nil {
			return arithOperand{}, errNoProgram
		}
		if strings.TrimSpace(name) == "void" { // GNU C's 1, as gdb's
			return arithOperand{kind: "int", i: 1, ct: tInt}, nil
		}
		t, err := p.e.t.sym.ParseType(name)
		if err != nil {
			return arithOperand{}, err
		}
		n, err := elfsym.TypeSize(t)
		return arithOperand{kind: "int", i: int64(n), ct: tInt}, err
	}
	typeOnly := p.e.typeOnly
	p.e.typeOnly = true // (the operand is not evaluated: its type alone counts)
	v, err := p.unary()
	p.e.typeOnly = typeOnly
	if err != nil || p.skip {
		return v, err
	}
	if v.obj != nil && (v.obj.Kind == "func" || v.obj.Kind == "void") { // gdb's sizeof of a function or void, as GNU C's
		return arithOperand{kind: "int", i: 1, ct: tInt}, nil
	}
	if v.obj != nil && v.obj.Kind == "nodebug" {
		if v.obj.Text != "" { // *&counter: gdb's size of no type
			return arithOperand{kind: "int", ct: tInt}, nil
		}
		return v, elfsym.UnknownTypeError(v.obj.Name)
	}
	if v.obj == nil {
		size := uint64(8)
		if v.ct.known() {
			size = uint64(v.ct.bits / 8)
		}
		return arithOperand{kind: "int", i: int64(size), ct: tInt}, nil
	}
	n, err := p.e.t.sym.SizeOf(*v.obj)
	return arithOperand{kind: "int", i: int64(n), ct: tInt}, err
}

// deref is *v: what a pointer points to (the first element of an array).
func (p *arithParser) deref(v arithOperand) (arithOperand, error) {
	v = v.referred()
	if v.obj != nil && v.obj.Kind == "pointer" && pointsToVoid(*v.obj) { // a void * has nothing to read
		if p.e.typeOnly { // whatis *vp, sizeof *vp: void, as gdb's
			void := elfsym.Value{Name: "*" + v.obj.Name, Type: "void", Kind: "void", Text: "void"}
			return arithOperand{obj: &void}, nil
		}
		return v, errors.New("Attempt to dereference a generic pointer.") // gdb's
	}
	if integerOperand(v) && !p.skip && p.program() != nil { // *24 is the int at 0x18, as gdb reads it
		if pv, err := p.cast("int *", v); err == nil {
			return p.deref(pv)
		}
	}
	if v.obj != nil && v.obj.Kind == "func" { // *fact is fact, as in C
		return v, nil
	}
	if v.obj != nil && v.obj.Kind == "memberptr" {
		return v, errors.New("Attempt to dereference pointer to member without an object") // gdb's words
	}
	if v.obj != nil && v.obj.Kind == "array" {
		c, err := p.e.t.sym.Element(*v.obj, 0, cachedMem{p.e.t})
		if err == nil {
			c.Name = "*" + v.obj.Name
			return arithOperand{obj: &c}, nil
		}
	}
	if f, ok := p.pointedFunc(v); ok { // *fp of a pointer to a function is the function
		return arithOperand{obj: &f}, nil
	}
	if noDebugPtr(v) { // *&counter: an object without a type, which gdb prints as its type's name
		n, err := p.number(v)
		if err != nil {
			return v, err
		}
		name := "*" + v.obj.Name
		if _, sym, ok := strings.Cut(v.obj.Text, " <"); ok { // the symbol the address names: &*&counter is <counter>
			name = strings.TrimSuffix(sym, ">")
		}
		c := elfsym.Value{Name: name, Type: elfsym.NoDebugDataType, Kind: "nodebug", Addr: n.u, InMemory: true,
			Text: elfsym.NoDebugDataType}
		return arithOperand{obj: &c}, nil
	}
	if v.obj != nil && v.obj.Kind == elfsym.KindUnread {
		if u, ok := elfsym.Pointee(*v.obj); ok && p.e.typeOnly { // whatis *h->next
			return arithOperand{obj: &u}, nil
		}
		return v, elfsym.UnreadError(*v.obj)
	}
	if v.obj != nil && v.obj.Kind == "pointer" {
		c, err := p.e.t.sym.Element(*v.obj, 0, cachedMem{p.e.t})
		if err == nil {
			c.Name = "*" + v.obj.Name
			return arithOperand{obj: &c}, nil
		}
		if u, ok := p.e.t.sym.Within(*v.obj, "*", cachedMem{p.e.t}); ok { // *h of a null h: the place alone (&*h)
			return arithOperand{obj: &u}, nil
		}
	}
	if c, err := p.child(v, "*"); err == nil || v.obj == nil || v.obj.Kind != "struct" || !v.obj.IsCXX() {
		return c, err // a pointer, or what a library's printer points at (a smart pointer's object, an iterator's element)
	}
	if r, ok, err := p.userOperator("*", v); ok { // the class's operator*, run
		return r, err
	}
	return v, errors.New("Could not find operator*.") // gdb's words
}

// pointsToVoid reports whether v is a void *.
func pointsToVoid(v elfsym.Value) bool {
	pt, ok := elfsym.Underlying(v.DWARFType()).(*dwarf.PtrType)
	if !ok {
		return false
	}
	_, void := pt.Type.(*dwarf.VoidType)
	return void || pt.Type == nil
}

// integerOperand reports whether v is an integer: a number computed, or a variable of an
// integer type (not a pointer, a float or an aggregate).
func integerOperand(v arithOperand) bool {
	if v.obj == nil {
		return v.kind == "int" || v.kind == "uint"
	}
	switch v.obj.Kind {
	case "int", "uint", "char", "bool":
		return v.obj.Typed()
	}
	return false
}

// pointedFunc is the function a pointer to a function points to, when it points to the
// start of one of the program's functions.
func (p *arithParser) pointedFunc(v arithOperand) (elfsym.Value, bool) {
	if v.obj == nil || v.obj.Kind != "pointer" || p.e == nil {
		return elfsym.Value{}, false
	}
	pt, ok := elfsym.Underlying(v.obj.DWARFType()).(*dwarf.PtrType)
	if !ok {
		return elfsym.Value{}, false
	}
	if _, ok := elfsym.Underlying(pt.Type).(*dwarf.FuncType); !ok || len(v.obj.Bytes) == 0 {
		return elfsym.Value{}, false
	}
	return p.funcAt(Uint(v.obj.Bytes, p.e.t.order))
}

// funcAt is the function whose code begins at addr.
func (p *arithParser) funcAt(addr uint64) (elfsym.Value, bool) {
	if fv, ok := p.e.t.sym.FuncValueOfCode(addr); ok {
		return fv, true
	}
	name, ok := p.e.t.sym.SymbolAt(addr)
	if !ok || strings.Contains(name, "+") {
		return elfsym.Value{}, false
	}
	return p.e.t.sym.FuncValue(name)
}

// noDebugPtr reports whether v is the address of a variable known by its symbol alone
// (&counter), whose type gdb does not know the size of.
func noDebugPtr(v arithOperand) bool {
	return v.obj != nil && v.obj.Kind == "pointer" && !v.obj.Typed() && v.obj.Type == elfsym.NoDebugDataType+" *"
}

// index is v[idx]: an element of an array, or p[0] of a pointer.
func (p *arithParser) index(v, idx arithOperand) (arithOperand, error) {
	if v.obj != nil && v.obj.Kind == "nodebug" {
		return v, elfsym.UnknownTypeError(v.obj.Name)
	}
	if p.skip {
		return v, nil
	}
	v = v.referred()
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
	if v.obj != nil && v.obj.Kind == elfsym.KindUnread {
		return p.child(v, "["+strconv.FormatInt(i, 10)+"]")
	}
	if v.obj != nil && v.obj.Kind == "pointer" && pointsToVoid(*v.obj) { // vp[1]: *(vp + 1), nothing to read
		return p.deref(v)
	}
	if v.obj != nil && (v.obj.Kind == "pointer" || v.obj.Kind == "array" || v.obj.Kind == "struct") { // a standard container's too
		c, err := p.e.t.sym.Element(*v.obj, i, cachedMem{p.e.t})
		if err != nil && v.obj.Kind == "pointer" { // p[1] where nothing can be read: the place alone (&p[1])
			if u, ok := p.e.t.sym.Within(*v.obj, "["+strconv.FormatInt(i, 10)+"]", cachedMem{p.e.t}); ok {
				return arithOperand{obj: &u}, nil
			}
		}
		if err == nil || v.obj.Kind == "pointer" {
			return arithOperand{obj: &c}, err
		}
	}
	if c, err := p.child(v, "["+strconv.FormatInt(i, 10)+"]"); err == nil {
		return c, nil
	}
	if r, ok, err := p.operatorCall(v, "operator[]", idx); ok { // a class's own: std::string's
		return r, err
	}
	return p.child(v, "["+strconv.FormatInt(i, 10)+"]")
}

// pointerOp is l op r when it is pointer arithmetic or gdb's @: p + n, n + p, p - n, p - q,
// v@n. ok is false for the other operations.
func (p *arithParser) pointerOp(op string, l, r arithOperand) (arithOperand, bool, error) {
	ptr := func(v arithOperand) bool {
		return v.obj != nil && v.obj.Typed() && (v.obj.Kind == "pointer" || v.obj.Kind == "array" || v.obj.Kind == "func")
	}
	if (op == "+" || op == "-") && (noDebugPtr(l) || op == "+" && noDebugPtr(r)) {
		return l, true, fmt.Errorf("Cannot perform pointer math on incomplete type \"%s\", try casting to a known type, or void *.", elfsym.NoDebugDataType)
	}
	if op != "@" && !ptr(l) && !ptr(r) {
		return l, false, nil
	}
	if op != "@" && (l.obj != nil || r.obj != nil) && p.program() == nil {
		return l, true, errNoProgram
	}
	sym, mem := p.program(), cachedMem{p.e.t}
	for _, v := range []*arithOperand{&l, &r} { // an array is a pointer to its first element, a function to itself
		var d elfsym.Value
		var err error
		switch {
		case op == "@" || v.obj == nil:
			continue
		case v.obj.Kind == "array":
			d, err = sym.Decay(*v.obj, mem)
		case v.obj.Kind == "func":
			d, err = sym.AddressOf(*v.obj, mem)
		default:
			continue
		}
		if err != nil {
			return *v, true, err
		}
		v.obj = &d
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
		return arithOperand{kind: "int", i: d, ct: tLong}, true, err
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

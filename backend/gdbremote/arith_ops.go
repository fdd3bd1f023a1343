package gdbremote

// The operations of C's arithmetic on the parser's operands: what a value is as a number,
// the binary and unary operators at C's types (an int wraps at 32 bits), comparisons and
// truth.

import (
	"cmp"
	"debug/dwarf"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// number makes a number of an operand: an integer, character, boolean, enum, float or
// pointer value of the program.
func (p *arithParser) number(v arithOperand) (arithOperand, error) {
	if v.obj == nil {
		return v, nil
	}
	if v.obj.Kind == elfsym.KindUnread {
		return v, elfsym.UnreadError(*v.obj)
	}
	if v.obj.Kind == "nodebug" {
		if v.obj.Text != "" { // *&counter
			return v, errors.New("Argument to arithmetic operation not a number or boolean.")
		}
		return v, elfsym.UnknownTypeError(v.obj.Name)
	}
	v = v.referred()
	o := v.obj
	longBits := 8 * p.e.t.sym.Arch.PtrSize // long is as wide as a pointer (LP64, ILP32)
	switch o.Kind {
	case "char": // signed or not as printed ("200 '\310'" for an unsigned char)
		if n, err := number(*o); err == nil {
			ct := tChar
			if n > math.MaxInt8 || o.Type == "unsigned char" {
				ct = cType{"unsigned char", 8, false, false}
			}
			return arithOperand{kind: "int", i: n, ct: ct}, nil
		}
	case "int", "uint", "bool", "enum", "pointer":
		if len(o.Bytes) == 0 || len(o.Bytes) > 8 {
			break
		}
		u := Uint(o.Bytes, p.e.t.order)
		switch o.Kind {
		case "bool":
			return arithOperand{kind: "uint", u: u, ct: cType{"_Bool", 8, false, false}}, nil
		case "pointer":
			return arithOperand{kind: "uint", u: u, isPtr: true, ct: cType{"unsigned long", longBits, false, false}}, nil
		case "uint":
			return arithOperand{kind: "uint", u: u, ct: intType(o.Type, len(o.Bytes), false, longBits)}, nil
		}
		shift := uint(64 - 8*len(o.Bytes))
		ct := intType(o.Type, len(o.Bytes), true, longBits)
		if o.Kind == "enum" { // of its size, unsigned when no value is negative, as gdb types an enum
			if unsignedEnum(*o) {
				return arithOperand{kind: "uint", u: u, ct: intType("", len(o.Bytes), false, longBits)}, nil
			}
			ct = intType("", len(o.Bytes), true, longBits)
		}
		return arithOperand{kind: "int", i: int64(u<<shift) >> shift, ct: ct}, nil
	case "func": // gdb's arithmetic on a function is on its address, byte by byte (main+20)
		if o.InMemory {
			return arithOperand{kind: "uint", u: o.Addr, isPtr: true, ct: cType{"unsigned long", longBits, false, false}}, nil
		}
	case "array": // as C's arrays decay: its address, as a (char *) cast reads it
		if o.InMemory {
			return arithOperand{kind: "uint", u: o.Addr, isPtr: true, ct: cType{"unsigned long", longBits, false, false}}, nil
		}
	case "complex":
		if c, ok := p.complexOperand(*o); ok {
			return c, nil
		}
	case "float":
		f, err := elfsym.ParseFloatText(o.Text)
		switch len(o.Bytes) { // exactly, a NaN's bits too
		case 4:
			f, err = float64(math.Float32frombits(uint32(Uint(o.Bytes, p.e.t.order)))), nil
		case 8:
			f, err = math.Float64frombits(Uint(o.Bytes, p.e.t.order)), nil
		}
		if err == nil {
			ct := tDouble
			if len(o.Bytes) == 4 {
				ct = tFloat
			}
			return arithOperand{kind: "float", f: f, ct: ct}, nil
		}
	}
	switch {
	case o.Kind == "void":
		return v, errors.New("Argument to arithmetic operation not a number or boolean.") // gdb's
	case (o.Kind == "int" || o.Kind == "uint") && len(o.Bytes) > 8: // __int128
		return v, errors.New("That operation is not available on integers of more than 8 bytes.") // gdb's
	}
	return v, fmt.Errorf("%s (%s) is not a number", o.Name, o.Type)
}

// unsignedEnum reports whether v is of an enum without negative values.
func unsignedEnum(v elfsym.Value) bool {
	et, ok := elfsym.Underlying(v.DWARFType()).(*dwarf.EnumType)
	if !ok {
		return false
	}
	for _, e := range et.Val {
		if e.Val < 0 {
			return false
		}
	}
	return true
}

// truth is v as a condition.
func (p *arithParser) truth(v arithOperand) (bool, error) {
	if p.skip {
		return false, nil
	}
	if o := v.referred().obj; o != nil && (o.Kind == "int" || o.Kind == "uint") && len(o.Bytes) > 8 { // __int128: any bit set
		return slices.ContainsFunc(o.Bytes, func(b byte) bool { return b != 0 }), nil
	}
	n, err := p.number(v)
	return n.nonzero(), err
}

// apply computes l op r with C's usual arithmetic conversions on 64 bits.
func (p *arithParser) apply(op string, l, r arithOperand) (arithOperand, error) {
	if p.skip {
		return arithOperand{kind: "int"}, nil
	}
	if op == ".*" || op == "->*" {
		return p.memberPointed(op, l, r)
	}
	switch op { // (of any number, __int128 too)
	case "!":
		t, err := p.truth(r)
		return p.truthValue(!t), err
	case "&&", "||":
		lt, err := p.truth(l)
		if err != nil {
			return l, err
		}
		rt, err := p.truth(r)
		return p.truthValue(op == "&&" && lt && rt || op == "||" && (lt || rt)), err
	}
	if v, ok, err := p.userOperator(op, l, r); ok { // C++: a class's operator+
		return v, err
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
	if l.kind == "complex" || r.kind == "complex" {
		return complexArith(op, l, r)
	}
	if (l.isPtr || r.isPtr) && strings.Contains("*/%", op) {
		return l, fmt.Errorf("invalid operands to %s: a pointer", op)
	}
	// C's conversions: both operands to their common type (a shift: each promoted, the
	// result of the left one's type), the result wrapped to it.
	t := usual(l.ct, r.ct)
	if op == "<<" || op == ">>" {
		t = promote(l.ct)
		r = r.to(promote(r.ct))
	} else {
		r = r.to(t)
	}
	l = l.to(t)
	switch {
	case t.float:
		a, b := l.f, r.f
		if c, ok := compare(op, a, b); ok {
			return p.truthValue(c), nil
		}
		f, ok := fieldOp(op, a, b)
		if !ok {
			return l, errors.New("Integer-only operation on floating point number.") // gdb's words
		}
		return arithOperand{kind: "float", f: f}.to(t), nil
	case !t.signed:
		if c, ok := compare(op, l.u, r.uint()); ok {
			return p.truthValue(c), nil
		}
		n, err := integer(op, l.u, r.uint())
		return arithOperand{kind: "uint", u: n, ct: t}.wrap(), err
	}
	if c, ok := compare(op, l.i, r.sint()); ok {
		return p.truthValue(c), nil
	}
	n, err := integer(op, l.i, r.sint())
	return arithOperand{kind: "int", i: n, ct: t}.wrap(), err
}

// truthValue is a comparison's or a logical operator's result: C's int 1 or 0, C++'s
// bool (printed true or false, as gdb prints it in a C++ frame).
func (p *arithParser) truthValue(b bool) arithOperand {
	r := bool01(b)
	if p.e == nil || p.e.t == nil {
		return r
	}
	if p.cplusFrame() {
		r.ct = tBool
	}
	return r
}

// bool01 is C's value of a truth: 1 or 0.
func bool01(b bool) arithOperand {
	if b {
		return arithOperand{kind: "int", i: 1, ct: tInt}
	}
	return arithOperand{kind: "int", ct: tInt}
}

func (v arithOperand) nonzero() bool { return v.i != 0 || v.u != 0 || v.f != 0 || v.im != 0 }

// fieldOp is a op b for + - * / of real or complex numbers; false for another operator.
func fieldOp[T float64 | complex128](op string, a, b T) (T, bool) {
	switch op {
	case "+":
		return a + b, true
	case "-":
		return a - b, true
	case "*":
		return a * b, true
	case "/":
		return a / b, true
	}
	var zero T
	return zero, false
}

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

func (v arithOperand) sint() int64 {
	if v.kind == "uint" {
		return int64(v.u)
	}
	return v.i
}

func (v arithOperand) uint() uint64 {
	if v.kind == "uint" {
		return v.u
	}
	return uint64(v.i)
}

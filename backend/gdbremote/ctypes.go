package gdbremote

// C's arithmetic types for the expression evaluator (arith.go): integer promotion and the
// usual arithmetic conversions, so that a result has the type and the value the program's
// own arithmetic would give (int wraps at 32 bits, -1u is 4294967295), as gdb's has.

import "math"

// cType is an arithmetic type: an integer of bits bits, or a floating type.
type cType struct {
	name   string
	bits   int
	signed bool
	float  bool
}

var (
	tInt    = cType{"int", 32, true, false}
	tUint   = cType{"unsigned int", 32, false, false}
	tLong   = cType{"long", 64, true, false}
	tULong  = cType{"unsigned long", 64, false, false}
	tDouble = cType{"double", 64, true, true}
	tFloat  = cType{"float", 32, true, true}
	// tLongDouble is x87's extended type (80 bits in 16 bytes on x86-64).
	tLongDouble = cType{"long double", 128, true, true}
	tChar       = cType{"char", 8, true, false}
	// tBool is C++'s bool, what its comparisons give.
	tBool = cType{"bool", 8, false, false}
)

// rank is C's integer conversion rank, by the type's name.
func (t cType) rank() int {
	switch t.name {
	case "char", "signed char", "unsigned char", "_Bool":
		return 1
	case "short", "unsigned short":
		return 2
	case "int", "unsigned int":
		return 3
	case "long", "unsigned long":
		return 4
	case "long long", "unsigned long long":
		return 5
	}
	return 3 // an enum, as its compatible int
}

// known reports whether t was set (the zero cType is not a type).
func (t cType) known() bool { return t.bits != 0 }

// promote is C's integer promotion: what is narrower than int becomes int.
func promote(t cType) cType {
	if !t.known() {
		return tInt
	}
	if !t.float && t.rank() < tInt.rank() {
		return tInt
	}
	return t
}

// usual is C's usual arithmetic conversion of two operand types to one.
func usual(a, b cType) cType {
	if a.float || b.float { // the wider floating operand's type: float + int is float
		w := tFloat
		for _, c := range []cType{a, b} {
			if c.float && c.bits > w.bits {
				w = c
			}
		}
		return w
	}
	a, b = promote(a), promote(b)
	switch {
	case a == b:
		return a
	case a.signed == b.signed:
		if a.rank() >= b.rank() {
			return a
		}
		return b
	}
	u, s := a, b
	if a.signed {
		u, s = b, a
	}
	switch {
	case u.rank() >= s.rank():
		return u
	case s.bits > u.bits:
		return s
	}
	return cType{"unsigned " + s.name, s.bits, false, false}
}

// intType is the C type of an integer of the program: its own name when it is one of C's,
// otherwise by its size and signedness; wide is the width of long on the target.
func intType(name string, size int, signed bool, longBits int) cType {
	t := cType{name: name, bits: 8 * size, signed: signed}
	if t.rankKnown() {
		return t
	}
	switch {
	case size == 1 && signed:
		t.name = "signed char"
	case size == 1:
		t.name = "unsigned char"
	case size == 2 && signed:
		t.name = "short"
	case size == 2:
		t.name = "unsigned short"
	case size == 4 && signed:
		t.name = "int"
	case size == 4:
		t.name = "unsigned int"
	case size == 8 && signed && longBits == 64:
		t.name = "long"
	case size == 8 && longBits == 64:
		t.name = "unsigned long"
	case signed:
		t.name = "long long"
	default:
		t.name = "unsigned long long"
	}
	return t
}

func (t cType) rankKnown() bool {
	switch t.name {
	case "char", "signed char", "unsigned char", "short", "unsigned short", "int", "unsigned int",
		"long", "unsigned long", "long long", "unsigned long long":
		return true
	}
	return false
}

// literalType is the type C gives an integer constant: the first of int, (unsigned int for
// hex and octal,) long, unsigned long that holds it, as its u and l suffixes allow.
func literalType(n uint64, decimal, unsigned, long bool) cType {
	switch {
	case !unsigned && !long && n <= math.MaxInt32:
		return tInt
	case !long && n <= math.MaxUint32 && (unsigned || !decimal):
		return tUint
	case !unsigned && n <= math.MaxInt64:
		return tLong
	}
	return tULong
}

// to converts v to type t: a float or an integer of t's width, wrapped as C wraps it.
func (v arithOperand) to(t cType) arithOperand {
	out := arithOperand{ct: t, isPtr: v.isPtr}
	switch {
	case t.float:
		out.kind, out.f = "float", v.float()
		if t.bits == 32 {
			out.f = float64(float32(out.f))
		}
		return out
	case v.kind == "float":
		if t.signed {
			out.i = int64(v.f)
		} else {
			out.i = int64(uint64(v.f))
		}
	case v.kind == "uint":
		out.i = int64(v.u)
	default:
		out.i = v.i
	}
	return out.wrap()
}

// wrap keeps an integer's low ct.bits bits, sign-extended for a signed type, and sets its
// kind.
func (v arithOperand) wrap() arithOperand {
	bits := uint(v.ct.bits)
	if bits == 0 || bits > 64 {
		bits = 64
	}
	raw := uint64(v.i)
	if v.kind == "uint" {
		raw = v.u
	}
	if bits < 64 {
		raw &= 1<<bits - 1
	}
	if v.ct.signed {
		shift := 64 - bits
		v.kind, v.i, v.u = "int", int64(raw<<shift)>>shift, 0
	} else {
		v.kind, v.u, v.i = "uint", raw, 0
	}
	return v
}

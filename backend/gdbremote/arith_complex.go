package gdbremote

// C99's complex numbers in expressions, as gdb computes them: + - * / and == != with a
// complex operand (the other, a real number, taken as one with no imaginary part), each
// part of the result of the wider floating type among the operands': z + 1 is 2.5 + 2i.

import (
	"errors"
	"math"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// complexOperand is the complex value o of the program (float or double parts) as a
// number; false for another value.
func (p *arithParser) complexOperand(o elfsym.Value) (arithOperand, bool) {
	if o.Kind != "complex" {
		return arithOperand{}, false
	}
	switch half := len(o.Bytes) / 2; half {
	case 4:
		re := math.Float32frombits(uint32(Uint(o.Bytes[:4], p.e.t.order)))
		im := math.Float32frombits(uint32(Uint(o.Bytes[4:], p.e.t.order)))
		return arithOperand{kind: "complex", f: float64(re), im: float64(im), ct: cType{o.Type, 32, true, true}}, true
	case 8:
		re := math.Float64frombits(Uint(o.Bytes[:8], p.e.t.order))
		im := math.Float64frombits(Uint(o.Bytes[8:], p.e.t.order))
		return arithOperand{kind: "complex", f: re, im: im, ct: cType{o.Type, 64, true, true}}, true
	}
	return arithOperand{}, false
}

// complexArith is l op r when either is complex. The result is of the complex operand's
// type, or, when a real operand's floating type is wider, of gdb's "double complex".
func complexArith(op string, l, r arithOperand) (arithOperand, error) {
	var t cType // the result's: its parts' width, its name
	for _, v := range []arithOperand{l, r} {
		switch {
		case v.kind == "complex" && v.ct.bits > t.bits:
			t = v.ct
		case v.kind == "float" && v.ct.bits > t.bits:
			t = cType{v.ct.name + " complex", v.ct.bits, true, true}
		}
	}
	if t.bits > 64 {
		return l, errors.New("complex arithmetic on long double is not done here")
	}
	a, b := complex(l.realPart(), l.im), complex(r.realPart(), r.im)
	z, ok := fieldOp(op, a, b)
	switch op {
	case "==", "!=":
		if l.kind != r.kind || l.ct != r.ct { // gdb's words for complex double == complex float
			return l, errors.New("Invalid type combination in equality test.")
		}
		return bool01((a == b) == (op == "==")), nil
	case "<", "<=", ">", ">=":
		return l, errors.New("Invalid type combination in ordering comparison.") // gdb's
	}
	if !ok {
		return l, errors.New("Argument to complex arithmetic operation not supported.") // gdb's
	}
	out := arithOperand{kind: "complex", f: real(z), im: imag(z), ct: t}
	if t.bits == 32 {
		out.f, out.im = float64(float32(out.f)), float64(float32(out.im))
	}
	return out, nil
}

// realPart is a number's real part: its value, or a complex number's real part.
func (v arithOperand) realPart() float64 {
	if v.kind == "complex" {
		return v.f
	}
	return v.float()
}

// complexValue is a complex result as the evaluator's values are: 2.5 + 2i, of type
// complex double.
func (v arithOperand) complexValue(name string) elfsym.Value {
	format, bits := elfsym.Double, math.Float64bits
	text := elfsym.FloatText(format, 0, bits(v.f)) + " + " + elfsym.FloatText(format, 0, bits(v.im)) + "i"
	if v.ct.bits == 32 {
		text = elfsym.FloatText(elfsym.Single, 0, uint64(math.Float32bits(float32(v.f)))) + " + " +
			elfsym.FloatText(elfsym.Single, 0, uint64(math.Float32bits(float32(v.im)))) + "i"
	}
	return elfsym.Value{Name: name, Type: v.ct.name, Kind: "complex", Text: text}
}

// complexBytes are the bytes of the complex number expr gives, in a complex type of
// size bytes (its parts converted to its floating type), as set var stores one.
func (t *Target) complexBytes(fr *elfsym.Frame, size int, expr string) ([]byte, error) {
	op, p, err := runArith(&evaluator{t: t, fr: fr}, expr, false)
	if err != nil {
		return nil, err
	}
	n, err := p.number(op)
	if err != nil {
		return nil, err
	}
	re, im := n.realPart(), n.im
	switch size {
	case 8:
		return append(t.numberBytes(uint64(math.Float32bits(float32(re))), 4), t.numberBytes(uint64(math.Float32bits(float32(im))), 4)...), nil
	case 16:
		return append(t.numberBytes(math.Float64bits(re), 8), t.numberBytes(math.Float64bits(im), 8)...), nil
	}
	return nil, errors.New("Invalid cast.")
}

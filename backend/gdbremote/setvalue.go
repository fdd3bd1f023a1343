package gdbremote

// The value of `set var X = VALUE` and `return VALUE`: a C literal, or any expression the
// evaluator reads (i + 1, F_READ | F_EXEC, 'a' + 1, (int)f, sizeof s, a call), as gdb
// allows.

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// valueText turns a value expression into a literal Store can encode: the number the
// expression's value is, computed by the C evaluator (arith.go) in frame fr (an
// enumerator's, a char's, a pointer's address, a bool's 0 or 1, a float's digits).
func (t *Target) valueText(fr *elfsym.Frame, expr string) (string, error) {
	op, p, err := runArith(&evaluator{t: t, fr: fr}, expr, false)
	if err != nil {
		return "", err
	}
	n, err := p.number(op)
	if err != nil {
		return "", err
	}
	switch n.kind {
	case "float":
		return strconv.FormatFloat(n.f, 'g', -1, 64), nil
	case "uint":
		return strconv.FormatUint(n.u, 10), nil
	}
	return strconv.FormatInt(n.i, 10), nil
}

// wholeBytes are the bytes a whole struct, union or array of type typ is set to by expr,
// as gdb assigns one: another of its type (s = t, grid[0] = grid[1], r = make_rect(1, 2),
// a convenience variable holding one), or a number of its very size (u = 3 of a union of
// an int); anything else is gdb's Invalid cast.
func (t *Target) wholeBytes(fr *elfsym.Frame, typ dwarf.Type, expr string) ([]byte, error) {
	op, p, err := runArith(&evaluator{t: t, fr: fr}, expr, false)
	if err != nil {
		return nil, err
	}
	size := int(typ.Size())
	op = op.referred()
	if o := op.obj; o != nil && (o.Kind == "struct" || o.Kind == "union" || o.Kind == "array" || o.Kind == "memberptr") {
		same := elfsym.TypeName(elfsym.Underlying(o.DWARFType())) == elfsym.TypeName(elfsym.Underlying(typ))
		if o.Kind == "array" { // an array of another element type of one size, as gdb copies it
			_, same = elfsym.Underlying(typ).(*dwarf.ArrayType)
		}
		if !same || len(o.Bytes) != size {
			return nil, errors.New("Invalid cast.")
		}
		return o.Bytes, nil
	}
	n, err := p.number(op)
	if err != nil {
		return nil, err
	}
	bits := n.ct.bits
	if bits == 0 {
		bits = 32 // an int literal's
	}
	if bits/8 != size {
		return nil, errors.New("Invalid cast.")
	}
	switch {
	case n.kind == "float" && bits == 32:
		return t.numberBytes(uint64(math.Float32bits(float32(n.f))), size), nil
	case n.kind == "float" && bits == 64:
		return t.numberBytes(math.Float64bits(n.f), size), nil
	case n.kind == "float":
		return nil, errors.New("Invalid cast.")
	case n.kind == "uint":
		return t.numberBytes(n.u, size), nil
	}
	return t.numberBytes(uint64(n.i), size), nil
}

// numberBytes is the low size bytes of u in the target's byte order.
func (t *Target) numberBytes(u uint64, size int) []byte {
	b := make([]byte, 8)
	t.order.PutUint64(b, u)
	if t.order == binary.BigEndian {
		return b[8-size:]
	}
	return b[:size]
}

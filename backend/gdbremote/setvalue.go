package gdbremote

// The value of `set var X = VALUE` and `return VALUE`: a C literal, or any expression the
// evaluator reads (i + 1, F_READ | F_EXEC, 'a' + 1, (int)f, sizeof s, a call), as gdb
// allows.

import (
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

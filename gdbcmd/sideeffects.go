package gdbcmd

import (
	"regexp"
	"strings"
)

// gdb's print and call run what an expression does, not only what it is worth: an
// assignment (x = 5, x += 2, $i = 3, $rax = 0) changes the variable, register or
// convenience variable and is worth the new value; x++ and x-- change it and are worth the
// old one, ++x and --x the new one. A function call runs the function (Evaluate, not pure).

// incDec matches an increment or a decrement of an lvalue, before or after it.
var incDec = regexp.MustCompile(`^(\+\+|--)?\s*([A-Za-z_$][\w$]*(?:(?:\.|->)[A-Za-z_]\w*|\[[^\]]*\])*)\s*(\+\+|--)?$`)

// compoundOps are the operators of a compound assignment (x += 2), as cutAssign leaves
// them at the end of the left side.
var compoundOps = []string{"<<", ">>", "+", "-", "*", "/", "%", "&", "|", "^"}

// sideEffect is what expr does before its value is read: lvalue gets rhs (an expression of
// its old value for x += 2 and x++), and the value shown is lvalue's after it (before it,
// old, for x++). ok is false for an expression without one.
type sideEffect struct {
	lvalue, rhs string
	old         bool
}

// parseSideEffect finds an assignment, increment or decrement at the top of expr.
func parseSideEffect(expr string) (sideEffect, bool) {
	e := strings.TrimSpace(expr)
	if m := incDec.FindStringSubmatch(e); m != nil && (m[1] == "") != (m[3] == "") {
		op := m[1] + m[3]
		return sideEffect{lvalue: m[2], rhs: "(" + m[2] + ") " + op[:1] + " 1", old: m[3] != ""}, true
	}
	lhs, rhs, ok := cutAssign(e)
	if !ok {
		return sideEffect{}, false
	}
	for _, op := range compoundOps {
		if l, found := strings.CutSuffix(lhs, op); found {
			l = strings.TrimSpace(l)
			return sideEffect{lvalue: l, rhs: "(" + l + ") " + op + " (" + rhs + ")"}, l != ""
		}
	}
	return sideEffect{lvalue: lhs, rhs: rhs}, true
}

// apply makes the side effect: a variable through set var, a register or a convenience
// variable through set $NAME. It reports whether it was made (the reason said if not).
func (d *Debugger) apply(se sideEffect) bool {
	var err error
	if name, ok := strings.CutPrefix(se.lvalue, "$"); ok {
		err = d.setDollar(name, se.rhs)
	} else {
		var rhs string
		if rhs, err = d.values.Substitute(se.rhs); err == nil {
			_, err = d.s.SetVariable(d.frame, 0, se.lvalue, rhs)
		}
	}
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	return true
}

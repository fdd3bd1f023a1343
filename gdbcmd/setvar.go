package gdbcmd

// gdb's `set var X = V` (through the engine's SetVariable), and `info args` apart from
// `info locals`.

import (
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdSetVar sets a variable through the engine (`set var X = V`, `set variable X = V`, or
// `set X = V` as gdb allows); registers and settings go on to cmdSet.
func cmdSetVar(d *Debugger, args string) bool {
	rest := args
	explicit := false
	if w, _, _ := strings.Cut(args, " "); w == "args" || w == "environment" || w == "env" || w == "substitute-path" {
		return cmdSet(d, args) // settings whose value may hold an "=": set env X=1
	}
	if w, tail, _ := strings.Cut(args, " "); w == "var" || w == "variable" {
		rest, explicit = strings.TrimSpace(tail), true
	}
	lhs, rhs, ok := cutAssign(rest)
	if ok && historyRef(lhs) && historyPlace(lhs) == lhs { // $1 = ...: gdb's history is not assigned to
		d.fail("Left operand of assignment is not a modifiable lvalue.\n")
		return false
	}
	lhs = historyPlace(lhs)
	if !ok || (!explicit && strings.HasPrefix(lhs, "$")) {
		if explicit {
			d.setVarExpression(rest, lhs)
			return false
		}
		return cmdSet(d, args)
	}
	rhs, err := d.values.Substitute(rhs)
	if err == nil {
		_, err = d.s.SetVariable(d.frame, 0, lhs, rhs)
	}
	if err != nil {
		d.fail("%s\n", explain(err))
	}
	return false
}

// historyRef reports whether expr starts with a history value's name: $, $N, $$ or $$N.
func historyRef(expr string) bool {
	rest, ok := strings.CutPrefix(expr, "$")
	if !ok {
		return false
	}
	rest = strings.TrimPrefix(rest, "$")
	rest = strings.TrimLeft(rest, "0123456789")
	return rest == "" || strings.IndexByte(".[- ", rest[0]) >= 0
}

// historyPlace is lvalue as gdb assigns to it: a member or element of a history value
// ($1.lo.x) is where that value was read from (*&($1.lo.x)); any other lvalue is itself.
func historyPlace(lvalue string) string {
	if historyRef(lvalue) && strings.ContainsAny(lvalue, ".[-") {
		return "*&(" + lvalue + ")"
	}
	return lvalue
}

// setVarExpression is set var of what is not "X = V", as gdb runs it: "X =" is a syntax
// error, ++X and X-- change X, anything else is evaluated after gdb's warning.
func (d *Debugger) setVarExpression(expr, lhs string) {
	switch {
	case strings.TrimSpace(expr) == "":
		d.fail("Argument required (expression to compute).\n")
		return
	case lhs != "": // an assignment without its value
		d.fail("A syntax error in expression, near `'.\n")
		return
	}
	if se, ok := parseSideEffect(expr); ok { // ++s, s--
		d.apply(se)
		return
	}
	d.printf("warning: Expression is not an assignment (and might have no effect)\n")
	if _, err := d.eval(expr, false); err != nil {
		d.fail("%s\n", explain(err))
	}
}

// cutAssign splits "X = V" at its assignment (not at ==, <=, >= or !=).
func cutAssign(s string) (lhs, rhs string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = engine.QuotedEnd(s, i) - 1
		case '=':
			if i+1 < len(s) && s[i+1] == '=' || i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0 {
				i++
				continue
			}
			lhs, rhs = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
			return lhs, rhs, lhs != "" && rhs != ""
		}
	}
	return "", "", false
}

// showLocals lists the frame's parameters (args) or its other locals, by engine.Variable.Arg.
func (d *Debugger) showLocals(args bool) {
	if d.notStarted("No frame selected.") {
		return
	}
	vars, ok := d.scopeVariables("Locals")
	if !ok {
		return
	}
	n := 0
	for _, v := range vars {
		if v.Arg == args && (args || !v.ConstantBytes) { // (gdb lists no local whose value is constant bytes)
			d.printf("%s = %s\n", v.Name, d.layout(v.Value))
			n++
		}
	}
	if n == 0 && args {
		d.printf("No arguments.\n")
	} else if n == 0 {
		d.printf("No locals.\n")
	}
}

package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// Presentation of values as gdb does it: the value history ($1, $2, $, $$, $$N) and the
// print formats (/x /d /u /o /t /c). The engine evaluates; this file only rewrites the
// expression text before and the printed value after.

// substituteHistory replaces the value-history references in expr by the values they
// name, in parentheses: `$` (the last value), `$$` (the one before), `$$N` (N back) and
// `$N` (value N). `$name` (a register or convenience variable) and text inside quotes are
// left alone.
func (d *Debugger) substituteHistory(expr string) (string, error) {
	if !strings.Contains(expr, "$") {
		return expr, nil
	}
	var b strings.Builder
	for i := 0; i < len(expr); {
		c := expr[i]
		if c == '"' || c == '\'' { // copy a quoted string or char as it is
			j := engine.QuotedEnd(expr, i)
			b.WriteString(expr[i:j])
			i = j
			continue
		}
		if c != '$' {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		back := false
		if j < len(expr) && expr[j] == '$' {
			back, j = true, j+1
		}
		k := j
		for k < len(expr) && expr[k] >= '0' && expr[k] <= '9' {
			k++
		}
		if !back && k == j && k < len(expr) && isIdentByte(expr[k]) { // $rax, $pc
			b.WriteByte(c)
			i++
			continue
		}
		n := -1
		if k > j {
			n, _ = strconv.Atoi(expr[j:k])
		}
		v, err := d.historyValue(back, n)
		if err != nil {
			return "", err
		}
		b.WriteString("(" + v.Value + ")")
		i = k
	}
	return b.String(), nil
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// historyValue finds $N (back=false, n>=1), $ (n<0), $$ (back, n<0) or $$N.
func (d *Debugger) historyValue(back bool, n int) (engine.Variable, error) {
	last := len(d.values)
	idx := n
	switch {
	case !back && n < 0:
		idx = last
	case back && n < 0:
		idx = last - 1
	case back:
		idx = last - n
	}
	switch {
	case last == 0:
		return engine.Variable{}, fmt.Errorf("History is empty.")
	case idx > last:
		return engine.Variable{}, fmt.Errorf("History has not yet reached $%d.", idx)
	case idx < 1:
		return engine.Variable{}, fmt.Errorf("History does not go back to $%d (it starts at $1).", idx)
	}
	return d.values[idx-1], nil
}

// record adds a value to the history and returns its number.
func (d *Debugger) record(v engine.Variable) int {
	d.values = append(d.values, v)
	return len(d.values)
}

// splitFormat takes a leading /F off print's arguments.
func splitFormat(args string) (format byte, rest string, err error) {
	if !strings.HasPrefix(args, "/") {
		return 0, args, nil
	}
	spec, rest, _ := strings.Cut(args[1:], " ")
	if len(spec) != 1 || !engine.ValidFormat(spec[0]) {
		return 0, "", fmt.Errorf("Undefined output format %q (x, d, u, o, t or c).", spec)
	}
	return spec[0], strings.TrimSpace(rest), nil
}

func cmdPrint(d *Debugger, args string) bool { d.evaluate(args, true); return false }
func cmdCall(d *Debugger, args string) bool  { d.evaluate(args, false); return false }

func (d *Debugger) evaluate(args string, pure bool) {
	format, expr, err := splitFormat(args)
	if err != nil {
		d.printf("%v\n", err)
		return
	}
	if expr == "" {
		if len(d.values) == 0 { // gdb: a bare print shows the last value again
			d.printf("Argument required (expression to evaluate).\n")
			return
		}
		expr = "$"
	}
	v, err := d.eval(expr, pure)
	if err != nil {
		d.printf("%s\n", explain(err))
		return
	}
	d.printf("$%d = %s\n", d.record(v), d.s.FormatValue(v, format))
}

// eval evaluates an expression in the selected frame after substituting history values.
func (d *Debugger) eval(expr string, pure bool) (engine.Variable, error) {
	expr, err := d.substituteHistory(expr)
	if err != nil {
		return engine.Variable{}, err
	}
	return d.s.Evaluate(d.frame, expr, engine.EvalMode{Pure: pure})
}

// cmdWhatis prints an expression's type; ptype also lists the fields of a struct or union.
func cmdWhatis(d *Debugger, args string) bool { d.showType(args, false); return false }
func cmdPtype(d *Debugger, args string) bool  { d.showType(args, true); return false }

func (d *Debugger) showType(expr string, expand bool) {
	if expr == "" {
		d.printf("Argument required (an expression).\n")
		return
	}
	v, err := d.eval(expr, true)
	if err != nil {
		d.printf("%s\n", explain(err))
		return
	}
	typ := v.Type
	if typ == "" {
		typ = "unknown"
	}
	aggregate := strings.HasPrefix(typ, "struct") || strings.HasPrefix(typ, "union")
	if !expand || !aggregate || v.Ref == 0 {
		d.printf("type = %s\n", typ)
		return
	}
	kids, err := d.s.Variables(v.Ref)
	if err != nil {
		d.printf("type = %s\n", typ)
		return
	}
	d.printf("type = %s {\n", typ)
	for _, k := range kids {
		d.printf("    %s %s;\n", k.Type, k.Name)
	}
	d.printf("}\n")
}

func cmdShow(d *Debugger, args string) bool {
	what, _, _ := strings.Cut(args, " ")
	switch {
	case what != "" && strings.HasPrefix("values", what):
		for i := max(0, len(d.values)-10); i < len(d.values); i++ {
			d.printf("$%d = %s\n", i+1, d.values[i].Value)
		}
	case what != "" && strings.HasPrefix("context", what):
		d.printf("The context display after each stop is %s.\n", onOff(d.context))
	case what != "" && strings.HasPrefix("listsize", what):
		d.printf("Number of source lines to list is %d.\n", d.listSize())
	default:
		d.printf("show values|context|listsize\n")
	}
	return false
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

package cli

// gdb's `set var X = V`, `info args` apart from `info locals`, and print/FMT of a C struct
// or array member by member (each at its own width). Hooked into the command table in
// place of the plain set, info and print handlers, which get what this file does not do.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdSetVar sets a variable through the engine (`set var X = V`, `set variable X = V`, or
// `set X = V` as gdb allows); registers and settings go on to cmdSet.
func cmdSetVar(d *Debugger, args string) bool {
	rest := args
	explicit := false
	if w, tail, _ := strings.Cut(args, " "); w == "var" || w == "variable" {
		rest, explicit = strings.TrimSpace(tail), true
	}
	lhs, rhs, ok := cutAssign(rest)
	if !ok || (!explicit && strings.HasPrefix(lhs, "$")) {
		if explicit {
			d.printf("Usage: set var VARIABLE = VALUE\n")
			return false
		}
		return cmdSet(d, args)
	}
	rhs, err := d.substituteHistory(rhs)
	if err == nil {
		_, err = d.s.SetVariable(d.frame, 0, lhs, rhs)
	}
	if err != nil {
		d.printf("%s\n", explain(err))
	}
	return false
}

// cutAssign splits "X = V" at its assignment (not at ==, <=, >= or !=).
func cutAssign(s string) (lhs, rhs string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			i = quotedEnd(s, i) - 1
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

// cmdInfoVars shows `info args` (the frame's parameters) and `info locals` (its other
// variables) as gdb does; the other info commands go on to cmdInfo.
func cmdInfoVars(d *Debugger, args string) bool {
	what, _, _ := strings.Cut(args, " ")
	switch {
	case what != "" && strings.HasPrefix("locals", what):
		d.showLocals(false)
	case what != "" && strings.HasPrefix("args", what):
		d.showLocals(true)
	default:
		return cmdInfo(d, args)
	}
	return false
}

// showLocals lists the frame's parameters (args) or its other locals, by engine.Variable.Arg.
func (d *Debugger) showLocals(args bool) {
	scopes, err := d.s.Scopes(d.frame)
	if err != nil {
		d.printf("%s\n", explain(err))
		return
	}
	for _, sc := range scopes {
		if sc.Name != "Locals" {
			continue
		}
		vars, err := d.s.Variables(sc.Ref)
		if err != nil {
			d.printf("%s\n", explain(err))
			return
		}
		n := 0
		for _, v := range vars {
			if v.Arg == args {
				d.printf("%s = %s\n", v.Name, v.Value)
				n++
			}
		}
		if n == 0 && args {
			d.printf("No arguments.\n")
		} else if n == 0 {
			d.printf("No locals.\n")
		}
		return
	}
	d.printf("No symbol table info available.\n")
}

// cmdPrintMembers is print: with a format, a C struct, union or array is printed member by
// member, each at the width of its own type (gdb's print/x); the rest is cmdPrint's.
func cmdPrintMembers(d *Debugger, args string) bool {
	format, expr, err := splitFormat(args)
	if err != nil || format == 0 || expr == "" || !d.cTypes() {
		return cmdPrint(d, args)
	}
	v, err := d.eval(expr, true)
	if err != nil {
		d.printf("%s\n", explain(err))
		return false
	}
	text := leafFormat(v, format)
	if aggregate(v) {
		text = d.formatMembers(v, format, 0)
	}
	d.printf("$%d = %s\n", d.record(v), text)
	return false
}

// aggregate reports whether v is a C struct, union or array (not a pointer to one).
func aggregate(v engine.Variable) bool {
	t := strings.TrimSpace(v.Type)
	if v.Ref == 0 || strings.HasSuffix(t, "*") {
		return false
	}
	return strings.HasPrefix(t, "struct") || strings.HasPrefix(t, "union") || strings.HasSuffix(t, "]")
}

// formatMembers formats a struct ({a = 0x7, b = 0xfffd}) or an array ({0x1, 0x2}) from its
// children, each in format at its own type's width.
func (d *Debugger) formatMembers(v engine.Variable, format byte, depth int) string {
	kids, err := d.s.Variables(v.Ref)
	if err != nil || depth > 8 {
		return formatValue(v, format, true)
	}
	array := strings.HasSuffix(v.Type, "]")
	parts := make([]string, 0, len(kids)+1)
	for _, k := range kids {
		var text string
		if aggregate(k) {
			text = d.formatMembers(k, format, depth+1)
		} else {
			text = leafFormat(k, format)
		}
		if !array {
			text = k.Name + " = " + text
		}
		parts = append(parts, text)
	}
	if array && v.Len > len(kids) {
		parts = append(parts, "...")
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// leafFormat formats a C scalar as gdb: a char's 'x' or a char pointer's "string" is
// dropped for the number; /c shows the low byte as a signed number and gdb's character
// literal ('\a', '\375'); /o shows zero as 0.
func leafFormat(v engine.Variable, format byte) string {
	if f := strings.Fields(v.Value); len(f) > 1 && (f[0][0] >= '0' && f[0][0] <= '9' || f[0][0] == '-') {
		v.Value = f[0]
	}
	switch format {
	case 'c':
		n, err := strconv.ParseInt(v.Value, 0, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(v.Value, 0, 64)
			if uerr != nil {
				return v.Value
			}
			n = int64(u)
		}
		return fmt.Sprintf("%d %s", int8(n), gdbChar(byte(n)))
	case 'o':
		if out := formatValue(v, format, true); out != "00" {
			return out
		}
		return "0"
	}
	return formatValue(v, format, true)
}

// gdbChar is a byte as gdb prints a char: itself, a named escape, or an octal one.
func gdbChar(c byte) string {
	named := map[byte]string{7: `\a`, 8: `\b`, 9: `\t`, 10: `\n`, 11: `\v`, 12: `\f`, 13: `\r`, 27: `\033`, '\'': `\'`, '\\': `\\`}
	if e, ok := named[c]; ok {
		return "'" + e + "'"
	}
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf(`'\%03o'`, c)
}

package gdbcmd

// gdb's functions of the debugger's own state, computed here before an expression goes to
// the target: $_gdb_setting("print elements") (a setting's value), $_gdb_setting_str (its
// words), $_as_string(EXPR) (a value's text as a string).

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/cstring"
)

// debuggerFunc finds a call of one of them: its name in group 1.
var debuggerFunc = regexp.MustCompile(`\$_(gdb_setting_str|gdb_setting|as_string)\s*\(`)

// expandDebuggerFuncs replaces each call of those functions in expr by its value, a number
// or a string literal.
func (d *Debugger) expandDebuggerFuncs(expr string) (string, error) {
	for guard := 0; guard < 100; guard++ {
		m := debuggerFunc.FindStringSubmatchIndex(expr)
		if m == nil {
			return expr, nil
		}
		end, ok := closingParen(expr, m[1])
		if !ok {
			return expr, nil // unbalanced: the evaluator says what is wrong
		}
		name, arg := expr[m[2]:m[3]], strings.TrimSpace(expr[m[1]:end])
		var value string
		if name == "as_string" {
			v, err := d.eval(arg, true)
			if err != nil {
				return "", err
			}
			value = cstring.Quote([]byte(v.Value))
		} else {
			var err error
			if value, err = d.settingFunc(name, arg); err != nil {
				return "", err
			}
		}
		expr = expr[:m[0]] + value + expr[end+1:]
	}
	return expr, nil
}

// closingParen is the index of the ")" that closes the "(" before from, outside string and
// character literals.
func closingParen(s string, from int) (int, bool) {
	depth := 1
	for i := from; i < len(s); i++ {
		switch s[i] {
		case '"', '\'':
			q := s[i]
			for i++; i < len(s) && s[i] != q; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// settingFunc is $_gdb_setting(arg) (number: a number, on 1, off 0, unlimited 0; words
// otherwise) or $_gdb_setting_str(arg) (the words show says), as a C literal.
func (d *Debugger) settingFunc(name, arg string) (string, error) {
	if len(arg) < 2 || arg[0] != '"' || arg[len(arg)-1] != '"' {
		return "", fmt.Errorf("First argument of $_%s must be a string.", name)
	}
	words, num, isNum, ok := d.settingValue(cstring.Unescape(arg[1 : len(arg)-1]))
	switch {
	case !ok:
		return "", fmt.Errorf("First argument of $_%s must be a valid setting of the 'show' command.", name)
	case name == "gdb_setting" && isNum:
		return strconv.Itoa(num), nil
	}
	return cstring.Quote([]byte(words)), nil
}

// settingValue is a setting named as show names it (abbreviated as gdb allows): its words,
// and for a number or on/off setting its number.
func (d *Debugger) settingValue(setting string) (words string, num int, isNum, ok bool) {
	f := strings.Fields(setting)
	is := func(i int, full string, min int) bool {
		return i < len(f) && len(f[i]) >= min && strings.HasPrefix(full, f[i])
	}
	limit := func(n int) (string, int, bool, bool) {
		if n == 0 {
			return "unlimited", 0, true, true
		}
		return strconv.Itoa(n), n, true, true
	}
	onOffNum := func(on bool) (string, int, bool, bool) {
		if on {
			return "on", 1, true, true
		}
		return "off", 0, true, true
	}
	switch {
	case len(f) == 2 && (is(0, "print", 1)):
		switch {
		case is(1, "elements", 2):
			return limit(d.limits.Elements)
		case is(1, "repeats", 2):
			return limit(d.limits.Repeats)
		case is(1, "pretty", 2):
			return onOffNum(d.pretty)
		case is(1, "object", 2):
			return onOffNum(d.limits.Object)
		case is(1, "array-indexes", 7):
			return onOffNum(d.limits.ArrayIndexes)
		case is(1, "null-stop", 2):
			return onOffNum(d.limits.NullStop)
		}
	case len(f) != 1:
	case is(0, "listsize", 5):
		return limit(d.listSize())
	case is(0, "confirm", 4):
		return onOffNum(!d.settings.noConfirm)
	case is(0, "pagination", 4):
		return onOffNum(!d.settings.noPagination)
	case is(0, "height", 3):
		return limit(d.settings.height)
	case is(0, "width", 3):
		return limit(d.settings.width)
	case is(0, "verbose", 4):
		return onOffNum(d.settings.verbose)
	case is(0, "disassembly-flavor", 5):
		if d.settings.intel {
			return "intel", 0, false, true
		}
		return "att", 0, false, true
	}
	return "", 0, false, false
}

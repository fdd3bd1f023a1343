package cli

// gdb's commands for text of one's own: echo, output and printf.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdEcho is gdb's echo: the text with C escapes (\n, \t, \\, \"), and no newline of its own.
func cmdEcho(d *Debugger, args string) bool {
	d.printf("%s", unescapeC(args))
	return false
}

// cmdOutput is gdb's output: an expression's value alone, with no $N and no newline.
func cmdOutput(d *Debugger, args string) bool {
	format, expr, err := splitFormat(args)
	if err == nil && expr == "" {
		err = fmt.Errorf("Argument required (expression to compute).")
	}
	if err != nil {
		d.printf("%v\n", err)
		return false
	}
	v, err := d.eval(expr, true)
	if err != nil {
		d.printf("%s\n", explain(err))
		return false
	}
	d.printf("%s", d.s.FormatValue(v, format))
	return false
}

// cmdPrintf is gdb's printf "FORMAT", ARGS...: C's conversions (%d %i %u %x %X %o %c %s %f
// %e %g %p %%, with flags, widths, precisions and length modifiers) of the values of the
// arguments, evaluated in the selected frame.
func cmdPrintf(d *Debugger, args string) bool {
	text, err := d.sprintf(args)
	if err != nil {
		d.printf("%v\n", err)
		return false
	}
	d.printf("%s", text)
	return false
}

func (d *Debugger) sprintf(args string) (string, error) {
	args = strings.TrimSpace(args)
	if !strings.HasPrefix(args, `"`) {
		return "", fmt.Errorf("Bad format string")
	}
	end := 1
	for end < len(args) && args[end] != '"' {
		if args[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(args) {
		return "", fmt.Errorf("Bad format string, non-terminated '\"'")
	}
	format := unescapeC(args[1:end])
	var exprs []string
	if rest := strings.TrimSpace(args[end+1:]); rest != "" {
		if !strings.HasPrefix(rest, ",") {
			return "", fmt.Errorf("Invalid argument syntax")
		}
		exprs = splitArgs(rest[1:])
	}
	var out strings.Builder
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			out.WriteByte(format[i])
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.", format[j]) >= 0 {
			j++
		}
		spec := format[i:j]
		for j < len(format) && strings.IndexByte("hlLqjzt", format[j]) >= 0 {
			j++ // length modifiers: Go's verbs take any width of integer
		}
		if j >= len(format) {
			return "", fmt.Errorf("Bad format string")
		}
		verb := format[j]
		i = j
		if verb == '%' {
			out.WriteByte('%')
			continue
		}
		if n >= len(exprs) {
			return "", fmt.Errorf("Wrong number of arguments for specified format-string")
		}
		var v engine.Variable
		var err error
		if e := exprs[n]; len(e) >= 2 && e[0] == '"' && e[len(e)-1] == '"' {
			v.Value = e // a string literal, which C expressions on native targets do not take
		} else if v, err = d.eval(e, true); err != nil {
			return "", fmt.Errorf("%s", explain(err))
		}
		n++
		s, err := convert(spec, verb, v)
		if err != nil {
			return "", err
		}
		out.WriteString(s)
	}
	if n < len(exprs) {
		return "", fmt.Errorf("Wrong number of arguments for specified format-string")
	}
	return out.String(), nil
}

// convert formats one value for a printf conversion (spec is "%" with its flags, width and
// precision).
func convert(spec string, verb byte, v engine.Variable) (string, error) {
	text := strings.TrimSpace(v.Value)
	switch verb {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c':
		n, err := integerOf(text)
		if err != nil {
			return "", fmt.Errorf("Value can't be converted to integer: %s", text)
		}
		switch verb {
		case 'i':
			verb = 'd'
		case 'u':
			return fmt.Sprintf(spec+"d", uint64(n)), nil
		case 'c':
			return fmt.Sprintf(spec+"c", rune(byte(n))), nil
		case 'x', 'X', 'o':
			return fmt.Sprintf(spec+string(verb), uint64(n)), nil
		}
		return fmt.Sprintf(spec+string(verb), n), nil
	case 'f', 'F', 'e', 'E', 'g', 'G':
		f, err := strconv.ParseFloat(strings.Fields(text + " ")[0], 64)
		if err != nil {
			n, ierr := integerOf(text)
			if ierr != nil {
				return "", fmt.Errorf("Value can't be converted to float: %s", text)
			}
			f = float64(n)
		}
		if verb == 'F' {
			verb = 'f'
		}
		return fmt.Sprintf(spec+string(verb), f), nil
	case 's':
		return fmt.Sprintf(spec+"s", stringOf(text)), nil
	case 'p':
		n, err := integerOf(text)
		if err != nil {
			return "", fmt.Errorf("Value can't be converted to integer: %s", text)
		}
		return fmt.Sprintf(spec+"s", "0x"+strconv.FormatUint(uint64(n), 16)), nil
	}
	return "", fmt.Errorf("Unrecognized format specifier '%c' in printf", verb)
}

// integerOf reads the number a value's text starts with: 42, -3, 0x10, 65 'A', true.
func integerOf(text string) (int64, error) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return 0, strconv.ErrSyntax
	}
	switch f[0] {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	if n, err := strconv.ParseInt(f[0], 0, 64); err == nil {
		return n, nil
	}
	u, err := strconv.ParseUint(f[0], 0, 64)
	return int64(u), err
}

// stringOf is the text of a string value: a Kite string ("..."), or the string a C char
// pointer or array shows (0x... "...").
func stringOf(text string) string {
	if i := strings.IndexByte(text, '"'); i >= 0 {
		if s, err := strconv.Unquote(text[i:]); err == nil {
			return s
		}
		if j := strings.LastIndexByte(text, '"'); j > i {
			return unescapeC(text[i+1 : j])
		}
	}
	return text
}

// splitArgs splits printf's arguments at the commas outside parentheses, brackets and
// quotes.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// unescapeC replaces C's escapes in s: \n \t \r \a \b \f \v \e \\ \" \' and octal \NNN.
func unescapeC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(0x1b)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				n = n*8 + int(s[j]-'0')
				j++
			}
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e) // \\ \" \' and anything else: the character itself
		}
	}
	return b.String()
}

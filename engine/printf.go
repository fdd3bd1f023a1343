package engine

// gdb's printf over a program's values, for the terminal's printf and for dprintf, a
// breakpoint that prints that way instead of stopping (BreakpointSpec.LogFormat).

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/cstring"
)

// Sprintf formats as gdb's printf command takes its arguments, `"FORMAT", ARG...`: the
// format's C escapes (\n, \t, \NNN...) are replaced, and each conversion (%d %i %u %x %X
// %o %c %s %f %e %g %p %%, with flags, width, precision and length modifiers) takes the
// value of the next argument, evaluated by eval, which returns the value's text as the
// target prints it. A quoted argument ("text") is its own value.
func Sprintf(call string, eval func(expr string) (string, error)) (string, error) {
	parts, err := printfCall(call)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for _, p := range parts {
		if !p.expr {
			out.WriteString(p.text)
			continue
		}
		text, err := argumentText(p.text, eval)
		if err != nil {
			return "", err
		}
		s, err := convert(p.spec, p.verb, text)
		if err != nil {
			return "", err
		}
		out.WriteString(s)
	}
	return out.String(), nil
}

// argumentText is the text of printf's argument expr: a string literal's own, or the value
// eval finds.
func argumentText(expr string, eval func(string) (string, error)) (string, error) {
	if quotedArgument(expr) {
		return expr, nil
	}
	return eval(expr)
}

// quotedArgument reports whether a printf argument is a string literal, which is its own
// value (C expressions on native targets take none).
func quotedArgument(expr string) bool {
	return len(expr) >= 2 && expr[0] == '"' && expr[len(expr)-1] == '"'
}

// printfCall reads `"FORMAT", ARG...` into the parts of its message.
func printfCall(call string) ([]logPart, error) {
	call = strings.TrimSpace(call)
	if !strings.HasPrefix(call, `"`) {
		return nil, fmt.Errorf("Bad format string")
	}
	end := 1
	for end < len(call) && call[end] != '"' {
		if call[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(call) {
		return nil, fmt.Errorf("Bad format string, non-terminated '\"'")
	}
	var args []string
	if rest := strings.TrimSpace(call[end+1:]); rest != "" {
		if !strings.HasPrefix(rest, ",") {
			return nil, fmt.Errorf("Invalid argument syntax")
		}
		args = splitArgs(rest[1:])
	}
	return printfParts(cstring.Unescape(call[1:end]), args)
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

// printfParts splits format into its literal text and its conversions, each with the
// argument it prints: the parts of a dprintf's message, as log messages have.
func printfParts(format string, args []string) ([]logPart, error) {
	var parts []logPart
	var lit strings.Builder
	n := 0
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			lit.WriteByte(format[i])
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
			return nil, fmt.Errorf("Bad format string")
		}
		verb := format[j]
		i = j
		if verb == '%' {
			lit.WriteByte('%')
			continue
		}
		if !strings.ContainsRune("diuxXocfFeEgGsp", rune(verb)) {
			return nil, fmt.Errorf("Unrecognized format specifier '%c' in printf", verb)
		}
		if n >= len(args) {
			return nil, fmt.Errorf("Wrong number of arguments for specified format-string")
		}
		if lit.Len() > 0 {
			parts = append(parts, logPart{text: lit.String()})
			lit.Reset()
		}
		parts = append(parts, logPart{text: args[n], expr: true, spec: spec, verb: verb})
		n++
	}
	if n < len(args) {
		return nil, fmt.Errorf("Wrong number of arguments for specified format-string")
	}
	if lit.Len() > 0 {
		parts = append(parts, logPart{text: lit.String()})
	}
	return parts, nil
}

// convert formats a value's text for one conversion (spec is "%" with its flags, width and
// precision).
func convert(spec string, verb byte, text string) (string, error) {
	text = strings.TrimSpace(text)
	switch verb {
	case 'd', 'i', 'u', 'x', 'X', 'o', 'c':
		n, ok := IntegerOf(text)
		if !ok {
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
			if n == 0 { // C's %#x of zero is 0, not 0x0
				spec = strings.ReplaceAll(spec, "#", "")
			}
			return fmt.Sprintf(spec+string(verb), uint64(n)), nil
		}
		return fmt.Sprintf(spec+string(verb), n), nil
	case 'f', 'F', 'e', 'E', 'g', 'G':
		first, _, _ := strings.Cut(text, " ")
		f, err := strconv.ParseFloat(first, 64)
		if err != nil {
			n, ok := IntegerOf(text)
			if !ok {
				return "", fmt.Errorf("Value can't be converted to float: %s", text)
			}
			f = float64(n)
		}
		if verb == 'F' {
			verb = 'f'
		}
		return fmt.Sprintf(spec+string(verb), f), nil
	case 's':
		str := stringOf(text)
		if i := strings.IndexByte(str, 0); i >= 0 { // C's %s ends at the string's NUL (a char array's padding)
			str = str[:i]
		}
		return fmt.Sprintf(spec+"s", str), nil
	case 'p':
		n, ok := IntegerOf(text)
		if !ok {
			return "", fmt.Errorf("Value can't be converted to integer: %s", text)
		}
		return fmt.Sprintf(spec+"s", "0x"+strconv.FormatUint(uint64(n), 16)), nil
	}
	return "", fmt.Errorf("Unrecognized format specifier '%c' in printf", verb)
}

// IntegerOf reads the number a value's text starts with, as the target prints it: 42, -3,
// 0x10 (a pointer), 65 'A' (a C char), true.
func IntegerOf(text string) (int64, bool) {
	f := strings.Fields(text)
	if len(f) == 0 {
		return 0, false
	}
	switch f[0] {
	case "true":
		return 1, true
	case "false":
		return 0, true
	}
	return parseInteger(f[0])
}

// stringOf is the text of a string value: a Kite string ("..."), or the string a C char
// pointer or array shows (0x... "...").
func stringOf(text string) string {
	if i := strings.IndexByte(text, '"'); i >= 0 {
		if s, err := strconv.Unquote(text[i:]); err == nil {
			return s
		}
		if j := strings.LastIndexByte(text, '"'); j > i {
			return cstring.Unescape(text[i+1 : j])
		}
	}
	return text
}

package engine

import (
	"errors"
	"testing"
)

// Sprintf takes gdb's printf arguments: C's conversions of values as the target prints
// them, C escapes in the format, and gdb's errors.
func TestSprintf(t *testing.T) {
	values := map[string]string{
		"n": "42", "neg": "-3", "p": "0x7ffc10", "c": "65 'A'", "s": `0x4020 "hi there"`,
		"k": `"kite\tstr"`, "f": "2.5", "yes": "true", "zero": "0", "f(1, 2)": "3", "a[\"x,y\"]": "7",
	}
	eval := func(expr string) (string, error) {
		if v, ok := values[expr]; ok {
			return v, nil
		}
		return "", errors.New("No symbol \"" + expr + "\" in current context.")
	}
	for call, want := range map[string]string{
		`"%d|%i|%u|%x|%X|%o\n", n, neg, n, n, n, n`: "42|-3|42|2a|2A|52\n",
		`"<%5d|%-4d|%05.1f|%e>", n, n, f, f`:        "<   42|42  |002.5|2.500000e+00>",
		`"%c%c|%s|%s|%p|%lu|%%", c, n, s, k, p, n`:  "A*|hi there|kite\tstr|0x7ffc10|42|%",
		`"%d %s\t\101\\", yes, "lit, eral"`:         "1 lit, eral\tA\\",
		`"%#x|%#o|%#x", zero, zero, n`:              "0|0|0x2a",
		`"%d %d", f(1, 2), a["x,y"]`:                "3 7",
		`"%d", s`:                                   "16416", // a char pointer's address, as gdb prints it
		`"no conversions"`:                          "no conversions",
	} {
		got, err := Sprintf(call, eval)
		if err != nil || got != want {
			t.Errorf("Sprintf(%s) = %q, %v; want %q", call, got, err, want)
		}
	}
	for call, want := range map[string]string{
		`n`:            "Bad format string",
		`"abc`:         `Bad format string, non-terminated '"'`,
		`"%d" n`:       "Invalid argument syntax",
		`"%d %d", n`:   "Wrong number of arguments for specified format-string",
		`"%d", n, n`:   "Wrong number of arguments for specified format-string",
		`"%y", n`:      "Unrecognized format specifier 'y' in printf",
		`"%5"`:         "Bad format string",
		`"%f", k`:      `Value can't be converted to float: "kite\tstr"`,
		`"%d", nosuch`: `No symbol "nosuch" in current context.`,
	} {
		if got, err := Sprintf(call, eval); err == nil || err.Error() != want {
			t.Errorf("Sprintf(%s) = %q, %v; want the error %q", call, got, err, want)
		}
	}
}

// FuzzSprintf: any printf argument text gets a string or one of gdb's errors, never a
// panic; an argument's value is the expression itself, so conversions see all kinds of text.
func FuzzSprintf(f *testing.F) {
	for _, seed := range []string{
		`"%d|%5.2f|%c|%s|%x|%lu|%-4d|%o|%%\n", n, s->scale, tag, "lit", mask, sizeof(*s), i, n`,
		`"%#x %#o %p %e %g %i %u %X", 0, 0, 0x10, 2.5, 1e9, -3, -1, 255`,
		`"\101\t\e\\\"%s", "a, b"`,
		`"%`, `"%5`, `"\`, `"abc`, `"%d" n`, `"%d",`, `"%d", f(a, (b), [c]), d`, `"%y", 1`,
		`"%s", 0x4020 "hi \"there\""`, `"%c", 65 'A'`, `"%d", true`, ``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, call string) {
		out, err := Sprintf(call, func(expr string) (string, error) { return expr, nil })
		if err != nil && out != "" {
			t.Errorf("Sprintf(%q) = %q and the error %v", call, out, err)
		}
		_, _ = printfCall(call)
	})
}

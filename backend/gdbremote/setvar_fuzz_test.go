package gdbremote

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePathAndArith(t *testing.T) {
	for in, want := range map[string][]string{
		"x": {"x"}, "p.f.g": {"p", "f", "g"}, "p->f": {"p", "*", "f"}, "*p": {"p", "*"},
		"(*q).w": {"q", "*", "w"}, "a[ 0x2 ][1]": {"a", "[2]", "[1]"}, "**pp": {"pp", "*", "*"},
		"(s).a[3]": {"s", "a", "[3]"},
	} {
		if got, err := parsePath(in); err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parsePath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "1", "a +", "a[x]", "a[-1]", "(a", "p->", "f(x)", "a.", "a[1"} {
		if got, err := parsePath(bad); err == nil {
			t.Errorf("parsePath(%q) = %q, want an error", bad, got)
		}
	}
	vars := func(tok string) (string, error) {
		if tok == "x" || tok == "*p" || tok == "s.f" {
			return "5", nil
		}
		if tok == "c" {
			return "97 'a'", nil
		}
		return "", errNotArith
	}
	for in, want := range map[string]string{
		"x + 1": "6", "-x * 2": "-10", "(x + 1) / 4": "1", "c - 'a' + 1": "1", "x % 3": "2",
		"*p * *p": "25", "s.f - -1": "6", "1.5 * 2": "3", "x / 2.0": "2.5", "0x10 + 1": "17",
	} {
		if got, err := arithText(in, vars); err != nil || got != want {
			t.Errorf("arithText(%q) = %q, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"x / 0", "1 +", "(1", "1.5 % 2", "y + 1", "1 2"} {
		if got, err := arithText(bad, vars); err == nil {
			t.Errorf("arithText(%q) = %q, want an error", bad, got)
		}
	}
}

// FuzzSetVarExpressions: the lvalue and value parsers of set var never panic or loop, and
// a parsed lvalue names a variable first.
func FuzzSetVarExpressions(f *testing.F) {
	for _, s := range [][2]string{
		{"p->f.g[2]", "x * (y + 1) - 'a'"}, {"(*q).w", "-(n + 'a' % 10) * 3"}, {"**pp", "1.5e3 / -x"},
		{"a[0x10]", "((((1))))"}, {"*(p)", "'\\n' + '\\x41'"}, {"x", "--x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, lvalue, value string) {
		if len(lvalue) > 1000 || len(value) > 1000 {
			return
		}
		if path, err := parsePath(lvalue); err == nil {
			if len(path) == 0 || path[0] == "" || strings.ContainsAny(path[0], "*[]().") {
				t.Fatalf("parsePath(%q) = %q", lvalue, path)
			}
		}
		hasOperator(value)
		_, _ = arithText(value, func(string) (string, error) { return "3", nil })
	})
}

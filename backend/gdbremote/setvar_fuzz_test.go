package gdbremote

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePath(t *testing.T) {
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
}

// FuzzSetVarExpressions: the lvalue and value parsers of set var never panic or loop (the
// value's is the evaluator's), and
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
		_ = checkArith(value)
	})
}

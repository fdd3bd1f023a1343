package gdbcmd

import "testing"

// gdb's regular expressions are POSIX basic ones: what each matches as gdb's does.
func TestCompileBRE(t *testing.T) {
	for _, tt := range []struct {
		expr        string
		match, miss []string
	}{
		{"long|short", []string{"long|short"}, []string{"long", "short"}},
		{`^\(long\|short\)$`, []string{"long", "short"}, []string{"long long", "(long"}},
		{"^(long)", []string{"(long)"}, []string{"long"}},
		{"a+b?", []string{"a+b?"}, []string{"ab", "aab"}},
		{`a\+b`, []string{"ab", "aaab"}, []string{"a+b"}},
		{"x{2}", []string{"x{2}"}, []string{"xx"}},
		{`x\{2\}`, []string{"xx"}, []string{"x{2}"}},
		{"*ptr", []string{"*ptr"}, []string{"ptr"}},
		{"^*p", []string{"*p"}, []string{"p"}},
		{"ab*", []string{"a", "abbb"}, []string{"b"}},
		{`[]a]x`, []string{"]x", "ax"}, []string{"bx"}},
		{`[^]a]x`, []string{"bx"}, []string{"ax", "]x"}},
		{`[[:digit:]]+`, []string{"1+"}, []string{"12"}},
		{`[\]`, []string{`\`}, []string{"a"}},
		{`\<int\>`, []string{"int", "unsigned int"}, []string{"uint8"}},
		{`a\.c`, []string{"a.c"}, []string{"abc"}},
		{"", []string{"anything"}, nil},
	} {
		re, err := compileBRE(tt.expr)
		if err != nil {
			t.Errorf("%q: %v", tt.expr, err)
			continue
		}
		for _, s := range tt.match {
			if !re.MatchString(s) {
				t.Errorf("%q (as %q) does not match %q", tt.expr, re, s)
			}
		}
		for _, s := range tt.miss {
			if re.MatchString(s) {
				t.Errorf("%q (as %q) matches %q", tt.expr, re, s)
			}
		}
	}
	for _, bad := range []string{"[", "[a", `\(`, "[[:alpha:"} {
		if _, err := compileBRE(bad); err == nil {
			t.Errorf("%q compiled", bad)
		}
	}
}

// FuzzCompileBRE: no expression panics.
func FuzzCompileBRE(f *testing.F) {
	for _, s := range []string{"a|b", `\(a\|b\)`, "[]x]", "[[:a", `\`, "*", "^*", `[\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) { _, _ = compileBRE(expr) })
}

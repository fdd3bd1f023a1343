package gdbremote

import (
	"strings"
	"testing"
)

// evalConst evaluates an expression without names (no program needed).
func evalConst(expr string) (string, error) {
	v, err := (&evaluator{}).arith(expr)
	return v.Text, err
}

// C's arithmetic on constants: precedence, associativity, integer and float division,
// unsigned wrap-around, shifts, bit operators, short-circuit conditions, literals.
func TestArithConstants(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"1 + 2 * 3", "7"}, {"(1 + 2) * 3", "9"}, {"10 - 4 - 3", "3"}, {"100 / 10 / 5", "2"},
		{"7 / 2", "3"}, {"-7 / 2", "-3"}, {"-7 % 3", "-1"}, {"7.0 / 2", "3.5"}, {"1 / 2.0", "0.5"},
		{"1 << 4 | 1", "17"}, {"0xff & ~0xf", "240"}, {"6 ^ 3", "5"}, {"-1 >> 1", "-1"},
		{"0u - 1", "4294967295"}, {"0ul - 1", "18446744073709551615"}, {"1ul << 63", "9223372036854775808"},
		{"2147483647 + 1", "-2147483648"}, {"-1 < 1u", "0"}, {"7 / 2.0f", "3.5"}, // C's types, as gdb
		{"3 > 2 == 1", "1"}, {"1 < 2 && 2 < 3", "1"}, {"0 && 1 / 0", "0"}, {"1 || 1 / 0", "1"},
		{"!5", "0"}, {"!0 + 1", "2"}, {"-(-3)", "3"}, {"+4", "4"}, {"~0", "-1"},
		{"0x10 + 010 + 0b11", "27"}, {"'a'", "97"}, {"'\\n' + 0", "10"}, {"1e3 + 0.5", "1000.5"},
		{"2.5f * 2", "5"}, {"10L * 3UL", "30"}, {".5 + 1", "1.5"},
	} {
		got, err := evalConst(c.expr)
		if err != nil || got != c.want {
			t.Errorf("%s = %s, %v; want %s", c.expr, got, err, c.want)
		}
	}
	for _, c := range []struct{ expr, want string }{
		{"1 / 0", "Division by zero"}, {"5 % 0", "Division by zero"}, {"(1 + 2", "A syntax error in expression, near `'."},
		{"1 +", "A syntax error in expression, near `'."}, {"2 = 3", "A syntax error in expression, near `3'."}, {"1.5 % 2", "Integer-only operation"},
		{"'a", "unterminated"}, {"09", "invalid number"}, {"*3", "non-pointer"}, {"&3", "not located in memory"},
		{"1 2", "A syntax error in expression, near `2'."}, {"(1) + 2)", "Junk after end of expression."}, {"1 # 2", "Invalid character '#' in expression."}, {"3[1]", "cannot subscript something of type `int'"}, {"(1).x", "not a structure"},
	} {
		if _, err := evalConst(c.expr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.expr, err, c.want)
		}
	}
}

// FuzzArith: any text is parsed and evaluated (names are only parsed: skip mode, no program)
// without a panic or a hang, and an expression without names gives a value or an error.
func FuzzArith(f *testing.F) {
	for _, s := range []string{"1 + 2 * 3", "a->b.c[i + 1] * -2", "(x > 3 && !y) || z", "~0u >> 3",
		"'\\x41' + 1.5e3", "$rax & 0xff", "*p + &q", "((((", "1 ? 2 : 3", "a[", "s->", "0x", "1e+", "'",
		"(unsigned char)300", "sizeof(struct s *) + sizeof x", "xs[1]@3", "(char *)p - (char *)q", "(int)", "sizeof", "1@2", "a ? b", "? :", "1 ? 2 : 3 ? 4 : 5", "(a ? b : c)[d ? e : f]",
		"(int (*)(char, long))0", "(char (*)[4])x", "(int (,))1", "(int (()))1", "(int (*)(int (*)(int)))f"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks, err := lexArith(s)
		if err != nil {
			return
		}
		named := false
		for _, tk := range toks {
			named = named || tk[0] == '$' || isIdent(tk)
		}
		if _, p, err := runArith(&evaluator{}, s, named); p != nil && p.pos > len(p.toks)+1 {
			t.Fatalf("%q: read past the end (%d of %d tokens): %v", s, p.pos, len(p.toks), err)
		}
	})
}

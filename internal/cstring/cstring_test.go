package cstring

import (
	"testing"
)

// Strings are written as gdb writes them: escapes, runs as repeats, the elements limit,
// a wide string's prefix once.
func TestUnitsText(t *testing.T) {
	units := func(s string, wide bool) []uint32 { // a char string's bytes, a wide one's runes
		var u []uint32
		if !wide {
			for i := range len(s) {
				u = append(u, uint32(s[i]))
			}
			return u
		}
		for _, r := range s {
			u = append(u, uint32(r))
		}
		return u
	}
	for _, c := range []struct {
		in, prefix   string
		more         bool
		max, repeats int
		want         string
	}{
		{"hi\n", "", false, 200, 10, `"hi\n"`},
		{"", "", false, 200, 10, `""`},
		{"", "L", false, 200, 10, `L""`},
		{"xaaaaaaaaaaaay", "", false, 200, 10, `"x", 'a' <repeats 12 times>, "y"`},
		{"aaaaaaaaaaaab", "L", false, 200, 10, `L'a' <repeats 12 times>, "b"`},
		{"abcdef", "", false, 3, 10, `"abc"...`},
		{"abc", "u", true, 200, 10, `u"abc"...`},
		{"é\x00", "U", false, 200, 10, `U"é\000"`},
		{"\x01\xff", "", false, 200, 10, `"\001\377"`},
	} {
		if got := UnitsText(units(c.in, c.prefix != ""), c.prefix, c.more, c.max, c.repeats); got != c.want {
			t.Errorf("UnitsText(%q, %q) = %s, want %s", c.in, c.prefix, got, c.want)
		}
	}
	for c, want := range map[byte]string{'a': "'a'", 0: `'\000'`, '\n': `'\n'`, '\'': `'\''`, 0xc8: `'\310'`} {
		if got := CharLit(c); got != want {
			t.Errorf("CharLit(%#x) = %s, want %s", c, got, want)
		}
	}
	if got := UnitLit("L", 0x4e2d); got != "L'中'" {
		t.Errorf("UnitLit(L, 0x4e2d) = %s", got)
	}
	if got := EscapeUnits([]uint32{0x110000}, true); got != `\x110000` {
		t.Errorf("EscapeUnits of no rune = %s", got)
	}
}

// FuzzEscapeUnescape: any bytes escaped read back as themselves, and any text unescapes
// without a panic.
func FuzzEscapeUnescape(f *testing.F) {
	for _, s := range []string{"hi\n", `\310\0`, "\x00\x01\xff", `a\"b`, `\x41\`, "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = Unescape(s)
		if got := Unescape(Escape([]byte(s))); got != s {
			t.Fatalf("Unescape(Escape(%q)) = %q", s, got)
		}
		_ = UnitsText([]uint32{uint32(len(s)), 0, 0x10ffff}, "L", len(s)%2 == 0, len(s)+1, 1)
	})
}

// C's named escapes are written by name; a UTF-8 character as itself where the host's
// character set is UTF-8, else byte by byte in octal, as gdb's follows the locale.
func TestEscapeNamesAndUTF8(t *testing.T) {
	defer func(was bool) { hostUTF8 = was }(hostUTF8)
	for _, utf := range []bool{true, false} {
		hostUTF8 = utf
		want := `q\"\\ \a\b\f\r\v\t\n \033 é \303`
		if !utf {
			want = `q\"\\ \a\b\f\r\v\t\n \033 \303\251 \303`
		}
		if got := Escape([]byte("q\"\\ \a\b\f\r\v\t\n \x1b é \xc3")); got != want {
			t.Errorf("UTF-8 host %v: Escape = %s, want %s", utf, got, want)
		}
	}
	if got := CharLit('\\'); got != `'\\'` {
		t.Errorf("CharLit(backslash) = %s", got)
	}
	if got := CharLit('\a'); got != `'\a'` {
		t.Errorf("CharLit(bell) = %s", got)
	}
}

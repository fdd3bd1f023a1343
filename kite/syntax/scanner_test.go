package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// scanAll returns the tokens of src as "KIND" or "KIND:lit" words, and the errors.
func scanAll(src string) (string, []string) {
	var errs []string
	s := newScanner([]byte(src), func(pos Pos, msg string) {
		errs = append(errs, fmt.Sprintf("%s: %s", pos, msg))
	})
	var words []string
	for i := 0; i < 10000; i++ {
		t := s.scan()
		w := t.tok.String()
		switch t.tok {
		case IDENT, INT, FLOAT, STRING, STRING_HEAD, STRING_MID, STRING_TAIL, ILLEGAL:
			w += ":" + t.lit
		case NEWLINE:
			w = ";"
			if t.lit == "" {
				w = ";EOF"
			}
		}
		words = append(words, w)
		if t.tok == EOF {
			break
		}
	}
	return strings.Join(words, " "), errs
}

func TestScanTokens(t *testing.T) {
	tests := []struct{ src, want string }{
		{"", "end of file"},
		{"x", "identifier:x ;EOF end of file"},
		{"x\n", "identifier:x ; end of file"},
		{"let x = 1\n", "let identifier:x = int literal:1 ; end of file"},
		{"a+=1-=2*=3/=4%=5", "identifier:a += int literal:1 -= int literal:2 *= int literal:3 /= int literal:4 %= int literal:5 ;EOF end of file"},
		{"== != < <= > >= = + - * / %", "== != < <= > >= = + - * / % end of file"},
		{"( ) [ ] { } , . : ;", "( ) [ ] { } , . : ; end of file"},
		// Newlines end statements only after some tokens.
		{"a +\nb", "identifier:a + identifier:b ;EOF end of file"},
		{"f(\n)\n", "identifier:f ( ) ; end of file"},
		{"xs[0]\n}\n", "identifier:xs [ int literal:0 ] ; } ; end of file"},
		{"break\ncontinue\nreturn\ntrue\nfalse\nnil\n", "break ; continue ; return ; true ; false ; nil ; end of file"},
		{"1\n2.5\n\"s\"\n", "int literal:1 ; float literal:2.5 ; string literal:\"s\" ; end of file"},
		{"let\nif\nfn\n{\n(\n[\n,\n", "let if fn { ( [ , end of file"},
		{"\n\n\nx\n\n\n", "identifier:x ; end of file"},
		// Comments.
		{"x // comment\ny", "identifier:x ; identifier:y ;EOF end of file"},
		{"// only a comment", "end of file"},
		{"x = 1 // c", "identifier:x = int literal:1 ;EOF end of file"},
		{"a / b // c / d", "identifier:a / identifier:b ;EOF end of file"},
		{"a //\n+ b", "identifier:a ; + identifier:b ;EOF end of file"},
		// Keywords and identifiers.
		{"let const fn if else while for in break continue return true false nil and or not",
			"let const fn if else while for in break continue return true false nil and or not end of file"},
		{"_x x1 letter iffy élan 日本", "identifier:_x identifier:x1 identifier:letter identifier:iffy identifier:élan identifier:日本 ;EOF end of file"},
		// Numbers.
		{"12 0x1f 0X1F 1_000 3.5 1e9 1E+9 2.5e-3 0 0.5 0x_ff", "int literal:12 int literal:0x1f int literal:0X1F int literal:1_000 float literal:3.5 float literal:1e9 float literal:1E+9 float literal:2.5e-3 int literal:0 float literal:0.5 int literal:0x_ff ;EOF end of file"},
		{"1.foo", "int literal:1 . identifier:foo ;EOF end of file"},
		{"1.5.2", "float literal:1.5 . int literal:2 ;EOF end of file"},
		{"x[0].y", "identifier:x [ int literal:0 ] . identifier:y ;EOF end of file"},
		{"0x1e+5", "int literal:0x1e + int literal:5 ;EOF end of file"},
		// Strings and interpolation.
		{`"a\n\"b\""`, `string literal:"a\n\"b\"" ;EOF end of file`},
		{`"a${x}b"`, `string literal:"a${ identifier:x }:}b" ;EOF end of file`},
		{`"${x}${y}"`, `string literal:"${ identifier:x }:}${ identifier:y }:}" ;EOF end of file`},
		{`"${ {"a":1}["a"] }"`, `string literal:"${ { string literal:"a" : int literal:1 } [ string literal:"a" ] }:}" ;EOF end of file`},
		{`"${"${x}"}"`, `string literal:"${ string literal:"${ identifier:x }:}" }:}" ;EOF end of file`},
		{`"$x $ {x} \${x}"`, `string literal:"$x $ {x} \${x}" ;EOF end of file`},
		{`"${ fn() { return 1 }() }"`, `string literal:"${ fn ( ) { return int literal:1 } ( ) }:}" ;EOF end of file`},
		// Illegal characters.
		{"a @ b", "identifier:a illegal token:@ identifier:b ;EOF end of file"},
		{"\ufeffx", "identifier:x ;EOF end of file"},
	}
	for _, tt := range tests {
		got, errs := scanAll(tt.src)
		if got != tt.want {
			t.Errorf("scan %q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
		if len(errs) > 0 && !strings.Contains(tt.src, "@") {
			t.Errorf("scan %q: unexpected errors %v", tt.src, errs)
		}
	}
}

func TestScanPositions(t *testing.T) {
	src := "let x = 1\n  foo(\"a${b}c\")  // c\n\tz"
	s := newScanner([]byte(src), func(Pos, string) { t.Fatal("error") })
	var got []string
	for {
		tok := s.scan()
		got = append(got, fmt.Sprintf("%s@%s", tok.tok, tok.pos))
		if tok.tok == EOF {
			break
		}
	}
	want := "let@1:1 identifier@1:5 =@1:7 int literal@1:9 newline@1:10 " +
		"identifier@2:3 (@2:6 string literal@2:7 identifier@2:11 }@2:12 )@2:15 newline@2:22 " +
		"identifier@3:2 newline@3:3 end of file@3:3"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("positions:\n got %s\nwant %s", g, want)
	}
}

func TestScanValues(t *testing.T) {
	tests := []struct {
		src  string
		want any
	}{
		{"0", int64(0)},
		{"12", int64(12)},
		{"1_000_000", int64(1000000)},
		{"0x1f", int64(31)},
		{"0XdeadBEEF", int64(0xdeadbeef)},
		{"0x_ff", int64(255)},
		{"9223372036854775807", int64(9223372036854775807)},
		{"0x7fffffffffffffff", int64(9223372036854775807)},
		{"0x8000000000000000", int64(-9223372036854775808)},
		{"0xffffffffffffffff", int64(-1)},
		{"3.5", 3.5},
		{"1e9", 1e9},
		{"1E9", 1e9},
		{"1e+9", 1e9},
		{"2.5e-3", 2.5e-3},
		{"1_0.2_5", 10.25},
		{"007.5", 7.5},
		{"1e-400", 0.0},
		{`""`, ""},
		{`"abc"`, "abc"},
		{`"a\nb\tc\rd\"e\\f\$g"`, "a\nb\tc\rd\"e\\f$g"},
		{`"\u{41}\u{e9}\u{1F600}\u{10FFFF}"`, "Aé😀\U0010FFFF"},
		{`"héllo 日本"`, "héllo 日本"},
		{`"$ $x {}"`, "$ $x {}"},
	}
	for _, tt := range tests {
		s := newScanner([]byte(tt.src), func(pos Pos, msg string) { t.Errorf("%q: %s: %s", tt.src, pos, msg) })
		tok := s.scan()
		if tok.val != tt.want {
			t.Errorf("%q: value %#v, want %#v", tt.src, tok.val, tt.want)
		}
		if tok.lit != tt.src {
			t.Errorf("%q: lit %q", tt.src, tok.lit)
		}
	}
}

func TestScanErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"0x", "1:1: invalid number literal 0x"},
		{"0xg", "1:1: invalid number literal 0xg"},
		{"1_", "1:1: invalid number literal 1_"},
		{"1__0", "1:1: invalid number literal 1__0"},
		{"12ab", "1:1: invalid number literal 12ab"},
		{"1e", "1:1: invalid number literal 1e"},
		{"1e+", "1:1: invalid number literal 1e"},
		{"1.5e", "1:1: invalid number literal 1.5e"},
		{"1.5_", "1:1: invalid number literal 1.5_"},
		{"012", "1:1: invalid number literal 012 (leading zeros are not allowed)"},
		{"9223372036854775808", "1:1: integer literal 9223372036854775808 overflows int64"},
		{"x = 99999999999999999999999", "1:5: integer literal 99999999999999999999999 overflows int64"},
		{"0x1_0000_0000_0000_0000", "1:1: integer literal 0x1_0000_0000_0000_0000 does not fit in 64 bits"},
		{"1e400", "1:1: float literal 1e400 is out of range"},
		{`"abc`, "1:1: unterminated string"},
		{"x = \"abc\ny", "1:5: unterminated string"},
		{`"abc\`, "1:1: unterminated string"},
		{`"a\qb"`, `1:3: invalid escape \q`},
		{`"\é"`, `1:2: invalid escape \é`},
		{`"\u41"`, `1:2: invalid escape \u (write \u{1F600})`},
		{`"\u{}"`, `1:2: invalid unicode escape \u{}`},
		{`"\u{zz}"`, `1:2: invalid unicode escape \u{`},
		{`"\u{41"`, `1:2: invalid unicode escape \u{41`},
		{`"\u{1234567}"`, `1:2: invalid unicode escape \u{1234567}`},
		{`"\u{110000}"`, `1:2: invalid unicode escape \u{110000}: not a valid code point`},
		{`"\u{D800}"`, `1:2: invalid unicode escape \u{D800}: not a valid code point`},
		{"\"a\xffb\"", "1:3: invalid UTF-8 encoding in string"},
		{"\xff", "1:1: invalid UTF-8 encoding"},
		{"a @", "1:3: invalid character '@'"},
		{"a # b", "1:3: invalid character '#'"},
		{"!x", "1:1: invalid character '!' (use 'not')"},
		{"a && b", "1:3: invalid operator && (use 'and')"},
		{"a || b", "1:3: invalid operator || (use 'or')"},
		{"'a'", `1:1: invalid character '\'' (strings are written in double quotes)`},
		{"x€", "1:2: invalid character U+20AC '€'"},
		{"\x00", `1:1: invalid character '\x00'`},
		{`"${x`, "1:5: expected '}' to close '${' opened at 1:2, found end of file"},
		{"\"${x\ny", "1:5: expected '}' to close '${' opened at 1:2, found newline"},
		{`"${"x}`, "1:4: unterminated string (is a '}' missing to close the '${' at 1:2?)"},
	}
	for _, tt := range tests {
		_, errs := scanAll(tt.src)
		if len(errs) == 0 || errs[0] != tt.want {
			t.Errorf("scan %q: errors %q, want first %q", tt.src, errs, tt.want)
		}
	}
}

// Package cstring writes bytes as C string literals, the way gdb prints them, and reads
// C's escapes back.
package cstring

import (
	"fmt"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape escapes bytes for a C string literal as gdb prints them: \" \\ and C's named
// escapes (\n \t \a \b \f \r \v), the printable ASCII characters as they are, a printable
// character encoded in UTF-8 as itself where the host's character set is UTF-8 (as gdb's
// follows the locale), anything else as an octal escape (\310).
func Escape(b []byte) string {
	var sb strings.Builder
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case named[c] != "":
			sb.WriteString(named[c])
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		case c >= 0x80 && hostUTF8:
			if r, n := utf8.DecodeRune(b[i:]); r != utf8.RuneError && unicode.IsPrint(r) {
				sb.Write(b[i : i+n])
				i += n - 1
				continue
			}
			fmt.Fprintf(&sb, "\\%03o", c)
		default:
			fmt.Fprintf(&sb, "\\%03o", c)
		}
	}
	return sb.String()
}

// named are C's named escapes, as gdb writes them.
var named = [256]string{'\n': `\n`, '\t': `\t`, '\a': `\a`, '\b': `\b`, '\f': `\f`, '\r': `\r`, '\v': `\v`}

// hostUTF8 says the locale's character set is UTF-8 (LC_ALL, else LC_CTYPE, else LANG), as
// gdb's host character set follows it.
var hostUTF8 = func() bool {
	for _, name := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := os.Getenv(name); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return false
}()

// Quote is b as a quoted C string: "hi\tthere".
func Quote(b []byte) string { return `"` + Escape(b) + `"` }

// EscapeUnits is Escape of characters of any width: a char string's (wide false) bytes as
// Escape writes them; a wide string's ASCII ones the same, the others as themselves when
// printable, else in hex (\x4e2d).
func EscapeUnits(units []uint32, wide bool) string {
	var b strings.Builder
	var narrow []byte
	for _, u := range units {
		if u < 0x80 || !wide {
			narrow = append(narrow, byte(u))
			continue
		}
		b.WriteString(Escape(narrow))
		narrow = narrow[:0]
		if r := rune(u); u <= unicode.MaxRune && unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\x%x`, u)
		}
	}
	b.WriteString(Escape(narrow))
	return b.String()
}

// Unescape replaces C's escapes in s: \n \t \r \a \b \f \v \e \\ \" \' and octal \NNN;
// a backslash before any other character stands for that character.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
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
			b.WriteByte(e)
		}
	}
	return b.String()
}

// CharLit is one byte as a C character literal, as gdb prints it: 'a', '\000', '\n',
// '\310', a quote escaped.
func CharLit(c byte) string {
	switch {
	case c == '\'' || c == '\\':
		return `'\` + string(rune(c)) + `'`
	case c >= 0x20 && c < 0x7f:
		return "'" + string(rune(c)) + "'"
	case named[c] != "":
		return "'" + named[c] + "'"
	}
	return fmt.Sprintf(`'\%03o'`, c)
}

// UnitLit is one character as a C literal with its prefix: 'A', L'Q', U'\000'.
func UnitLit(prefix string, u uint32) string {
	if u < 0x80 || prefix == "" && u < 0x100 {
		return prefix + CharLit(byte(u))
	}
	return prefix + "'" + EscapeUnits([]uint32{u}, true) + "'"
}

// UnitsText is a string's characters as gdb prints them: quoted after prefix (L, u, U for
// wide ones, written once), a run of more than repeats equal characters as 'a' <repeats
// 12 times>, at most max characters, then "..." (also when more says the string goes on).
func UnitsText(units []uint32, prefix string, more bool, max, repeats int) string {
	var parts []string
	var quoted []uint32
	flush := func() {
		if quoted != nil {
			parts = append(parts, `"`+EscapeUnits(quoted, prefix != "")+`"`)
			quoted = nil
		}
	}
	i := 0
	for i < len(units) && i < max {
		j := i
		for j < len(units) && units[j] == units[i] {
			j++
		}
		if j-i > repeats {
			flush()
			parts = append(parts, fmt.Sprintf("%s <repeats %d times>", UnitLit("", units[i]), j-i))
		} else {
			quoted = append(quoted, units[i:j]...)
		}
		i = j
	}
	flush()
	text := prefix + strings.Join(parts, ", ") // (a wide string's L once, at its start, as gdb's)
	if len(parts) == 0 {
		text = prefix + `""`
	}
	if i < len(units) || more {
		text += "..."
	}
	return text
}

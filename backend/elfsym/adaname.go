package elfsym

// How gdb shows a symbol-table name. gdb gives every minimal symbol the language whose
// decoder changes its name, and Ada's (GNAT's encoding) comes last: a name that decodes
// as Ada is shown decoded, whatever language the program is in. So a C function's static
// variable count.0 is count, GCC's clone x.part.0 is x.part, its cold part y.cold is
// y[cold], and a lowercase name with "__" in it (x__y) is x.y. A name that does not
// decode (it starts with '_' or '<', or keeps an uppercase letter) is as it is.

import "strings"

// gdbSymbolName is name as gdb shows a symbol of that name (ada_decode where it applies).
func gdbSymbolName(name string) string {
	if d, ok := adaDecode(name); ok {
		return d
	}
	return name
}

// adaDecode decodes a GNAT-encoded name as gdb's ada_decode does (operators aside: an
// encoded operator keeps its uppercase 'O' and so does not decode); ok is false when name
// is not such a name or decodes to itself.
func adaDecode(enc string) (string, bool) {
	if enc == "" || enc[0] == '_' || enc[0] == '<' {
		return "", false
	}
	n := len(enc)
	suffix := ""
	// a compiler's suffix (.cold): kept, in brackets
	if i := n - 1; i > 0 && isAlpha(enc[i]) {
		for i > 0 && isAlpha(enc[i]) {
			i--
		}
		if i > 0 && enc[i] == '.' {
			suffix, n = enc[i+1:], i
		}
	}
	n = trailingDigits(enc, n)
	if n > 1 && enc[n-1] == 'N' && (isDigit(enc[n-2]) || isLower(enc[n-2])) {
		n-- // a protected subprogram's N
	}
	if p := strings.Index(enc, "___"); p >= 0 && p < n-3 {
		if enc[p+3] != 'X' {
			return "", false
		}
		n = p
	}
	for _, s := range []string{"TKB", "TB", "B"} {
		if n > len(s) && enc[n-len(s):n] == s {
			n -= len(s)
			break
		}
	}
	if n > 1 && isDigit(enc[n-1]) { // __{digits}+ or ${digits}+
		i := n - 2
		for i >= 0 && isDigit(enc[i]) || i >= 1 && enc[i] == '_' && isDigit(enc[i-1]) {
			i--
		}
		if i > 1 && enc[i] == '_' && enc[i-1] == '_' {
			n = i - 1
		} else if i >= 0 && enc[i] == '$' {
			n = i
		}
	}
	var b strings.Builder
	i := 0
	for ; i < n && !isAlpha(enc[i]); i++ {
		b.WriteByte(enc[i])
	}
	for i < n {
		if i < n-4 && strings.HasPrefix(enc[i:], "TK__") {
			i += 2
		}
		if n-i > 5 && strings.HasPrefix(enc[i:], "__B_") && isDigit(enc[i+4]) {
			k := i + 5
			for k < n && isDigit(enc[k]) {
				k++
			}
			if k < n-1 && enc[k] == '_' && enc[k+1] == '_' {
				i = k
			}
		}
		switch {
		case enc[i] == 'X' && i != 0 && isAlnum(enc[i-1]):
			for i++; i < n && (enc[i] == 'b' || enc[i] == 'n'); i++ {
			}
			if i < n {
				return "", false
			}
		case i < n-2 && enc[i] == '_' && enc[i+1] == '_':
			b.WriteByte('.')
			i += 2
		default:
			b.WriteByte(enc[i])
			i++
		}
	}
	dec := b.String()
	if dec == "" || strings.ContainsFunc(dec, func(r rune) bool { return r >= 'A' && r <= 'Z' || r == ' ' }) {
		return "", false
	}
	if suffix != "" {
		dec += "[" + suffix + "]"
	}
	return dec, dec != enc
}

// trailingDigits is n without a trailing .{digits}, ${digits}, ___{digits} or __{digits}.
func trailingDigits(enc string, n int) int {
	if n <= 1 || !isDigit(enc[n-1]) {
		return n
	}
	i := n - 2
	for i > 0 && isDigit(enc[i]) {
		i--
	}
	switch {
	case i >= 0 && (enc[i] == '.' || enc[i] == '$'):
		return i
	case i >= 2 && enc[i-2:i+1] == "___":
		return i - 2
	case i >= 1 && enc[i-1:i+1] == "__":
		return i - 1
	}
	return n
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

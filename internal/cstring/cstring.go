// Package cstring writes bytes as C string literals, the way gdb prints them.
package cstring

import (
	"fmt"
	"strings"
)

// Escape escapes bytes for a C string literal as gdb prints them: \" \\ \n \t, the
// printable ASCII characters as they are, anything else as an octal escape (\310).
func Escape(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "\\%03o", c)
		}
	}
	return sb.String()
}

// Quote is b as a quoted C string: "hi\tthere".
func Quote(b []byte) string { return `"` + Escape(b) + `"` }

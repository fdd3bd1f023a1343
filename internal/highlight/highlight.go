// Package highlight colours Kite and C source lines for a terminal with ANSI escape codes:
// keywords, strings, numbers and comments. A line is coloured on its own; a C block comment
// that spans lines is coloured on the line that opens it.
package highlight

import (
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/syntax"
)

// The escape codes written around each kind of text.
const (
	Reset   = "\x1b[0m"
	Keyword = "\x1b[35m" // magenta
	String  = "\x1b[32m" // green
	Number  = "\x1b[36m" // cyan
	Comment = "\x1b[90m" // grey
)

var cKeywords = words(`auto break case char const continue default do double else enum extern float for goto if
	inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
	void volatile while _Bool bool true false NULL uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t
	int64_t size_t #include #define #if #ifdef #ifndef #endif #else #elif #pragma`)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func isKiteKeyword(w string) bool { _, ok := syntax.Keywords[w]; return ok }

// Line returns line with colour codes when file names Kite or C source, else line as it is.
func Line(file, line string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".kite":
		return paint(line, isKiteKeyword, false)
	case ".c", ".h", ".cc", ".cpp", ".hpp":
		return paint(line, func(w string) bool { return cKeywords[w] }, true)
	}
	return line
}

func paint(line string, keyword func(string) bool, c bool) string {
	var b strings.Builder
	put := func(code, text string) { b.WriteString(code + text + Reset) }
	for i := 0; i < len(line); {
		ch := line[i]
		switch {
		case strings.HasPrefix(line[i:], "//"):
			put(Comment, line[i:])
			return b.String()
		case c && strings.HasPrefix(line[i:], "/*"):
			j := len(line)
			if end := strings.Index(line[i+2:], "*/"); end >= 0 {
				j = i + 2 + end + 2
			}
			put(Comment, line[i:j])
			i = j
		case ch == '"' || ch == '\'':
			j := engine.QuotedEnd(line, i)
			put(String, line[i:j])
			i = j
		case ch >= '0' && ch <= '9':
			j := i
			for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
				j++
			}
			put(Number, line[i:j])
			i = j
		case isIdentByte(ch) || c && ch == '#':
			j := i + 1
			for j < len(line) && isIdentByte(line[j]) {
				j++
			}
			if keyword(line[i:j]) {
				put(Keyword, line[i:j])
			} else {
				b.WriteString(line[i:j])
			}
			i = j
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String()
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

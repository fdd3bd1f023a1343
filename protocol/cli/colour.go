package cli

import (
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// Syntax colour for Kite and C source lines, written only when Config.Color is set (the
// output is a terminal and NO_COLOR is not): keywords, strings, numbers and comments.
// A line is coloured on its own; a C block comment that spans lines is coloured on the
// line that opens it.

const (
	ansiReset   = "\x1b[0m"
	ansiKeyword = "\x1b[35m"   // magenta
	ansiString  = "\x1b[32m"   // green
	ansiNumber  = "\x1b[36m"   // cyan
	ansiComment = "\x1b[90m"   // grey
	ansiMark    = "\x1b[1;33m" // bold yellow: the current line and breakpoint marks
	ansiRule    = "\x1b[34m"   // blue: the context display's rules
)

// kiteKeywords are kite/syntax.Keywords (a test keeps them equal).
var kiteKeywords = words("let const fn if else while for in break continue return true false nil and or not")

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

// colour returns line with colour codes when the file is Kite or C and colour is on.
func (d *Debugger) colour(file, line string) string {
	if !d.cfg.Color {
		return line
	}
	switch strings.ToLower(filepath.Ext(file)) {
	case ".kite":
		return highlight(line, kiteKeywords, false)
	case ".c", ".h", ".cc", ".cpp", ".hpp":
		return highlight(line, cKeywords, true)
	}
	return line
}

func highlight(line string, keywords map[string]bool, c bool) string {
	var b strings.Builder
	paint := func(code, text string) { b.WriteString(code + text + ansiReset) }
	for i := 0; i < len(line); {
		ch := line[i]
		switch {
		case strings.HasPrefix(line[i:], "//"):
			paint(ansiComment, line[i:])
			return b.String()
		case c && strings.HasPrefix(line[i:], "/*"):
			end := strings.Index(line[i+2:], "*/")
			j := len(line)
			if end >= 0 {
				j = i + 2 + end + 2
			}
			paint(ansiComment, line[i:j])
			i = j
		case ch == '"' || ch == '\'':
			j := engine.QuotedEnd(line, i)
			paint(ansiString, line[i:j])
			i = j
		case ch >= '0' && ch <= '9':
			j := i
			for j < len(line) && (isIdentByte(line[j]) || line[j] == '.') {
				j++
			}
			paint(ansiNumber, line[i:j])
			i = j
		case isIdentByte(ch) || c && ch == '#':
			j := i + 1
			for j < len(line) && isIdentByte(line[j]) {
				j++
			}
			if keywords[line[i:j]] {
				paint(ansiKeyword, line[i:j])
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

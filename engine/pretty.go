package engine

import (
	"regexp"
	"strings"
)

// gdb's set print pretty: a struct's members one per line, indented by depth, arrays of
// scalars kept on one line. It rewrites a value as print shows it, changing only its
// layout.

// prettyItem is one member or element of a braced value: text before a nested value,
// the nested value's items (nil when there is none) and text after it.
type prettyItem struct {
	prefix string
	sub    []prettyItem
	nested bool
	suffix string
}

// memberName starts a struct member: "x = ".
var memberName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]* = `)

// PrettyValue lays out a value as gdb's print pretty does; text that is not a braced
// value, or that it cannot read, comes back as it is.
func PrettyValue(text string) string {
	if !strings.Contains(text, "{") {
		return text
	}
	item, rest, ok := parsePrettyItem(text, false)
	if !ok || rest != "" {
		return text
	}
	var b strings.Builder
	writePrettyItem(&b, item, 0)
	return b.String()
}

// parsePrettyItem reads one item up to a top-level ',' or '}' (inside a group) or the end,
// and returns what follows it.
func parsePrettyItem(s string, inGroup bool) (prettyItem, string, bool) {
	var it prettyItem
	var text strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			j := skipQuoted(s, i)
			text.WriteString(s[i:j])
			i = j - 1
		case c == '{':
			if it.nested { // a second group in one item: not a value print shows
				return it, "", false
			}
			sub, rest, ok := parsePrettyGroup(s[i+1:])
			if !ok {
				return it, "", false
			}
			it.prefix, it.sub, it.nested = text.String(), sub, true
			text.Reset()
			i = len(s) - len(rest) - 1
		case inGroup && (c == ',' || c == '}'):
			it.finish(text.String())
			return it, s[i:], true
		default:
			text.WriteByte(c)
		}
	}
	it.finish(text.String())
	return it, "", !inGroup
}

func (it *prettyItem) finish(text string) {
	if it.nested {
		it.suffix = text
	} else {
		it.prefix = text
	}
}

// parsePrettyGroup reads the items of a group whose '{' is just before s, and returns what
// follows its '}'.
func parsePrettyGroup(s string) ([]prettyItem, string, bool) {
	items := []prettyItem{}
	if rest, ok := strings.CutPrefix(s, "}"); ok {
		return items, rest, true
	}
	for {
		it, rest, ok := parsePrettyItem(strings.TrimLeft(s, " "), true)
		if !ok || rest == "" {
			return nil, "", false
		}
		items = append(items, it)
		if rest[0] == '}' {
			return items, rest[1:], true
		}
		s = rest[1:] // after ','
	}
}

// skipQuoted returns the index after the quoted text starting at s[i].
func skipQuoted(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(s)
}

func writePrettyItem(b *strings.Builder, it prettyItem, depth int) {
	b.WriteString(it.prefix)
	if it.nested {
		writePrettyGroup(b, it.sub, depth)
	}
	b.WriteString(it.suffix)
}

// writePrettyGroup writes a struct's members one per line at depth+1 and its '}' at
// depth, or an array's elements on one line (a struct element laid out one level deeper).
func writePrettyGroup(b *strings.Builder, items []prettyItem, depth int) {
	if len(items) == 0 || !memberName.MatchString(items[0].prefix) {
		b.WriteByte('{')
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			writePrettyItem(b, it, depth+1)
		}
		b.WriteByte('}')
		return
	}
	b.WriteString("{\n")
	for i, it := range items {
		b.WriteString(strings.Repeat("  ", depth+1))
		writePrettyItem(b, it, depth+1)
		if i < len(items)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
}

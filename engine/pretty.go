package engine

import (
	"regexp"
	"strconv"
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

// memberName starts a struct member: "x = ", C++'s "_vptr.Shape = ", "static count = "
// and a base class's "<geo::Shape> = ".
var memberName = regexp.MustCompile(`^((static )?[A-Za-z_][A-Za-z0-9_.]*|<[^=]*>) = `)

// printerText is what a library's printer says before its elements ("std::map with 2
// elements = ", `filesystem::path "/usr" = `): elements it names ([1] = 10) are laid out
// as members, one per line.
var printerText = regexp.MustCompile(`(std::[^{}"]*|filesystem::path "(?:[^"\\]|\\.)*") = $`)

// elementName starts an element a printer names: "[1] = ", `["al"] = `.
var elementName = regexp.MustCompile(`^\[.*?\] = `)

// vectorLength ends the first half of a vector printer's text, "std::vector of length 2,
// capacity 2": its comma is no separator.
var vectorLength = regexp.MustCompile(`std::vector(<bool>)? of length \d+$`)

// baseName is a C++ base class's member: its class.
var baseName = regexp.MustCompile(`^<([^=]*)> = $`)

// PrettyClass names the class of a braced value whose own members follow its base
// classes (gdb's "members of geo::Square:"): path is the member and element path from
// the value printed ("" for the value itself, ".inner", "[2].shape").
type PrettyClass func(path string) string

// PrettyValue lays out a value as gdb's print pretty does; text that is not a braced
// value, or that it cannot read, comes back as it is.
func PrettyValue(text string) string { return PrettyValueOf(text, nil) }

// PrettyValueOf is PrettyValue with the classes of the values with base classes named
// by class (nil: none are).
func PrettyValueOf(text string, class PrettyClass) string {
	if !strings.Contains(text, "{") {
		return text
	}
	item, rest, ok := parsePrettyItem(text, false)
	if !ok || rest != "" {
		return text
	}
	var b strings.Builder
	p := prettyWriter{b: &b, class: class}
	p.item(item, 0, "")
	return b.String()
}

// parsePrettyItem reads one item up to a top-level ',' or '}' (inside a group) or the end,
// and returns what follows it.
func parsePrettyItem(s string, inGroup bool) (prettyItem, string, bool) {
	var it prettyItem
	var text strings.Builder
	nest := 0 // inside ( ) or < >
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
		case c == '(' || c == '<':
			nest++
			text.WriteByte(c)
		case (c == ')' || c == '>') && nest > 0:
			nest--
			text.WriteByte(c)
		case inGroup && c == ',' && (nest > 0 || vectorLength.MatchString(text.String())):
			text.WriteByte(c) // std::map<int, int>, (use count 2, weak count 1), a vector's length and capacity
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

// prettyWriter writes the laid out value.
type prettyWriter struct {
	b     *strings.Builder
	class PrettyClass
}

// ownClass is the class of the group at path: known (a base class's), else class's answer
// ("" when there is none to ask).
func (p prettyWriter) ownClass(known, path string) string {
	if known != "" || p.class == nil {
		return known
	}
	return p.class(path)
}

// item writes one item, path being the value's path from the one printed.
func (p prettyWriter) item(it prettyItem, depth int, path string) {
	p.b.WriteString(it.prefix)
	if it.nested {
		p.group(it.sub, depth, path, "", printerText.MatchString(it.prefix))
	}
	p.b.WriteString(it.suffix)
}

// group writes a struct's members one per line at depth+1 and its '}' at depth, or an
// array's elements on one line (a struct element laid out one level deeper). A class's
// base classes come first, then gdb's "members of CLASS:" and its own members; class is
// the group's own when a base class's name says it. A printer's group (printer) lays out
// the elements it names as members.
func (p prettyWriter) group(items []prettyItem, depth int, path, class string, printer bool) {
	b := p.b
	if len(items) == 0 || !memberName.MatchString(items[0].prefix) && !(printer && elementName.MatchString(items[0].prefix)) {
		b.WriteByte('{')
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			p.item(it, depth+1, path+"["+strconv.Itoa(i)+"]")
		}
		b.WriteByte('}')
		return
	}
	bases := 0
	for bases < len(items) && items[bases].nested && baseName.MatchString(items[bases].prefix) {
		bases++
	}
	// a class with base classes but no members of its own: gdb's "}, <No data fields>}"
	noFields := bases == len(items)-1 && !items[bases].nested && items[bases].prefix == "<No data fields>"
	if noFields {
		items = items[:bases]
	}
	b.WriteString("{\n")
	indent := strings.Repeat("  ", depth+1)
	for i, it := range items {
		b.WriteString(indent)
		sub := path
		if m := baseName.FindStringSubmatch(it.prefix); m != nil && it.nested { // a base class: its members are the object's
			b.WriteString(it.prefix)
			p.group(it.sub, depth+1, sub, m[1], false)
			b.WriteString(it.suffix)
		} else {
			name, _, _ := strings.Cut(strings.TrimPrefix(it.prefix, "static "), " = ")
			if !strings.HasPrefix(name, "[") {
				name = "." + name
			}
			p.item(it, depth+1, path+name)
		}
		switch {
		case noFields && i == len(items)-1:
			b.WriteString(", <No data fields>}")
			return
		case i == bases-1 && bases < len(items) && p.ownClass(class, path) != "": // gdb's: "}, " then the class's own members
			b.WriteString(", \n" + indent + "members of " + p.ownClass(class, path) + ":\n")
			continue
		case i < bases: // gdb's ", " after each base class
			b.WriteString(", ")
		case i < len(items)-1:
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString(strings.Repeat("  ", depth) + "}")
}

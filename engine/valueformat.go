package engine

// Values in gdb's print formats, for every front end that offers them (the terminal's
// print/x, DAP's hex display): each integer at the width of its type, a C struct or array
// member by member.

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// FormatValue writes v in format: 'x' hex, 'd' signed, 'u' unsigned, 'o' octal, 't'
// binary, 'c' a character, or 0 for the value as the target printed it. On a native target
// each integer is masked or sign-extended at its C type's width (char 8, short 16, int 32
// bits) and a struct, union or array is formatted member by member, each at its own width,
// as gdb does; a Kite value's integers are 64 bits wide and formatted where they appear in
// its text.
func (s *Session) FormatValue(v Variable, format byte) string {
	switch format {
	case 0, 's': // s: as it is, for what is not a string too
		return v.Value
	case 'a': // an address, with the symbol it is in
		if n, ok := firstInteger(v.Value); ok {
			if sym, ok := s.t.(Symbolizer); ok {
				if name, _, found := sym.SymbolAt(n); found {
					return fmt.Sprintf("%#x <%s>", n, name)
				}
			}
			return fmt.Sprintf("%#x", n)
		}
		return v.Value
	}
	if !s.cTypes() {
		return formatText(v, format, false)
	}
	if cAggregate(v) {
		return s.formatMembers(v, format, 0)
	}
	if printerHead(v.Value) != "" {
		return s.formatPrinted(v, format, 0)
	}
	return formatLeaf(s.enumNumber(v), format)
}

// formatPrinted formats what a library's printer shows as gdb does: its words as they are
// (std::vector of length 3), the elements it names by position too ([1] = ), a map's keys
// and every element in format, each at its own type where the value's children give it (a
// tuple's double by its bits); s may be nil (no children then).
func (s *Session) formatPrinted(v Variable, format byte, depth int) string {
	head := printerHead(v.Value)
	switch {
	case head == "" && s != nil && v.Ref != 0 && cAggregate(v) && depth < 8:
		return s.formatMembers(v, format, depth)
	case head == "" && strings.HasPrefix(v.Value, "{"):
		return formatText(v, format, true)
	case head == "":
		return formatLeaf(v, format)
	}
	rest := v.Value[len(head):]
	if !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, "}") {
		if rest == "" {
			return head
		}
		v.Value = rest
		return head + s.formatPrinted(v, format, depth)
	}
	keyed := strings.Contains(head, "map") // std::map, std::unordered_multimap: keys are values
	inner := rest[1 : len(rest)-1]
	lead, trail := inner[:len(inner)-len(strings.TrimLeft(inner, " "))], "" // std::atomic's "{ 5 }"
	if strings.TrimSpace(inner) != "" {
		trail = inner[len(strings.TrimRight(inner, " ")):]
	}
	items := splitElements(inner)
	var kids []Variable // the elements with their types, where the printer made them children
	if s != nil && v.Ref != 0 && depth < 8 {
		if kids, _ = s.Variables(v.Ref); len(kids) != len(items) {
			kids = nil
		}
	}
	for i, it := range items {
		name, more := "", ""
		if i == len(items)-1 && it != "..." { // the print limit's "..." after the last one shown
			if cut, ok := strings.CutSuffix(it, "..."); ok {
				it, more = cut, "..."
			}
		}
		if strings.HasPrefix(it, "[") {
			if j := strings.Index(it, "] = "); j > 0 {
				name, it = it[:j+4], it[j+4:]
				if keyed {
					name = "[" + s.formatPrinted(Variable{Value: name[1:j], Type: v.Type}, format, depth+1) + "] = "
				}
			}
		}
		switch {
		case it == "...":
		case it == "true" || it == "false": // a std::vector<bool>'s: a bool's number
			it = formatLeaf(Variable{Value: map[string]string{"true": "1", "false": "0"}[it], Type: "bool"}, format)
		case kids != nil && strings.HasPrefix(kids[i].Name, "["):
			k := kids[i]
			k.Value = it
			it = s.formatPrinted(s.enumNumber(k), format, depth+1)
		default:
			it = s.formatPrinted(Variable{Value: it, Type: v.Type}, format, depth+1)
		}
		items[i] = name + it + more
	}
	return head + "{" + lead + strings.Join(items, ", ") + trail + "}"
}

// splitElements splits a braced value's inside at its top-level ", ".
func splitElements(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			i = QuotedEnd(s, i) - 1
		case c == '(' || c == '[' || c == '{' || c == '<':
			depth++
		case c == ')' || c == ']' || c == '}' || c == '>':
			depth--
		case c == ',' && depth == 0 && !vectorLength.MatchString(s[start:i]): // (a vector's length and capacity)
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// printerHead is what a library's printer says of a value before its elements ("std::vector
// of length 3, capacity 3 = ", `filesystem::path "/" [root-directory]`), which a format
// leaves as it is; "" for any other text.
func printerHead(text string) string {
	if !strings.HasPrefix(text, "std::") && !strings.HasPrefix(text, "filesystem::path ") {
		return ""
	}
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '"' || text[i] == '\'':
			i = QuotedEnd(text, i) - 1
		case strings.HasPrefix(text[i:], " = "):
			return text[:i+3]
		}
	}
	return text
}

// Enumerators is implemented by targets whose values may be enumeration constants, so that
// a format shows one by its number, as gdb does (p/x c is 0x5 where c is GREEN).
type Enumerators interface {
	EnumeratorValue(name string) (int64, bool)
}

// enumNumber is v with an enumeration constant's name replaced by its number (as an int,
// gdb's width for an enum's values); v as it is otherwise.
func (s *Session) enumNumber(v Variable) Variable {
	e, ok := s.t.(Enumerators)
	if !ok || !strings.HasPrefix(strings.TrimSpace(v.Type), "enum") && !enumeratorLike(v.Value) {
		return v
	}
	if n, ok := e.EnumeratorValue(strings.TrimSpace(v.Value)); ok {
		v.Value, v.Type = strconv.FormatInt(n, 10), "int"
	} else if n, ok := flagsNumber(e, v.Value); ok {
		v.Value, v.Type = strconv.FormatUint(n, 10), "unsigned int"
	}
	return v
}

// flagsNumber is the number a flag enum's text stands for: (F_READ | F_WRITE) is 3,
// (F_EXEC | unknown: 0x10) 20.
func flagsNumber(e Enumerators, text string) (uint64, bool) {
	inner, open := strings.CutPrefix(strings.TrimSpace(text), "(")
	inner, closed := strings.CutSuffix(inner, ")")
	if !open || !closed {
		return 0, false
	}
	var n uint64
	for _, part := range strings.Split(inner, " | ") {
		if rest, unknown := strings.CutPrefix(part, "unknown: "); unknown {
			u, err := strconv.ParseUint(rest, 0, 64)
			if err != nil {
				return 0, false
			}
			n |= u
			continue
		}
		v, ok := e.EnumeratorValue(part)
		if !ok {
			return 0, false
		}
		n |= uint64(v)
	}
	return n, true
}

// enumeratorLike reports whether a value's text may be a C++ enumerator (Color::Green,
// geo::K1, B: C++ names an enum's type without its keyword).
func enumeratorLike(text string) bool {
	if text == "" || text == "true" || text == "false" || text[0] >= '0' && text[0] <= '9' {
		return false
	}
	for _, r := range text {
		if r != '_' && r != ':' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// ValidFormat reports whether f is one of FormatValue's formats.
func ValidFormat(f byte) bool { return f != 0 && strings.IndexByte("xduotczfas", f) >= 0 }

// cTypes reports whether the target's values have C types: anything but a VM that numbers
// its instructions (the Kite VM, whose integers are all 64 bits).
func (s *Session) cTypes() bool {
	ix, ok := s.t.(IndexedPCs)
	return !ok || !ix.PCsAreIndexes()
}

// cAggregate reports whether v is a C struct, union or array (not a pointer to one), or a
// C++ class object shown member by member ({<B> = {b = 1}, c = 120 'x'}: a library's
// printer's text is not braced).
func cAggregate(v Variable) bool {
	t := strings.TrimSpace(v.Type)
	if v.Ref == 0 || strings.HasSuffix(t, "*") || strings.HasSuffix(t, "&") {
		return false
	}
	return strings.HasPrefix(t, "struct") || strings.HasPrefix(t, "union") || strings.HasSuffix(t, "]") ||
		strings.HasPrefix(v.Value, "{{") || strings.HasPrefix(v.Value, "{") && memberName.MatchString(v.Value[1:])
}

// formatMembers formats a struct ({a = 0x7, b = 0xfffd}) or an array ({0x1, 0x2}) from its
// children, each in format at its own type's width.
func (s *Session) formatMembers(v Variable, format byte, depth int) string {
	kids, err := s.Variables(v.Ref)
	if err != nil || depth > 8 {
		return formatText(v, format, true)
	}
	array := strings.HasSuffix(v.Type, "]")
	s.mu.Lock()
	indexes, repeats := s.limits.ArrayIndexes, s.limits.Repeats
	s.mu.Unlock()
	labels, more := memberLabels(v.Value, len(kids))
	parts := make([]string, 0, len(kids)+1)
	for i, k := range kids {
		var text string
		switch {
		case cAggregate(k) || k.Name == "" && k.Ref != 0: // (an anonymous union or struct)
			text = s.formatMembers(k, format, depth+1)
		case printerHead(k.Value) != "": // a library printer's: its elements formatted
			text = s.formatPrinted(k, format, depth+1)
		case strings.HasPrefix(k.Name, "_vptr.") && strings.Contains(k.Value, " <"): // gdb keeps it as it is, in any format
			text = k.Value
		default:
			text = formatLeaf(s.enumNumber(k), format)
		}
		switch {
		case !array && labels != nil && labels[i] == "", !array && labels == nil && k.Name == "": // an anonymous union or struct: its braces alone
		case !array && labels != nil: // as the value's text names it: "static k", "<B>"
			text = labels[i] + " = " + text
		case !array:
			text = k.Name + " = " + text
		}
		parts = append(parts, text)
	}
	if array {
		parts = collapseRepeats(parts, repeats, func(i int) string {
			if !indexes {
				return ""
			}
			return "[" + formatLeaf(Variable{Value: strconv.Itoa(i), Type: "long"}, format) + "] = " // set print array-indexes on: gdb's [0x1] = 0x2
		})
	}
	if array && v.Len > len(kids) {
		parts = append(parts, "...")
	}
	if more != "" {
		parts = append(parts, more)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// collapseRepeats writes a run of more than repeats equal elements once, as gdb's
// "0x0 <repeats 20 times>" (repeats 0: never), each element or run after label(its index).
func collapseRepeats(parts []string, repeats int, label func(int) string) []string {
	out := parts[:0:0]
	for i := 0; i < len(parts); {
		j := i + 1
		for repeats > 0 && j < len(parts) && parts[j] == parts[i] {
			j++
		}
		if j-i > repeats && repeats > 0 {
			out = append(out, fmt.Sprintf("%s%s <repeats %d times>", label(i), parts[i], j-i))
		} else {
			for k := i; k < j; k++ {
				out = append(out, label(k)+parts[k])
			}
		}
		i = j
	}
	return out
}

// memberLabels are the names a struct's text gives its n members, in order ("c", "static
// k", "<B>", "" for an anonymous union), and what it says after them (gdb's "<No data
// fields>"); nil when the text does not list n members.
func memberLabels(text string, n int) (labels []string, more string) {
	if !strings.HasPrefix(text, "{") || !strings.HasSuffix(text, "}") {
		return nil, ""
	}
	items := splitElements(text[1 : len(text)-1])
	if len(items) == n+1 && items[n] == "<No data fields>" {
		items, more = items[:n], items[n]
	}
	if len(items) != n {
		return nil, ""
	}
	labels = make([]string, n)
	for i, it := range items {
		if !strings.HasPrefix(it, "{") {
			labels[i], _, _ = strings.Cut(it, " = ")
		}
	}
	return labels, more
}

// formatLeaf formats a C scalar as gdb: a char's 'x' or a char pointer's "string" is
// dropped for the number; /c shows the low byte as a signed number and gdb's character
// literal ('\a', '\375'); /o shows zero as 0.
func formatLeaf(v Variable, format byte) string {
	if strings.Contains(v.Type, "__int128") { // wider than a uint64
		if n, ok := new(big.Int).SetString(strings.TrimSpace(v.Value), 10); ok {
			return formatWide(n, format, 128)
		}
	}
	if f := strings.Fields(v.Value); len(f) > 1 && (f[0][0] >= '0' && f[0][0] <= '9' || f[0][0] == '-') {
		v.Value = f[0]
	}
	if t := strings.TrimSpace(v.Type); (t == "_Bool" || t == "bool") && (v.Value == "true" || v.Value == "false") && format != 0 && format != 's' {
		v.Value = map[string]string{"true": "1", "false": "0"}[v.Value] // a bool's number, as gdb formats it
	}
	if bits, ok := floatBits(v); ok && format != 'c' { // as gdb: the float's own bits
		v.Value = strconv.FormatUint(bits, 10)
		if strings.TrimSpace(v.Type) == "float" {
			v.Type = "unsigned int"
		} else {
			v.Type = "unsigned long"
		}
		if format == 'd' {
			v.Type = strings.TrimPrefix(v.Type, "unsigned ")
		}
	}
	switch format {
	case 'f': // a float as it is; an integer's bits as a float of its width, as gdb's
		if _, isFloat := floatBits(v); isFloat {
			return v.Value
		}
		n, ok := parseInteger(v.Value)
		if !ok {
			return v.Value
		}
		switch cTypeBits(v.Type) {
		case 32:
			return strconv.FormatFloat(float64(math.Float32frombits(uint32(n))), 'g', 9, 32)
		case 64:
			return strconv.FormatFloat(math.Float64frombits(uint64(n)), 'g', 17, 64)
		}
		return strconv.FormatInt(n, 10)
	case 'c':
		n, ok := parseInteger(v.Value)
		if !ok {
			return v.Value
		}
		if t := strings.TrimSpace(v.Type); strings.HasPrefix(t, "unsigned") || t == "_Bool" || t == "bool" { // as wide as a char, keeping its type's sign
			return fmt.Sprintf("%d %s", uint8(n), gdbChar(byte(n)))
		}
		return fmt.Sprintf("%d %s", int8(n), gdbChar(byte(n)))
	case 'o':
		if out := formatText(v, format, true); out != "00" {
			return out
		}
		return "0"
	}
	return formatText(v, format, true)
}

// floatBits is the bits of a C float or double value, as gdb's print/x shows them (1.5 as
// a float is 0x3fc00000); false for any other value.
func floatBits(v Variable) (uint64, bool) {
	t := strings.TrimSpace(v.Type)
	if t != "float" && t != "double" {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Value), 64)
	if err != nil {
		return 0, false
	}
	if t == "float" {
		return uint64(math.Float32bits(float32(f))), true
	}
	return math.Float64bits(f), true
}

// formatText shows every integer in a value's text in the format; other text is kept.
// cTypes says whether type names are C's (so "int" is 32 bits wide) or Kite's (64).
func formatText(v Variable, format byte, cTypes bool) string {
	bits := 64
	if cTypes {
		bits = cTypeBits(v.Type)
	}
	var b strings.Builder
	s := v.Value
	for i := 0; i < len(s); {
		c := s[i]
		if c == '"' || c == '\'' {
			j := QuotedEnd(s, i)
			b.WriteString(s[i:j])
			i = j
			continue
		}
		if c == '<' { // a symbol (<vals+4>) or a count (<repeats 15 times>) stays as it is
			if j := strings.IndexByte(s[i:], '>'); j > 0 {
				b.WriteString(s[i : i+j+1])
				i += j + 1
				continue
			}
		}
		startsNumber := c >= '0' && c <= '9' || c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'
		if !startsNumber || i > 0 && (isNameByte(s[i-1]) || s[i-1] == '.') {
			b.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		for j < len(s) && (isNameByte(s[j]) || s[j] == '.') {
			j++
		}
		b.WriteString(formatInt(s[i:j], format, bits))
		i = j
	}
	return b.String()
}

// QuotedEnd returns the index after the string or character literal that starts at s[i]
// (a '"' or '\” with backslash escapes), or len(s) when it is not closed: for front ends
// that rewrite expression text around its literals.
func QuotedEnd(s string, i int) int {
	j := i + 1
	for j < len(s) && s[j] != s[i] {
		if s[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(s))
}

// firstInteger is the first integer of a value's text ("{int (void)} 0x401136 <main>" is
// 0x401136).
func firstInteger(text string) (uint64, bool) {
	for _, f := range strings.Fields(text) {
		if n, ok := parseInteger(strings.TrimSuffix(f, ",")); ok {
			return uint64(n), true
		}
	}
	return 0, false
}

// parseInteger reads a signed or unsigned integer literal (decimal, 0x, 0o, 0b).
func parseInteger(lit string) (int64, bool) {
	n, err := strconv.ParseInt(lit, 0, 64)
	if err == nil {
		return n, true
	}
	u, err := strconv.ParseUint(lit, 0, 64)
	return int64(u), err == nil
}

// formatInt formats one integer literal; anything else (a float) is returned unchanged.
func formatInt(lit string, format byte, bits int) string {
	n, ok := parseInteger(lit)
	if !ok {
		return lit
	}
	u := uint64(n)
	if bits < 64 {
		u &= 1<<bits - 1
	}
	switch format {
	case 'x':
		return "0x" + strconv.FormatUint(u, 16)
	case 'z': // hex, zero-padded to the type's width
		return fmt.Sprintf("0x%0*x", (bits+3)/4, u)
	case 'o':
		return "0" + strconv.FormatUint(u, 8)
	case 't':
		return strconv.FormatUint(u, 2)
	case 'u':
		return strconv.FormatUint(u, 10)
	case 'c':
		return fmt.Sprintf("%d %s", int8(u), strconv.QuoteRune(rune(byte(u))))
	}
	if bits < 64 { // 'd': sign-extend from the type's width
		shift := 64 - uint(bits)
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	}
	return strconv.FormatInt(n, 10)
}

// cTypeBits is the width of a C integer type by its name; 64 for anything else (long, a
// pointer).
func cTypeBits(t string) int {
	t = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "unsigned "), "signed "))
	switch t {
	case "char", "int8_t", "uint8_t", "_Bool", "bool":
		return 8
	case "short", "short int", "int16_t", "uint16_t":
		return 16
	case "int", "int32_t", "uint32_t", "unsigned":
		return 32
	}
	return 64
}

// gdbChar is a byte as gdb prints a char: itself, a named escape, or an octal one.
func gdbChar(c byte) string {
	named := map[byte]string{7: `\a`, 8: `\b`, 9: `\t`, 10: `\n`, 11: `\v`, 12: `\f`, 13: `\r`, 27: `\033`, '\'': `\'`, '\\': `\\`}
	if e, ok := named[c]; ok {
		return "'" + e + "'"
	}
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return fmt.Sprintf(`'\%03o'`, c)
}

// formatWide is integer n of a bits-wide type (__int128) in format, as gdb's: x, o, t
// and z of its two's complement bits, d signed and u unsigned.
func formatWide(n *big.Int, format byte, bits uint) string {
	mod := new(big.Int).Lsh(big.NewInt(1), bits)
	u := new(big.Int).Mod(n, mod) // its bits, as unsigned
	switch format {
	case 'x':
		return "0x" + u.Text(16)
	case 'z':
		return fmt.Sprintf("0x%0*s", bits/4, u.Text(16))
	case 'o':
		if u.Sign() == 0 {
			return "0"
		}
		return "0" + u.Text(8)
	case 't':
		return u.Text(2)
	case 'u':
		return u.String()
	case 'd':
		if u.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
			u.Sub(u, mod)
		}
		return u.String()
	}
	return n.String()
}

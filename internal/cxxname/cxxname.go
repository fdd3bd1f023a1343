// Package cxxname turns C++'s mangled symbol names into the names gdb prints.
package cxxname

import (
	"regexp"
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Symbol is a symbol's name as gdb prints a C++ one where it demangles names (a pointer's
// target, info symbol): _ZTVN3geo6SquareE+16 is "vtable for geo::Square+16". Other names,
// and names it cannot read, come back as they are.
func Symbol(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	base, off := name, ""
	if i := strings.LastIndexByte(name, '+'); i > 0 {
		base, off = name[:i], name[i:]
	}
	d, err := demangle.ToString(base, demangle.NoClones, demangle.NoRust)
	if err != nil || d == "" {
		return name
	}
	return d + off
}

// ShortType is a C++ type name as gdb's whatis shows it with libstdc++'s type printers: a
// standard string as std::string, a container or smart pointer without the arguments that
// are its defaults (std::vector<int, std::allocator<int> > is std::vector<int>,
// std::map<std::string, int>), nested names too. Other names come back as they are.
func ShortType(name string) string {
	if !strings.Contains(name, "std::") {
		return name
	}
	t, rest, ok := parseType(name)
	if !ok || strings.Contains(rest, "<") || strings.HasPrefix(t.tail, "::") {
		return name // (a name inside a class, std::string::size_type, is no class the printers know)
	}
	short, changed := t.short()
	if !changed {
		return name // as the program's debug information spells it
	}
	return short.String() + rest
}

// typeName is a type name parsed as far as its template arguments: head<args...>.
type typeName struct {
	head string
	args []typeName
	tmpl bool // it has an argument list (perhaps empty)
	tail string
	raw  string // as it was spelled
	// spaced writes the list's end "> >" after an argument's own '>', as gdb spells a
	// name no type printer recognized
	spaced bool
}

// parseType reads one type name from s: its head, its arguments, and what follows the
// closing '>' up to a ',' or '>' of the list around it (" const", " *").
func parseType(s string) (typeName, string, bool) {
	t, rest, ok := parseTypeText(s)
	t.raw = strings.TrimSpace(s[:len(s)-len(rest)])
	return t, rest, ok
}

func parseTypeText(s string) (typeName, string, bool) {
	var t typeName
	i := 0
	for i < len(s) && s[i] != '<' && s[i] != ',' && s[i] != '>' {
		i++
	}
	t.head = strings.TrimSpace(s[:i])
	s = s[i:]
	if strings.HasPrefix(s, "<") {
		t.tmpl = true
		s = s[1:]
		for {
			s = strings.TrimLeft(s, " ")
			if strings.HasPrefix(s, ">") {
				s = s[1:]
				break
			}
			arg, rest, ok := parseType(s)
			if !ok {
				return t, s, false
			}
			t.args = append(t.args, arg)
			s = strings.TrimLeft(rest, " ")
			if strings.HasPrefix(s, ",") {
				s = s[1:]
			} else if !strings.HasPrefix(s, ">") {
				return t, s, false
			}
		}
		j := 0
		for j < len(s) && s[j] != ',' && s[j] != '>' && s[j] != '<' {
			j++
		}
		t.tail, s = strings.TrimRight(s[:j], " "), s[j:]
	}
	return t, s, true
}

func (t typeName) String() string {
	if !t.tmpl {
		return t.head + t.tail
	}
	parts := make([]string, len(t.args))
	for i, a := range t.args {
		parts[i] = a.String()
	}
	end := ">"
	if t.spaced && len(parts) > 0 && strings.HasSuffix(parts[len(parts)-1], ">") {
		end = " >"
	}
	return t.head + "<" + strings.Join(parts, ", ") + end + t.tail
}

// defaultArgs says, for each template libstdc++'s printers shorten, how many of its
// arguments to keep when the others are its defaults.
var defaultArgs = map[string]int{
	"std::vector": 1, "std::__cxx11::list": 1, "std::list": 1, "std::deque": 1, "std::forward_list": 1,
	"std::set": 1, "std::multiset": 1, "std::unordered_set": 1, "std::unordered_multiset": 1,
	"std::map": 2, "std::multimap": 2, "std::unordered_map": 2, "std::unordered_multimap": 2,
	"std::unique_ptr": 1,
}

// short applies the type printers to t and its arguments; changed says whether any did.
func (t typeName) short() (typeName, bool) {
	changed := false
	for i := range t.args {
		var c bool
		t.args[i], c = t.args[i].short()
		changed = changed || c
	}
	quals, head := "", t.head
	for _, q := range []string{"const ", "volatile "} {
		if rest, ok := strings.CutPrefix(head, q); ok {
			quals, head = quals+q, rest
		}
	}
	if head == "std::__cxx11::basic_string" && len(t.args) == 3 && t.args[0].String() == "char" &&
		t.args[1].String() == "std::char_traits<char>" && t.args[2].String() == "std::allocator<char>" {
		return typeName{head: quals + "std::string", tail: t.tail}, true
	}
	if keep, ok := defaultArgs[head]; ok && len(t.args) > keep && t.defaultsFrom(keep) {
		t.args = t.args[:keep]
		t.head = quals + strings.Replace(head, "std::__cxx11::", "std::", 1)
		return t, true
	}
	if !changed {
		return typeName{head: t.raw}, false // spelled as it was
	}
	t.spaced = true // gdb's own spelling of a name it does not recognize: "> >"
	return t, true
}

// defaultsFrom reports whether t's arguments from keep on are the ones its template
// defaults to: std::less<K>, std::hash<K>, std::equal_to<K>, std::default_delete<T>, and
// std::allocator of the element (std::pair<K const, V> for a map).
func (t typeName) defaultsFrom(keep int) bool {
	k := t.args[0].String()
	elem, elem2 := k, k
	if keep == 2 { // a map's pair, its key const as either side spells it
		elem = "std::pair<" + k + " const, " + t.args[1].String() + ">"
		elem2 = "std::pair<const " + k + ", " + t.args[1].String() + ">"
	}
	defaults := []string{"std::allocator<" + elem + ">", "std::allocator<" + elem2 + ">", "std::less<" + k + ">",
		"std::hash<" + k + ">", "std::equal_to<" + k + ">", "std::default_delete<" + k + ">"}
	for _, a := range t.args[keep:] {
		found := false
		for _, d := range defaults { // (spaced as they may be: "> >" or ">>")
			found = found || strings.ReplaceAll(a.String(), " ", "") == strings.ReplaceAll(d, " ", "")
		}
		if !found {
			return false
		}
	}
	return true
}

// DemanglerSpelling is a C++ type name with the qualifiers of its template arguments
// after what they qualify, as the demangler writes them: DWARF's std::pair<const
// std::string, int> is std::pair<std::string const, int>. Names it cannot read come back
// as they are.
func DemanglerSpelling(name string) string {
	if !strings.Contains(name, "<") || !strings.Contains(name, "const ") {
		return name
	}
	t, rest, ok := parseType(name)
	if !ok || rest != "" {
		return name
	}
	out := t.postfixConst(false).String()
	for strings.Contains(out, ">>") { // the demangler's "> >"
		out = strings.ReplaceAll(out, ">>", "> >")
	}
	return out
}

// postfixConst moves a leading const of t (when arg: it is a template argument) and of its
// arguments after what it qualifies.
func (t typeName) postfixConst(arg bool) typeName {
	for i := range t.args {
		t.args[i] = t.args[i].postfixConst(true)
	}
	if rest, ok := strings.CutPrefix(t.head, "const "); ok && arg {
		t.head, t.tail = rest, " const"+t.tail
	}
	return t
}

// declarators splits a type name into its qualifiers, the name they qualify and its
// declarators: "const Pair<int, double> *" is "const ", "Pair<int, double>", " *".
var declarators = regexp.MustCompile(`^((?:const |volatile )*)(.*?)((?:\s*(?:\*|&&|&|const|volatile|\[\d*\]))*)$`)

// Substitute writes a type name with the template parameters a class template's instance
// was made with in place of their arguments, as gdb's ptype of the instance shows its
// members (with maps an argument, spelled as gdb spells types, to its parameter): with
// short as T, "short [3]" is "T [3]"; with int as K and double as V, "Pair<int, double> *"
// is "Pair<K, V> *". Other names come back as they are.
func Substitute(name string, with map[string]string) string {
	if len(with) == 0 {
		return name
	}
	m := declarators.FindStringSubmatch(name)
	if m == nil {
		return name
	}
	quals, core, decls := m[1], m[2], m[3]
	if p, ok := with[core]; ok {
		return quals + p + decls
	}
	t, rest, ok := parseType(core)
	if !ok || rest != "" || !t.tmpl || len(t.args) == 0 {
		return name
	}
	args := make([]string, len(t.args))
	changed := false
	for i, a := range t.args {
		args[i] = Substitute(a.raw, with)
		changed = changed || args[i] != a.raw
	}
	if !changed {
		return name
	}
	end := ">"
	if strings.HasSuffix(args[len(args)-1], ">") {
		end = " >"
	}
	return quals + t.head + "<" + strings.Join(args, ", ") + end + t.tail + decls
}

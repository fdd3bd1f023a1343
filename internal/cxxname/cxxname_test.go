package cxxname

import (
	"strings"
	"testing"
)

func TestSymbol(t *testing.T) {
	for in, want := range map[string]string{
		"_ZTVN3geo6SquareE+16":    "vtable for geo::Square+16",
		"_ZNK3geo5Shape6scaledEi": "geo::Shape::scaled(int) const",
		"main":                    "main",
		"_Znot_a_name":            "_Znot_a_name",
	} {
		if got := Symbol(in); got != want {
			t.Errorf("Symbol(%q) = %q, want %q", in, got, want)
		}
	}
}

// The names gdb's whatis gives standard library types through libstdc++'s type printers.
func TestShortType(t *testing.T) {
	str := "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	for in, want := range map[string]string{
		str:                                      "std::string",
		"std::vector<int, std::allocator<int> >": "std::vector<int>",
		"std::vector<int, std::allocator<int> > *":                                                                 "std::vector<int> *",
		"const std::vector<int, std::allocator<int> > &":                                                           "const std::vector<int> &",
		"std::map<" + str + ", int, std::less<" + str + " >, std::allocator<std::pair<const " + str + ", int> > >": "std::map<std::string, int>",
		"std::map<int, std::vector<int, std::allocator<int> >, std::less<int>, std::allocator<std::pair<int const, std::vector<int, std::allocator<int> > > > >": "std::map<int, std::vector<int>>",
		"std::set<int, std::less<int>, std::allocator<int> >": "std::set<int>",
		"std::unique_ptr<int, std::default_delete<int> >":     "std::unique_ptr<int>",
		"std::vector<int, MyAlloc<int> >":                     "std::vector<int, MyAlloc<int> >",
		"int":                                                 "int",
		"std::pair<int, int>":                                 "std::pair<int, int>",
	} {
		if got := ShortType(in); got != want {
			t.Errorf("ShortType(%q) = %q, want %q", in, got, want)
		}
	}
}

// ShortType takes any text: it never panics, and what it cannot read it gives back.
func FuzzShortType(f *testing.F) {
	for _, s := range []string{"std::vector<int, std::allocator<int> >", "std::map<", "std::>>", "std::a<b<c>,", "std::x<<>>", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := ShortType(s)
		if !strings.Contains(s, "std::") && got != s {
			t.Fatalf("ShortType(%q) = %q: a name without std:: changed", s, got)
		}
		if sub := Substitute(s, map[string]string{"int": "T"}); !strings.Contains(s, "int") && sub != s {
			t.Fatalf("Substitute(%q) = %q: a name without the argument changed", s, sub)
		}
	})
}

// DWARF's names of template instances in the demangler's spelling: const after what it
// qualifies, "> >".
func TestDemanglerSpelling(t *testing.T) {
	str := "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >"
	for in, want := range map[string]string{
		"std::pair<const int, int>":                          "std::pair<int const, int>",
		"std::allocator<std::pair<const " + str + ", int> >": "std::allocator<std::pair<" + str + " const, int> >",
		"std::vector<int, std::allocator<int> >":             "std::vector<int, std::allocator<int> >",
		"const std::vector<int>":                             "const std::vector<int>",
		"geo::Shape":                                         "geo::Shape",
	} {
		if got := DemanglerSpelling(in); got != want {
			t.Errorf("DemanglerSpelling(%q) = %q, want %q", in, got, want)
		}
	}
}

// A class template instance's members are shown with its parameters in place of their
// arguments, whole or inside another template's arguments, as gdb's ptype shows them.
func TestSubstitute(t *testing.T) {
	with := map[string]string{"short": "T", "int": "K", "double": "V", "Arr<short, 3>": "A"}
	for in, want := range map[string]string{
		"short":                                  "T",
		"short [3]":                              "T [3]",
		"const short *":                          "const T *",
		"Pair<int, double> *":                    "Pair<K, V> *",
		"Wrap<Pair<int, double> > &":             "Wrap<Pair<K, V> > &",
		"Arr<short, 3>":                          "A",
		"unsigned short":                         "unsigned short",
		"long":                                   "long",
		"int (*)(int)":                           "int (*)(int)",
		"std::vector<int, std::allocator<int> >": "std::vector<K, std::allocator<K> >",
	} {
		if got := Substitute(in, with); got != want {
			t.Errorf("Substitute(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Substitute("short", nil); got != "short" {
		t.Errorf("without parameters: %q", got)
	}
}

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

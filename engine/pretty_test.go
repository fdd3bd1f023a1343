package engine

import (
	"regexp"
	"strings"
	"testing"
)

func TestPrettyValue(t *testing.T) {
	for in, want := range map[string]string{
		`{x = 1, y = 2, name = 0x4006f4 "a, {b}"}`: "{\n  x = 1,\n  y = 2,\n  name = 0x4006f4 \"a, {b}\"\n}",
		`{1, 2, 3}`: `{1, 2, 3}`,
		`{at = {x = 1, y = 2}, v = {1, 2}, c = 44 ','}`: "{\n  at = {\n    x = 1,\n    y = 2\n  },\n  v = {1, 2},\n  c = 44 ','\n}",
		`{{x = 1, y = 2}, {x = 3, y = 4}}`:              "{{\n    x = 1,\n    y = 2\n  }, {\n    x = 3,\n    y = 4\n  }}",
		`{}`:                                            `{}`,
		`42`:                                            `42`,
		`{a = `:                                         `{a = `, // cut short: as it is
		`"hello", '\000' <repeats 10 times>`:            `"hello", '\000' <repeats 10 times>`,
		// a printer's named elements one per line, an array's indexes on one
		`std::map with 2 elements = {[1] = 10, ["a]b"] = 20}`: "std::map with 2 elements = {\n  [1] = 10,\n  [\"a]b\"] = 20\n}",
		`{[0] = 1, [1] = 2}`: `{[0] = 1, [1] = 2}`,
		`std::map with 1 element = {[1] = std::vector of length 2, capacity 2 = {1, 2}}`:                 "std::map with 1 element = {\n  [1] = std::vector of length 2, capacity 2 = {1, 2}\n}",
		`{p = std::shared_ptr<int> (use count 2, weak count 1) = {get() = 0x5}, m = std::map<int, int>}`: "{\n  p = std::shared_ptr<int> (use count 2, weak count 1) = {get() = 0x5},\n  m = std::map<int, int>\n}",
	} {
		if got := PrettyValue(in); got != want {
			t.Errorf("PrettyValue(%q) =\n%s\nwant\n%s", in, got, want)
		}
	}
}

// FuzzPrettyValue: any text comes back, and only its layout changes.
func FuzzPrettyValue(f *testing.F) {
	for _, s := range []string{`{x = 1, y = {a = "}"}}`, `{{a = 1}, {a = 2}}`, `{1, 2}`, `{`, `}`, `'{'`, `"\"{"`,
		`{<A> = {<B> = {b = 1}, a = 2}, static n = 3, c = 4}`, `{_vptr.A = 0x1 <vtable for A+16>, x = 1}`,
		`std::tuple containing = {[1] = 1, [2] = std::vector of length 1, capacity 1 = {2}}`, `{a = <(, b = 1}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// only the layout changes, and gdb's "members of C:" lines come in (a derived class's)
		membersOf := regexp.MustCompile(`\n *members of [^\n]*:\n`)
		squash := func(v string) string {
			return strings.NewReplacer(" ", "", "\n", "").Replace(membersOf.ReplaceAllString(v, "\n"))
		}
		if got := PrettyValue(s); squash(got) != squash(s) {
			t.Fatalf("PrettyValue(%q) = %q: more than its layout changed", s, got)
		}
		if got := PrettyValueOf(s, func(string) string { return "C" }); squash(got) != squash(s) {
			t.Fatalf("PrettyValueOf(%q) = %q: more than its layout and class lines changed", s, got)
		}
	})
}

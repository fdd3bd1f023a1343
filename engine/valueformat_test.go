package engine

import (
	"strings"
	"testing"
)

func TestFormatValue(t *testing.T) {
	for _, tt := range []struct {
		v      Variable
		format byte
		cTypes bool
		want   string
	}{
		{Variable{Value: "-1", Type: "int"}, 'x', true, "0xffffffff"},
		{Variable{Value: "-1", Type: "int"}, 'x', false, "0xffffffffffffffff"},
		{Variable{Value: "255", Type: "unsigned char"}, 'd', true, "-1"},
		{Variable{Value: "{a = 7, b = -3, c = 16}", Type: "struct pair"}, 'x', true, "{a = 0x7, b = 0xfffffffffffffffd, c = 0x10}"},
		{Variable{Value: `["a1", 2.5, 10]`, Type: "list"}, 'x', false, `["a1", 2.5, 0xa]`},
		{Variable{Value: "x1 + 3", Type: ""}, 't', false, "x1 + 11"},
		{Variable{Value: "0x10"}, 'd', false, "16"},
		{Variable{Value: "65"}, 'c', false, "65 'A'"},
		{Variable{Value: "8"}, 'o', false, "010"},
		{Variable{Value: "-2"}, 'u', false, "18446744073709551614"},
	} {
		if got := formatText(tt.v, tt.format, tt.cTypes); got != tt.want {
			t.Errorf("formatText(%q, %c) = %q, want %q", tt.v.Value, tt.format, got, tt.want)
		}
	}
}

func TestFormatLeafAsGDB(t *testing.T) {
	for _, tt := range []struct {
		v      Variable
		format byte
		want   string
	}{
		{Variable{Value: "97 'a'", Type: "char"}, 'x', "0x61"},
		{Variable{Value: "7", Type: "char"}, 'c', `7 '\a'`},
		{Variable{Value: "-3", Type: "char"}, 'c', `-3 '\375'`},
		{Variable{Value: "0", Type: "int"}, 'o', "0"},
		{Variable{Value: "-2", Type: "short"}, 'x', "0xfffe"},
		{Variable{Value: "1.5", Type: "float"}, 'x', "0x3fc00000"}, // a float's bits
		{Variable{Value: "-2.5", Type: "double"}, 'x', "0xc004000000000000"},
		{Variable{Value: "-2.5", Type: "double"}, 'd', "-4610560118520545280"},
		{Variable{Value: "3.25", Type: "float"}, 'u', "1078984704"},
		{Variable{Value: "nan(0x8000000000000)", Type: "double"}, 'x', "nan(0x8000000000000)"}, // not read back: kept
	} {
		if got := formatLeaf(tt.v, tt.format); got != tt.want {
			t.Errorf("formatLeaf(%q %s, %c) = %q, want %q", tt.v.Value, tt.v.Type, tt.format, got, tt.want)
		}
	}
}

// A library printer's text under a format: its words kept, its elements formatted, a
// map's keys too, the positions it names not; a struct's text gives its members' labels.
func TestFormatPrinted(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"std::vector of length 3, capacity 3 = {1, 2, 3}", "std::vector of length 3, capacity 3 = {0x1, 0x2, 0x3}"},
		{`std::map with 2 elements = {[1] = "one", [2] = "two"}`, `std::map with 2 elements = {[0x1] = "one", [0x2] = "two"}`},
		{"std::set with 2 elements = {[0] = 5, [1] = 6}", "std::set with 2 elements = {[0] = 0x5, [1] = 0x6}"},
		{"std::vector<bool> of length 2, capacity 64 = {true, false}", "std::vector<bool> of length 2, capacity 64 = {0x1, 0x0}"},
		{`filesystem::path "a = 1" = {[0] = "a = 1"}`, `filesystem::path "a = 1" = {[0] = "a = 1"}`},
		{"std::vector of length 0, capacity 0", "std::vector of length 0, capacity 0"},
		{"std::deque with 2 elements = {std::vector of length 1, capacity 1 = {7}, std::vector of length 0, capacity 0}",
			"std::deque with 2 elements = {std::vector of length 1, capacity 1 = {0x7}, std::vector of length 0, capacity 0}"},
	} {
		if got := (*Session)(nil).formatPrinted(Variable{Value: tt.in, Type: "std::x"}, 'x', 0); got != tt.want {
			t.Errorf("formatPrinted(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	labels, more := memberLabels("{<B> = {b = 1}, static k = 4, {u = 2, f = 2.5}, v = std::vector of length 1, capacity 1 = {1}, <No data fields>}", 4)
	if want := []string{"<B>", "static k", "", "v"}; len(labels) != 4 || labels[0] != want[0] || labels[1] != want[1] || labels[2] != want[2] ||
		labels[3] != want[3] || more != "<No data fields>" {
		t.Errorf("labels %q, then %q", labels, more)
	}
}

// FuzzFormatPrinted: any text under any format comes back without a panic, and a
// printer's text without digits as it was, but for its spaces.
func FuzzFormatPrinted(f *testing.F) {
	for _, s := range []string{"std::vector of length 3, capacity 3 = {1, 2, 3}", `std::map with 1 element = {["a"] = {x = 1}}`,
		"std::x = {", `filesystem::path "\"" = {[0] = "}"}`, "std:: = {[", "{a = 1, {b = 2}}", "std::atomic<int> = { 5 }", "std::vector<bool> of length 1, capacity 64 = {true}"} {
		f.Add(s, byte('x'))
	}
	f.Fuzz(func(t *testing.T, s string, format byte) {
		got := (*Session)(nil).formatPrinted(Variable{Value: s, Type: "std::x"}, format, 0)
		_, _ = memberLabels(s, 3)
		squash := func(v string) string { return strings.ReplaceAll(v, " ", "") }
		numbers := strings.ContainsAny(s, "0123456789") || strings.Contains(s, "true") || strings.Contains(s, "false")
		if printerHead(s) != "" && !numbers && format == 'x' && squash(got) != squash(s) {
			t.Fatalf("formatPrinted(%q) = %q: a text without numbers changed", s, got)
		}
	})
}

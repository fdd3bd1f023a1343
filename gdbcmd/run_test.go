package gdbcmd

import (
	"slices"
	"strings"
	"testing"
)

func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"  one   two ", []string{"one", "two"}},
		{`x "y z" '$HOME' a\ b`, []string{"x", "y z", "$HOME", "a b"}},
		{`"a\"b\\c\d"`, []string{`a"b\c\d`}},
		{`''`, []string{""}},
		{`pre'mid dle'post`, []string{"premid dlepost"}},
	} {
		got, err := shellWords(c.text)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{`"open`, `'open`, `a "b\"`} {
		if _, err := shellWords(bad); err == nil {
			t.Errorf("shellWords(%q): no error", bad)
		}
	}
}

// Whatever a line splits into, the words quoted and joined as show args says them split
// into the same words again.
func FuzzShellWords(f *testing.F) {
	for _, s := range []string{"", `x "y z" '$HOME' a\ b`, `"a\"b\\c"`, `''`, "tab\there", `\`, `"open`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		words, err := shellWords(text)
		if err != nil {
			return
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = shellQuote(w)
		}
		again, err := shellWords(strings.Join(quoted, " "))
		if err != nil || !slices.Equal(again, words) {
			t.Fatalf("%q: words %q, quoted %q, again %q (%v)", text, words, quoted, again, err)
		}
	})
}

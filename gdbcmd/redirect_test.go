package gdbcmd

import (
	"strings"
	"testing"
)

// Redirections come out of run's text as a shell reads them; quoted and escaped ones stay
// arguments; the standard error's is refused; a missing file name is an error.
func TestSplitRedirections(t *testing.T) {
	for _, c := range []struct {
		text, rest string
		r          Redirect
		err        string
	}{
		{text: "a b", rest: "a b"},
		{text: "< in", r: Redirect{Stdin: "in"}},
		{text: `a "b c" <in >out`, rest: `a "b c"`, r: Redirect{Stdin: "in", Stdout: "out"}},
		{text: "x>>'my log' y", rest: "x  y", r: Redirect{Stdout: "my log", Append: true}},
		{text: `"<" '>' \< z`, rest: `"<" '>' \< z`},
		{text: "a 2>err", err: "standard error"},
		{text: "a <", err: "Missing file name"},
		{text: "a > b c", rest: "a   c", r: Redirect{Stdout: "b"}}, // blanks kept: shellWords splits the rest
		{text: "a2>b", rest: "a2", r: Redirect{Stdout: "b"}},       // 2 is part of a word: not a descriptor
	} {
		rest, r, err := splitRedirections(c.text)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.text, err, c.err)
			}
			continue
		}
		if err != nil || rest != c.rest || r != c.r {
			t.Errorf("%q: %q %+v %v, want %q %+v", c.text, rest, r, err, c.rest, c.r)
		}
	}
}

// Whatever run is given, the redirections split off without a panic, and what is left
// is no longer than what was given.
func FuzzSplitRedirections(f *testing.F) {
	for _, s := range []string{"a < in > out", `"<" '>' \<`, "x>>'f g'", "2>e", "<", `a "unterminated`, `\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		rest, _, err := splitRedirections(text)
		if err == nil && len(rest) > len(text)+strings.Count(text, "<")+strings.Count(text, ">") {
			t.Fatalf("%q: rest %q", text, rest)
		}
	})
}

package gdbcmd

import (
	"slices"
	"strings"
	"testing"
)

// print's options: only before "--", abbreviated where the prefix is only one option's,
// each a set print line; the expression after them as written.
func TestPrintOptions(t *testing.T) {
	for _, c := range []struct {
		args, rest string
		sets       []string
		err        string
	}{
		{args: "-5", rest: "-5"},
		{args: "-pretty gs", rest: "-pretty gs"}, // no "--": an expression, as gdb's
		{args: "-- -5", rest: "-5"},
		{args: "-pretty -- gs", rest: "gs", sets: []string{"print pretty on"}},
		{args: "-p off -e 3 -- /x gs", rest: "/x gs", sets: []string{"print pretty off", "print elements 3"}},
		{args: "-elements unlimited -repeats 2 -null-stop -- a -- b", rest: "a -- b",
			sets: []string{"print elements unlimited", "print repeats 2", "print null-stop on"}},
		{args: "-raw-values -- v", rest: "v", sets: []string{"print raw-values on"}},
		{args: "-nosuch -- 1", err: "Unrecognized option at: -nosuch -- 1"},
		{args: "-a -- 1", err: "Unrecognized option at: -a -- 1"}, // address, array, array-indexes
		{args: "-elements -- 1", err: "-elements requires an argument"},
		{args: "-address -- p", rest: "p", sets: []string{"print address on"}},
		{args: "-symbol off -union off -- p", rest: "p", sets: []string{"print symbol off", "print union off"}},
		{args: "-nibbles -- p", err: "polydbg does not take print -nibbles"},
	} {
		sets, rest, err := parsePrintOptions(c.args)
		if c.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || rest != c.rest || !slices.Equal(sets, c.sets) {
			t.Errorf("%q: %q %q %v, want %q %q", c.args, sets, rest, err, c.sets, c.rest)
		}
	}
}

// Whatever follows print, its options parse or say why not, and what is left is the
// text after the first "--" (or all of it).
func FuzzPrintOptions(f *testing.F) {
	for _, s := range []string{"-pretty -- gs", "-- -5", "-e 3 -r 2 -- x", "--", " -- ", "-p on -- --", "a -- b", "-elements"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		sets, rest, err := parsePrintOptions(args)
		if err != nil {
			return
		}
		if sets == nil && rest != args && !strings.Contains(args, "--") {
			t.Fatalf("%q: options without a delimiter: rest %q", args, rest)
		}
		if len(rest) > len(args) {
			t.Fatalf("%q: rest %q longer than the input", args, rest)
		}
		for _, s := range sets {
			if !strings.HasPrefix(s, "print ") {
				t.Fatalf("%q: set %q", args, s)
			}
		}
	})
}

// info functions' and info variables' options: whatever follows, the expression is what
// the options leave of it, and -q and -n are taken only before it.
func FuzzSymbolQuery(f *testing.F) {
	for _, s := range []string{"-q -n ^ma", "-- -q", "-t int x", "x -q", "", "-n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		q, err := parseSymbolQuery(args)
		if err != nil {
			return
		}
		if !strings.HasSuffix(strings.TrimSpace(args), q.expr) {
			t.Fatalf("%q: expression %q is not what is left", args, q.expr)
		}
	})
}

// The ")" that closes a debugger function's call, whatever the text: one that is there,
// after where the search began, outside quotes.
func FuzzClosingParen(f *testing.F) {
	for _, s := range []string{`"print elements")`, `a(b), ")")`, `'(' )`, `"\")" )`, `((`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if i, ok := closingParen(s, 0); ok && (i < 0 || i >= len(s) || s[i] != ')') {
			t.Fatalf("%q: %d", s, i)
		}
	})
}

package syntax

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzSeeds are small inputs for both fuzzers, besides the programs of testdata.
var fuzzSeeds = []string{
	"", "x", "let x = 1\n", "x = (1 + 2) * -3 % 4", `"a${b}c${ {"k": [1, 2]}["k"][0] }d"`,
	`"${"${"${x}"}"}"`, "fn f(a, b,) { return a or not b and c <= d }", "if a {} else if b {} else {}",
	"for k, v in m { break }\nwhile x { continue }", "xs[i] += m.k.j", "f(\n1,\n2,\n)", "{a: 1, \"b\": 2,}",
	"0x1f 1_000 3.5 1e9 2.5e-3", `"\n\t\r\"\\\u{1F600}\$"`, "let x = 0x", "\"abc", "\"${", "${}", "}{)(][",
	"a < b < c", "x + 1 = 2", "if x\n{}", "fn() {}()", "not not -(-x)", "// c\n;;\n", "else", "\"${x\n}\"",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("testdata/*.kite")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// checkErrors checks the shape of an error from Parse or ParseExpr.
func checkErrors(src []byte, err error) error {
	var list ErrorList
	if !errors.As(err, &list) {
		return fmt.Errorf("error %T is not an ErrorList", err)
	}
	if len(list) == 0 || len(list) > MaxErrors {
		return fmt.Errorf("%d errors", len(list))
	}
	lines := int32(strings.Count(string(src), "\n") + 1)
	var last Pos
	for i, e := range list {
		p := e.Pos
		switch {
		case p.Line < 1 || p.Line > lines || p.Col < 1:
			return fmt.Errorf("error at invalid position: %v", e)
		case e.Msg == "":
			return fmt.Errorf("empty message: %v", e)
		case i > 0 && p.Line <= last.Line:
			return fmt.Errorf("errors out of order or two on one line: %v", list)
		}
		last = p
	}
	return nil
}

func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.kite", src)
		if file == nil {
			t.Fatal("nil file")
		}
		if err := checkPositions(src, stmtNodes(file.Stmts)...); err != nil {
			t.Fatal(err)
		}
		if err != nil {
			if err := checkErrors(src, err); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := roundTrip(file); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzParseExpr(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := ParseExpr("fuzz.kite", src)
		if err != nil {
			if x != nil {
				t.Fatal("an expression and an error")
			}
			if err := checkErrors(src, err); err != nil {
				t.Fatal(err)
			}
			return
		}
		if err := checkPositions(src, x); err != nil {
			t.Fatal(err)
		}
		text := ExprString(x)
		y, err := ParseExpr("fuzz.kite", []byte(text))
		if err != nil {
			t.Fatalf("reparsing %q printed as %q: %v", src, text, err)
		}
		if a, b := dump(x), dump(y); a != b {
			t.Fatalf("%q printed as %q parses differently:\n%s\n%s", src, text, a, b)
		}
	})
}

// TestPathological parses large inputs of shapes that could make a parser slow (quadratic
// recovery, deep recursion, many errors on one line). Each must finish quickly; a test
// timeout, not a clock, is the judge.
func TestPathological(t *testing.T) {
	const k = 10000
	r := strings.Repeat
	inputs := map[string]string{
		"skipped brackets":     "x = (" + r("[", k) + r(")", k),
		"stray closers":        r(")", k) + r("]", k) + r("}", k),
		"semicolon closers":    r(";)", k),
		"errors on one line":   r("let = 1;", k),
		"errors on many lines": r("let = 1\n", k),
		"bad arguments":        "f(" + r("1 2,", k),
		"bad escapes":          `x = "` + r(`\u{`, k),
		"interpolations":       r(`"${x}"`, k),
		"open interpolations":  r(`"${`, k),
		"assignments":          r("a=", k),
		"elses":                r("else ", k),
		"dots":                 "x" + r(".", k),
		"numbers":              r("1e", k),
		"fns":                  r("fn(", k),
		"blocks":               r("{", k) + r("}", k),
		"lines of brackets":    r("[\n", k),
		"unterminated strings": r("\"abc\n", k),
		"mixed":                r("f(a, [1, {b: \"${c + ", k/10) + r("}\"}])\n", k/10),
		"long line":            "x = " + r("a + ", k) + "a",
		"long list":            "x = [" + r("1, ", k) + "]",
	}
	for name, src := range inputs {
		f, err := Parse("t.kite", []byte(src))
		if f == nil {
			t.Fatalf("%s: nil file", name)
		}
		if err != nil {
			if e := checkErrors([]byte(src), err); e != nil {
				t.Errorf("%s: %v", name, e)
			}
		}
		x, err := ParseExpr("t.kite", []byte(src))
		if (x == nil) == (err == nil) {
			t.Errorf("%s: ParseExpr returned %v and %v", name, x, err)
		}
	}
}

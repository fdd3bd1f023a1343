package mcu

import (
	"math"
	"strings"
	"testing"
)

func TestParsePlot(t *testing.T) {
	for _, c := range []struct {
		line string
		name string
		v    float64
		ok   bool
	}{
		{">temp:21.5", "temp", 21.5, true},
		{">rpm:1234:3000", "rpm", 3000, true},
		{"> wave : -2 ", "wave", -2, true},
		{"temp:1", "", 0, false},
		{">:1", "", 0, false},
		{">a:b:c:1", "", 0, false},
		{">x:nope", "", 0, false},
		{">wa>wave:93", "wave", 93, true}, // a write trimmed by a full buffer, then a whole one
		{">wave:1>", "", 0, false},
	} {
		name, v, ok := ParsePlot(c.line)
		if ok != c.ok || name != c.name || v != c.v {
			t.Errorf("ParsePlot(%q) = %q, %v, %v", c.line, name, v, ok)
		}
	}
}

// FuzzParsePlot: any line parses or is refused without panicking, and a parsed line has
// a name without the separator (corpus in testdata/fuzz/FuzzParsePlot).
func FuzzParsePlot(f *testing.F) {
	for _, s := range []string{">temp:21.5", ">rpm:1234:3000", "> wave : -2 ", ">:1", ">a:b:c:1", ">x:NaN", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		name, v, ok := ParsePlot(line)
		if !ok {
			return
		}
		if name == "" || strings.ContainsAny(name, ":>") || !strings.HasPrefix(line, ">") {
			t.Fatalf("ParsePlot(%q) = %q, %v", line, name, v)
		}
		_ = math.IsNaN(v)
	})
}

package cli

import (
	"testing"

	"github.com/polydbg/polydbg/engine"
)

func TestFormatValue(t *testing.T) {
	for _, tt := range []struct {
		v      engine.Variable
		format byte
		cTypes bool
		want   string
	}{
		{engine.Variable{Value: "-1", Type: "int"}, 'x', true, "0xffffffff"},
		{engine.Variable{Value: "-1", Type: "int"}, 'x', false, "0xffffffffffffffff"},
		{engine.Variable{Value: "255", Type: "unsigned char"}, 'd', true, "-1"},
		{engine.Variable{Value: "{a = 7, b = -3, c = 16}", Type: "struct pair"}, 'x', true, "{a = 0x7, b = 0xfffffffffffffffd, c = 0x10}"},
		{engine.Variable{Value: `["a1", 2.5, 10]`, Type: "list"}, 'x', false, `["a1", 2.5, 0xa]`},
		{engine.Variable{Value: "x1 + 3", Type: ""}, 't', false, "x1 + 11"},
		{engine.Variable{Value: "0x10"}, 'd', false, "16"},
		{engine.Variable{Value: "65"}, 'c', false, "65 'A'"},
		{engine.Variable{Value: "8"}, 'o', false, "010"},
		{engine.Variable{Value: "-2"}, 'u', false, "18446744073709551614"},
		{engine.Variable{Value: "7"}, 0, false, "7"},
	} {
		if got := formatValue(tt.v, tt.format, tt.cTypes); got != tt.want {
			t.Errorf("formatValue(%q, %c) = %q, want %q", tt.v.Value, tt.format, got, tt.want)
		}
	}
}

func TestSubstituteHistory(t *testing.T) {
	d := &Debugger{values: []engine.Variable{{Value: "1"}, {Value: "-2"}, {Value: `"s$1"`}}}
	for _, tt := range []struct{ in, want, err string }{
		{"$1 + $2", "(1) + (-2)", ""},
		{"$ + $$ + $$2 + $$0", `("s$1") + (-2) + (1) + ("s$1")`, ""},
		{`"$1" + $rax + $pc`, `"$1" + $rax + $pc`, ""},
		{"$4", "", "History has not yet reached $4."},
		{"$$5", "", "History does not go back to $-2 (it starts at $1)."},
		{"n", "n", ""},
	} {
		got, err := d.substituteHistory(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := (&Debugger{}).substituteHistory("$"); err == nil || err.Error() != "History is empty." {
		t.Errorf("empty history: %v", err)
	}
}

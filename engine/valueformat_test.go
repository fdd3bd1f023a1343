package engine

import "testing"

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

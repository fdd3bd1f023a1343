package elfsym

import (
	"math"
	"testing"
)

func TestFloatText(t *testing.T) {
	for _, c := range []struct {
		f        FloatFormat
		hi, bits uint64
		want     string
	}{
		{Double, 0, math.Float64bits(0.1), "0.10000000000000001"},
		{Single, 0, uint64(math.Float32bits(0.1)), "0.100000001"},
		{Double, 0, 0xfff8000000000000, "-nan(0x8000000000000)"},
		{Double, 0, math.Float64bits(math.Inf(-1)), "-inf"},
		{Double, 0, math.Float64bits(1234567), "1234567"},
		{Half, 0, 0xffff, "-nan(0x3ff)"},
		{Half, 0, 0x3c00, "1"},
		{BFloat16, 0, 0xff00, "-1.701e+38"},
		{Single, 0, 0xffff0000, "-nan(0x7f0000)"},
		{Extended, 0x3fff, 0xc000000000000000, "1.5"},
		{Extended, 0, 0, "0"},
		{Extended, 0x4000, 0xc90fdaa22168c235, "3.14159265358979323851"},
		{Extended, 0x7fff, 0x8000000000000000, "inf"},
	} {
		if got := FloatText(c.f, c.hi, c.bits); got != c.want {
			t.Errorf("FloatText(%+v, %#x, %#x) = %q, want %q", c.f, c.hi, c.bits, got, c.want)
		}
	}
	for _, s := range []string{"1.5", "inf", "-inf", "nan(0x8000000000000)", "-nan(0x3ff)"} {
		if _, err := ParseFloatText(s); err != nil {
			t.Errorf("ParseFloatText(%q): %v", s, err)
		}
	}
	if _, err := ParseFloatText("nan(x"); err == nil {
		t.Error(`ParseFloatText("nan(x") accepted`)
	}
}

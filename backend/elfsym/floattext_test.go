package elfsym

import (
	"debug/dwarf"
	"encoding/binary"
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

// A target's register parts have types no C program declares: 2-byte floats (a half, a
// bfloat16) and 128-bit integers, formatted as gdb formats them.
func TestNarrowFloatsAndWideInts(t *testing.T) {
	f := &File{Arch: &Arch{PtrSize: 8, ByteOrder: binary.LittleEndian}}
	base := func(name string, size int64) dwarf.BasicType {
		return dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: name}}
	}
	wide := make([]byte, 16)
	wide[15] = 0x80 // the sign bit: -2^127 signed, 2^127 unsigned
	for _, c := range []struct {
		t    dwarf.Type
		b    []byte
		want string
	}{
		{&dwarf.FloatType{BasicType: base("builtin_type_ieee_half", 2)}, []byte{0x00, 0x3c}, "1"},
		{&dwarf.FloatType{BasicType: base("builtin_type_bfloat16", 2)}, []byte{0x00, 0xff}, "-1.701e+38"},
		{&dwarf.UintType{BasicType: base("uint128_t", 16)}, wide, "170141183460469231731687303715884105728"},
		{&dwarf.IntType{BasicType: base("int128_t", 16)}, wide, "-170141183460469231731687303715884105728"},
	} {
		if v := f.FormatValue(c.t, c.b, 0, false, nil, 0); v.Text != c.want {
			t.Errorf("%s % x = %q, want %q", c.t.Common().Name, c.b, v.Text, c.want)
		}
	}
}

// C++'s std::nullptr_t (DWARF's unspecified type decltype(nullptr)) is a null pointer
// (gdb 13 cannot read one: "Attempt to dereference a generic pointer."); another
// unspecified type stays raw bytes.
func TestNullptrIsANullPointer(t *testing.T) {
	f := &File{Arch: &Arch{PtrSize: 8, ByteOrder: binary.LittleEndian}}
	np := &dwarf.UnspecifiedType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: 8, Name: "decltype(nullptr)"}}}
	if v := f.FormatValue(np, make([]byte, 8), 0, false, nil, 0); v.Text != "0x0" || v.Kind != "pointer" {
		t.Errorf("nullptr = %q (%s), want 0x0 (pointer)", v.Text, v.Kind)
	}
	other := &dwarf.UnspecifiedType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: 2, Name: "mystery"}}}
	if v := f.FormatValue(other, []byte{1, 2}, 0, false, nil, 0); v.Text != "0102" || v.Kind != "raw" {
		t.Errorf("mystery = %q (%s), want 0102 (raw)", v.Text, v.Kind)
	}
}

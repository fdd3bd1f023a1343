package engine

import (
	"strings"
	"testing"
)

func TestParseAddress(t *testing.T) {
	for in, want := range map[string]uint64{"0x20000000": 0x20000000, " 4096 ": 4096, "0b101": 5} {
		if got, err := ParseAddress(in); err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %#x, %v", in, got, err)
		}
	}
	if _, err := ParseAddress("main"); err == nil {
		t.Error("ParseAddress(main) gave no error")
	}
}

func TestFormatUnits(t *testing.T) {
	data := []byte{0xff, 0xfe, 'A', 0, 1, 2, 3, 4}
	for _, tt := range []struct {
		unit   int
		format byte
		want   string
	}{
		{1, 'x', "0xff 0xfe 0x41 0x00 0x01 0x02 0x03 0x04"},
		{2, 'd', "-257 65 513 1027"},
		{2, 'u', "65279 65 513 1027"},
		{4, 'x', "0x0041feff 0x04030201"},
		{8, 'x', "0x040302010041feff"},
		{1, 'c', `-1 '\377' -2 '\376' 65 'A' 0 '\000' 1 '\001' 2 '\002' 3 '\003' 4 '\004'`},
		{4, 'd', "4325119 67305985"},
	} {
		if got := strings.Join(FormatUnits(data, tt.unit, tt.format), " "); got != tt.want {
			t.Errorf("FormatUnits(%d, %c) = %s, want %s", tt.unit, tt.format, got, tt.want)
		}
	}
}

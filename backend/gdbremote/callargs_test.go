package gdbremote

import (
	"encoding/binary"
	"math"
	"slices"
	"testing"
)

// A double in x87's extended format, as a long double lies in memory.
func TestExtended80(t *testing.T) {
	for _, c := range []struct {
		f    float64
		mant uint64
		exp  uint16
	}{
		{1, 1 << 63, 0x3fff}, {-2.5, 0xa000000000000000, 0xc000}, {0, 0, 0}, {math.Inf(1), 1 << 63, 0x7fff},
		{0.1, 0xccccccccccccd000, 0x3ffb}, {math.SmallestNonzeroFloat64, 1 << 63, 0x3fff - 1074},
	} {
		b := extended80(c.f)
		if m, e := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint16(b[8:]); m != c.mant || e != c.exp || len(b) != 16 {
			t.Errorf("extended80(%g) = %#x, %#x; want %#x, %#x", c.f, m, e, c.mant, c.exp)
		}
	}
}

// Arguments go where the x86-64 ABI puts them: integers in six registers, then the stack;
// a small class's eightbytes in the registers of their classes, or all of it on the stack
// when they do not fit; a long double on the stack at 16 bytes.
func TestCallArgsPlaces(t *testing.T) {
	var a callArgs
	for i := range 5 {
		a.integer(uint64(i))
	}
	a.object([]byte{7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, []bool{false, true})  // {long, double}: the sixth register and xmm0
	a.object([]byte{9, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}, []bool{false, false}) // two integers, no register left: the stack
	a.integer(6)                                                                           // on the stack, after the object
	a.float(2)                                                                             // xmm1
	a.onStackAligned(make([]byte, 10), 16)                                                 // a long double: at 32
	if want := []uint64{0, 1, 2, 3, 4, 7}; !slices.Equal(a.ints, want) {
		t.Errorf("integer registers %v, want %v", a.ints, want)
	}
	if want := []uint64{1, 2}; !slices.Equal(a.sse, want) {
		t.Errorf("SSE registers %v, want %v", a.sse, want)
	}
	// the stack: the object (16), 6 (8), padding to 32, the long double (16)
	if len(a.stack) != 48 || a.stack[0] != 9 || a.stack[8] != 8 || a.stack[16] != 6 {
		t.Errorf("stack % x", a.stack)
	}
}

package wire

import "unicode/utf8"

// WholeRunes returns b without a UTF-8 sequence cut short at its very end, for output
// handed out in pieces: the cut character then comes whole with the next piece instead of
// being mangled in both (bytes that are not UTF-8 at all are left as they are).
func WholeRunes(b []byte) []byte { return b[:len(b)-incompleteSuffix(b)] }

// incompleteSuffix returns the length of a UTF-8 sequence cut short at the end of b.
func incompleteSuffix(b []byte) int {
	for i := 1; i <= 3 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < 0x80 {
			return 0
		}
		if utf8.RuneStart(c) {
			need := 0
			switch {
			case c&0xE0 == 0xC0:
				need = 2
			case c&0xF0 == 0xE0:
				need = 3
			case c&0xF8 == 0xF0:
				need = 4
			}
			if need > i {
				return i
			}
			return 0
		}
	}
	return 0
}

package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// enumsProg has enums of single bits (flags), of several bits, with a zero, with
// duplicates, and values that no enumerator names.
const enumsProg = `enum flags { F_READ = 1, F_WRITE = 2, F_EXEC = 4 };
enum color { RED = -1, GREEN = 5, BLUE };
enum m1 { A1 = 1, B1 = 2, M1 = 0xc };
enum m3 { Z3 = 0, A3 = 1, B3 = 2 };
enum m4 { A4 = 1, A4b = 1, B4 = 2 };
enum flags f1 = F_READ | F_WRITE, f2 = 8, f3 = F_EXEC | 16, f0 = 0;
enum color c1 = BLUE, c2 = 3;
enum m1 v1 = A1 | 0xc;
enum m3 v3 = 3, v3b = 0, v3c = 4;
enum m4 v4 = 3;
int main(void) { return f1 + f2 + f3 + f0 + c1 + c2 + v1 + v3 + v3b + v3c + v4; }
`

// An enum whose values are single bits is one of flags, as gdb takes it: a value no
// enumerator names is written as the names of its bits, (F_READ | F_WRITE), with what is
// left (unknown: 0x10); a format prints its number. Other enums print the number. An enum
// is as wide as its type and unsigned without negative values in arithmetic (f1 - 5 is
// 4294967294), and -f, ~f, +f keep its type, as gdb's. Against gdb.
func TestFlagEnumsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "enums", enumsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("p f1", "p f2", "p f3", "p f0", "p c1", "p c2",
		"p v1", "p v3", "p v3b", "p v3c", "p v4", "p/x f1", "p/x f3", "p/d f2", "p (enum flags)3", "p (enum flags)5",
		"p (enum color)7", "p F_READ | F_EXEC", "p f1 + 1", "p f1 & F_READ", "output f1", "output/x f3", "p (int)f3",
		"p -f1", "p ~f1", "p +f1", "p !f1", "p -c1", "p ~RED", "p -F_READ", "p -f1 + 1", "whatis -f1", "p/x -f1",
		"p f1 - 5", "p c1 - 10", "whatis f1 - 5", "whatis c1 - 10", "p F_READ - 2", "whatis F_READ - 2", "p RED - 1",
		"p v4 * 2", "break main", "run", "set var f2 = F_EXEC | F_WRITE", "p f2", "p/x f2"))
	compareLines(t, "flag enums", dir, ours, theirs)
}

// bitsProg has bit fields of enums, bools, signed chars, a wide one, and an int whose bits
// lie past its type's size from the struct's start.
const bitsProg = `#include <stdbool.h>
enum color { RED, GREEN, BLUE };
enum sgn { NEG = -2, POS = 1 };
struct bits { enum color c : 2; bool on : 1; enum sgn s : 2; signed char sc : 3; unsigned long long wide : 50; int neg : 4; };
struct bits bb = { BLUE, true, NEG, -3, 0x3ffffffffffffULL, -8 };
int main(void) { return bb.c + bb.on; }
`

// A bit field's value is its bits alone, in arithmetic too (bb.wide + 1, -bb.sc, bb.neg *
// 2), an enum's named, a bool's true; one placed by its bit offset past its type's size from
// the struct's start (int neg : 4 at bit 58) is read and written where it is. Against gdb.
func TestBitFieldsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "bits", bitsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("p bb", "p bb.c", "p bb.on", "p bb.s", "p bb.sc",
		"p bb.wide", "p bb.neg", "p bb.c == BLUE", "p bb.wide + 1", "p bb.neg * 2", "p/x bb", "p -bb.sc", "p !bb.on",
		"p ~bb.on", "output bb", "p/d bb.c", "p bb.c + 1", "break main", "run", "set var bb.neg = 5", "p bb",
		"set var bb.c = GREEN", "set var bb.wide = 7", "p bb", "p sizeof(bb)", "ptype/o struct bits"))
	compareLines(t, "bit fields", dir, ours, theirs)
}

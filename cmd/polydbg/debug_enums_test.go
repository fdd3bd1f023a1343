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
// left (unknown: 0x10); a format prints its number. Other enums print the number. Against
// gdb.
func TestFlagEnumsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "enums", enumsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("p f1", "p f2", "p f3", "p f0", "p c1", "p c2",
		"p v1", "p v3", "p v3b", "p v3c", "p v4", "p/x f1", "p/x f3", "p/d f2", "p (enum flags)3", "p (enum flags)5",
		"p (enum color)7", "p F_READ | F_EXEC", "p f1 + 1", "p f1 & F_READ", "output f1", "output/x f3", "p (int)f3",
		"break main", "run", "set var f2 = F_EXEC | F_WRITE", "p f2", "p/x f2"))
	compareLines(t, "flag enums", dir, ours, theirs)
}

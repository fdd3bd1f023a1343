package main

// Values C has beyond the plain scalars, as gdb shows them: variable-length arrays,
// complex numbers and 128-bit integers.

import (
	"strings"
	"testing"
)

// vlaProg has a variable-length array of two dimensions and one of one, complex numbers
// of float and double, and __int128 integers.
const vlaProg = `#include <stdio.h>
#include <complex.h>
static double work(int n, int m) {
  double grid[n][m];
  int row[n];
  for (int i = 0; i < n; i++) { row[i] = i * 2; for (int j = 0; j < m; j++) grid[i][j] = i + j / 10.0; }
  return grid[n - 1][m - 1] + row[n - 1];
}
int main(void) {
  double complex z = 1.5 + 2.0 * I;
  float complex fz = 0.5f - 1.0f * I;
  __int128 big = (__int128)1 << 100;
  unsigned __int128 ubig = ~(unsigned __int128)0;
  _Bool flag = 1;
  double w = work(3, 4);
  printf("%f %f %f %d\n", creal(z), cimag(fz), w, flag);
  return (int)(big >> 100) + (int)(ubig & 1);
}
`

// A variable-length array is read with the bounds its frame gives it (double [3][4]; was
// an empty value and double [][0]), indexed, sized, set and listed; complex numbers print
// as 1.5 + 2i, with gdb's $_creal and $_cimag, computed with (z * z, z - fz, whose type is
// the wider operand's) and set; __int128 values in every format, set, and
// refused in arithmetic in gdb's words (but not in && || !).
func TestWideValuesAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "wide", vlaProg)
	ours, theirs := batchAndGDB(t, bin, exe, exCommands("break 7", "break 16", "run",
		"p grid", "p row", "p sizeof(grid)", "ptype grid", "whatis row", "whatis grid[1]", "p grid[1]", "p row[1]@2",
		"p *grid@2", "info locals", "p grid[2][3]", "set var grid[2][3] = 7.5", "p grid[2]", "set var row[2] = 9",
		"p row", "p &row", "p &grid[1]", "p sizeof(row)/sizeof(row[0])", "p grid[1][2] + row[1]", "output row",
		"p/x row", "finish", "continue",
		"p z", "p fz", "ptype z", "whatis fz", "p sizeof(z)", "p $_cimag(z)", "p $_creal(fz)", "p $_cimag(z) * 2",
		"output z", "p z + 1", "p -z", "p z * z", "p z / 2", "p z - fz", "p fz * 2.5", "whatis z + 1", "whatis fz + 1",
		"whatis fz + 1.0", "p z == z", "p z != fz", "p z < 1", "p !z", "set var z = fz", "p z", "set var fz = 2", "p fz", "p big", "p ubig", "p/x big", "p/x ubig", "p/d ubig", "p/o big", "p/t big", "p/z big", "p/u big",
		"set var big = -5", "p big", "p/x big", "p/u big", "p/d big", "p big + 1", "p -big", "p ubig / 3", "p big == 0",
		"p big && 1", "p !big", "p 0 || big", "p sizeof(big)", "whatis big", "info locals"))
	compareLines(t, "wide values", dir, ours, theirs)
}

// atomicProg has C11 _Atomic variables: plain, through stdatomic.h's typedefs, as struct
// members and pointed to.
const atomicProg = `#include <stdatomic.h>
#include <stdio.h>
struct counters { _Atomic int hits; atomic_long total; int plain; };
atomic_int shared = 3;
_Atomic(unsigned char) flag = 1;
struct counters cs = {1, 2, 3};
_Atomic int *ap = &cs.hits;
int main(void) {
  atomic_fetch_add(&shared, 2);
  printf("%d %d\n", atomic_load(&shared), cs.plain);
  return 0;
}
`

// C11's _Atomic types, which debug/dwarf leaves unsupported, as gdb names and reads them
// (type = _Atomic int; was (unsupported type AtomicType) and the value's raw bytes), before
// the run and during it, set too.
func TestAtomicTypesAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "atomics", atomicProg)
	ours, theirs := batchAndGDB(t, bin, exe, exCommands("p shared", "ptype shared", "whatis shared", "p flag",
		"whatis flag", "p cs", "ptype cs", "whatis ap", "ptype ap", "p sizeof(cs)", "whatis cs.total",
		"ptype struct counters", "break main", "run", "p *ap", "p shared + 1", "set var shared = 9", "p shared",
		"p cs.hits", "set var cs.total = 7", "p cs", "p/x flag", "output cs"))
	compareLines(t, "atomic types", dir, ours, theirs)
}

// At a function's start a variable-length array's bounds hold whatever the stack held:
// listing the locals there answers (their values, gdb's error reading one, or gdb's
// max-value-size error for one whose garbage bounds make it too large) and the program
// runs on. (A garbage bound made
// polydbg allocate the read until it crashed.)
func TestUnsetArrayBoundsAnswer(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildNative(t, "wide", vlaProg)
	out := string(runBatch(t, bin, exe, nil, exCommands("break work", "run", "info locals", "p sizeof(row)", "continue")))
	for _, want := range []string{"grid = ", "row = ", "exited with code"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

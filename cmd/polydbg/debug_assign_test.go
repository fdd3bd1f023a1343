package main

// Whole structs, unions and arrays set as gdb sets them.

import "testing"

// wholeProg has structs in a struct, a union, a two-dimensional array, a struct returned
// by a function and a struct inside a heap object.
const wholeProg = `#include <stdlib.h>
#include <stdio.h>
struct pt { double x, y; };
struct rect { struct pt lo, hi; const char *name; };
union val { int i; float f; unsigned char b[4]; };
struct msg { int len; struct { short a, b; } hdr; };
static int grid[3][4];
static double pair[2] = {7.5, 8.5};
static struct rect make_rect(double w, double h) {
  struct rect r = {{0, 0}, {w, h}, "box"};
  return r;
}
int main(void) {
  union val u;
  struct msg *m = malloc(sizeof *m);
  m->len = 8; m->hdr.a = 1; m->hdr.b = -2;
  u.f = 1.5f;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      grid[i][j] = i * 10 + j;
  struct rect r = make_rect(3.0, 4.5);
  printf("%s %d %g %d\n", r.name, m->len, pair[0], u.i);
  free(m);
  return 0;
}
`

// set var and print's = set a whole struct, union or array from another of its type (a
// member, a function's result, an array's row, a convenience variable holding one) or from
// a number of its very size (a union of an int from 3, of a float from 2.5f); one of
// another size is gdb's Invalid cast. (Was: hi (struct pt) is not a number, cannot set a
// whole int [4].)
func TestWholeAssignmentAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "whole", wholeProg)
	ours, theirs := batchAndGDB(t, bin, exe, exCommands("break 22", "run",
		"set var r.lo = r.hi", "p r", "set var r = make_rect(1, 2)", "p r", "p r.lo = r.hi", "set var u = u",
		"set var grid[0] = grid[1]", "p grid", "set var r.lo = 5", "p m->hdr = m->hdr", "p *m",
		"p $r = r", "set var r.hi.x = 0", "set var r = $r", "p r", "p u = 3", "p u", "set var u = 2.5f", "p u",
		"set var u = 2.5", "set var r.lo = pair", "set var grid[2] = grid", "p grid[2]", "p $g = grid[1]",
		"set var grid[0] = $g", "p grid[0]", "p r"))
	compareLines(t, "whole assignment", dir, ours, theirs)
}

// A member or element of a history value read from memory is assigned where it was read,
// as gdb writes it ($1.lo.x = 9 changes r; was gdb's refusal for $1 itself, and print's
// $1.hi.y = 7 a register's name): the program's variable changes, the history value not;
// $1 itself is not assigned to.
func TestHistoryMembersWrittenThroughAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "whole", wholeProg)
	ours, theirs := batchAndGDB(t, bin, exe, exCommands("break 22", "run",
		"p r", "set var $1.lo.x = 9", "p r", "p $1", "p $1.hi.y = 7", "p r.hi", "set var $1.name = 0", "p r",
		"p 5", "set var $6 = 1", "p &$7", "p &$1", "p $1.lo.y++", "p r.lo", "p grid", "set var $11[1][2] = 99",
		"p grid[1]", "p $11[2][0] = -1", "p grid[2]", "p *m", "set var $15.len = 3", "p m->len"))
	compareLines(t, "history members written through", dir, ours, theirs)
}

package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// boxesProg has structs, unions and arrays, global and local, to print and use again.
const boxesProg = `struct pt { double x, y; };
struct rect { struct pt lo, hi; const char *name; };
union val { int i; float f; unsigned char b[4]; };
static int grid[3][4];
static double ratios[5] = {0.5, 1.25, -3.0, 1e10, 1.0/3};
static struct rect box = {{1, 2}, {3, 4.5}, "box"};
static struct rect *where = &box;
static int area(struct rect r) { return (int)((r.hi.x - r.lo.x) * (r.hi.y - r.lo.y)); }
static struct pt centre(struct rect r) { struct pt c = {(r.lo.x + r.hi.x) / 2, (r.lo.y + r.hi.y) / 2}; return c; }
int main(void) {
	union val u;
	struct rect r = box;
	u.f = 1.5f;
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			grid[i][j] = i * 10 + j;
	r.hi.x = 7;
	box.lo.x = 0;
	return area(r) + u.b[3] + (int)centre(r).x;
}
`

// A value printed is kept whole, as gdb's history keeps it: $.lo, $$2.hi.y, $1[2][3],
// *$1.name@2, sizeof($1), whatis and ptype of a part of one, a union's member, a struct a
// finish or a call returned; it holds the contents it had (box.lo.x is changed after $1 was
// printed), and an index past an array's bounds reads the memory after it, as gdb's does.
// A convenience variable holds a struct whole too; an array or a function set to one is
// kept as its address. s->f of a struct is s.f and p.f of a pointer p->f, as gdb takes
// them. A history value is not assigned to. Against gdb.
func TestHistoryValuesWholeAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "boxes", boxesProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break 18", "run",
		"p box", "p $.lo", "p $$.hi.y", "p $1.name", "p *$1.name@2", "p $1.lo.x + $1.hi.y", "p sizeof($1)",
		"whatis $1", "whatis $1.lo", "ptype $1.lo", "p ratios", "p $[1] + 1", "p $[6]", "p grid", "p $[2][3]",
		"p $[1]", "p u", "p $.f", "p/x $$.b", "p *where", "p $.hi", "p where->lo", "p where.lo", "p box->hi",
		"next", "p box.lo", "p $1.lo", "p $1", "p ratios[7]", "p grid[0][5]", "p &ratios[9]", "p grid[1]@2",
		"set $v = box", "p $v.hi", "p $v", "whatis $v", "set $g = grid", "p $g", "p $g[1]", "p $g[1][1]", "whatis $g",
		"set $f = area", "p $f", "set $v = 5", "p $v * 2", "set $n.x = 1", "set var $1 = box", "p $nosuch",
		"p area($1)", "p area(*where)", "output $1.hi", "break centre", "continue", "finish", "p $.x", "p $$3.lo",
		"p centre($1)", "p $.y * 2", "whatis $"))
	compareLines(t, "history values", dir, ours, theirs)
}

package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// flexibleProg has structs that end in a flexible array member (int data[]) and in a GNU
// zero-length array (char tag[0]), filled past their size.
const flexibleProg = `#include <stdlib.h>
struct v { int n; int data[]; };
struct w { int n; char tag[0]; };
struct z { int n; struct { int a; } items[]; };
int main(void) {
	struct v *p = malloc(sizeof *p + 12);
	struct w *q = malloc(sizeof *q + 4);
	struct z *r = malloc(sizeof *r + 8);
	p->n = 3; p->data[0] = 7; p->data[1] = 8;
	q->n = 1; q->tag[0] = 'x'; q->tag[1] = 0;
	r->n = 1; r->items[0].a = 4;
	return p->n + q->n + r->n;
}
`

// A flexible array member is shown by its address, as gdb shows it (a char one with its
// string), read and written past its size, and typed int [] (a zero-length array int [0]):
// debug/dwarf counts both 0. Against gdb.
func TestFlexibleArrayMembersAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "flexible", flexibleProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break 12", "run",
		"p *p", "p p->data", "p *q", "p q->tag", "p *r", "p r->items", "p p->data[1]", "p *p->data@2",
		"ptype p", "ptype q", "whatis p->data", "whatis q->tag", "p sizeof(p->data)", "p &p->data", "p p->data + 1",
		"p *p->data", "p/x *p", "output *p", "p r->items[0]", "p r->items[0].a", "set var p->data[2] = 9",
		"p p->data[2]", "p q->tag[0]", "p/x p->data", "ptype struct z", "ptype/o struct v", "whatis &q->tag"))
	compareLines(t, "flexible array members", dir, ours, theirs)
}

// namelessProg has types without names: members, pointed to, in arrays, nested, enums,
// a typedef of one and a variable of one.
const namelessProg = `struct outer {
	int k;
	struct { int a; union { int x; float y; } u; struct { char c; } *pp; } in;
	struct { int a; } *ptr;
	struct { int b; } arr[2];
	union { int q; struct { short s1, s2; }; };
	enum { ONE, TWO } e;
	enum { THREE } *ep;
} o;
struct flat {
	int k;
	union { int q; struct { short s1, s2; }; };
	enum { FOUR, FIVE } e;
} f;
struct holes {
	char k;
	struct { char c; int x; } *p2;
	struct { short a; } in;
	struct { char c2; long y; } arr[2];
	union { int q; } *up;
	enum { E1 } *ep;
} h;
typedef struct { int n; struct { int m; } sub; } tdef;
tdef td;
struct { int z; } anon_var;
int main(void) { return o.k + td.n + anon_var.z + f.k + h.k; }
`

// ptype expands a type without a name where gdb does: a member's, also pointed to or in an
// array, one level down (union {...} below it), an enum's constants; an expression of one
// before the program runs; ptype/o heads a typedef's layout without the column names and
// lays out a struct without a name that a member points to with gdb's offsets (counted from
// the last struct member before it, without padding or total size).
// Against gdb.
func TestAnonymousTypesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "anonymous", namelessProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands(
		"ptype struct outer", "ptype o.in", "ptype td", "ptype tdef", "whatis o.in", "whatis o.arr", "ptype o.arr",
		"ptype o.ptr", "whatis o.ptr", "ptype anon_var", "whatis anon_var", "ptype o.e", "whatis o.e", "ptype o.ep",
		"ptype/o struct flat", "ptype/o tdef", "ptype/o td", "ptype/o struct outer", "ptype/o struct holes", "ptype/o o.in",
		"p o", "p sizeof(o)", "break main", "run",
		"ptype o.in", "ptype o.arr", "ptype/o struct flat", "p f"))
	compareLines(t, "types without names", dir, ours, theirs)
}

// declaratorsProg has arrays of pointers to functions and to arrays, and pointers to them.
const declaratorsProg = `struct node { int v; };
static int add(int a, int b) { return a + b; }
static struct node *mk(int v) { static struct node n; n.v = v; return &n; }
int (*ops[2])(int, int) = {add, add};
struct node *(*makers[3])(int) = {mk};
char (*rows[2])[4];
int (**pp[2])(int, int);
static char buf[4] = "abc";
int main(void) { rows[0] = &buf; pp[0] = &ops[0]; return ops[0](1, 2) + makers[0](3)->v; }
`

// C's declarators nest as C nests them, named and parsed: an array of pointers to
// functions is int (*[2])(int, int), a pointer to one int (*(*)[2])(int, int), in whatis,
// ptype (the return type expanded), info variables, casts and sizeof. Against gdb.
func TestNestedDeclaratorsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "declarators", declaratorsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("whatis ops", "ptype ops", "whatis makers",
		"ptype makers", "whatis rows", "ptype rows", "whatis pp", "ptype pp", "p ops", "p sizeof(ops)", "whatis &ops",
		"whatis ops[0]", "whatis &makers", "ptype &makers", "info variables ops", "p makers", "p rows", "whatis &rows",
		"ptype mk", "whatis &mk", "ptype &mk", "whatis (int (*(*)[2])(int, int))0", "p sizeof(int (*[2])(int, int))",
		"whatis (char (*)[4])0", "ptype struct node *(*)(int)", "whatis (void (*)(void))0", "whatis (void)0",
		"p (int (*)(int, int))ops[1]", "whatis (int[3])0", "p sizeof (char *[2][3])", "whatis (int (*)[])0",
		"p (int (int))0", "p sizeof(int ((*)))", "p (int (*)[])0"))
	compareLines(t, "nested declarators", dir, ours, theirs)
}

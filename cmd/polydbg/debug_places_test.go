package main

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// nullListProg stops with a list head that is still null.
const nullListProg = `#include <stdlib.h>
struct node { int val; char tag[8]; struct node *next; };
struct node *push(struct node *head, int v) {
	struct node *n = calloc(1, sizeof *n);
	n->val = v;
	n->next = head;
	return n;
}
int main(void) {
	struct node *h = NULL;
	h = push(h, 1);
	return h->val;
}
`

// What a null pointer leads to is a place still, as gdb reads lazily: h->next of a null h
// is at 0x10, and its address, size and type answer; its contents fail with the address
// that could not be read (0x10, 0x4 for a member's element, 0x18 for h[1]), as does a write
// to it. A function returning a pointer is typed as gdb spells it (struct node *(struct
// node *, int), no space after the star), and ptype expands its return type (struct node
// {...} *(struct node *, int)). Against gdb.
func TestPlacesThroughANullPointerAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "nulllist", nullListProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break 11", "run",
		"p h", "p h->val", "p h->next", "p &h->next", "p h->tag", "p *h", "p h->tag[2]", "p &h->tag", "p &h->tag[1]",
		"p h[1]", "p &h[1]", "p &h->next->val", "whatis h->next->val", "p sizeof(h->tag)", "ptype h->next", "p &*h",
		"p h->val + 1", "p (long)h->next", "output h->tag", "whatis *h", "p sizeof(*h)", "p h->tag[1]@2",
		"x/2x &h->next", "set var h->val = 3", "set var h->next = 0", "whatis *h->next", "ptype h->next->tag",
		"p sizeof(h->next->next->tag)", "p h->next->val", "p sizeof(push(h, 1))", "next", "p h->next", "p *h",
		"p push", "p &push", "whatis push", "whatis &push", "p *push", "ptype push", "ptype &push",
		"ptype (struct node *(**)(int))0", "ptype (struct node (*)[2])0", "whatis (char (**)[2])0"))
	compareLines(t, "places through a null pointer", dir, ours, theirs)
}

// An expression that does not parse gets gdb's words, naming the text from where it went
// wrong (A syntax error in expression, near `.val'.), an unopened ) gdb's Junk after end of
// expression., a character C has not gdb's Invalid character; a breakpoint's or a
// condition command's condition says the same alone; set var of what is not an
// assignment warns and runs it (an increment without the warning). Against gdb.
func TestSyntaxErrorsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "nulllist", nullListProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, exCommands("break 11", "run",
		"p &&h", "p h +", "p 1 2", "p )", "p h->", "p (1", "p #", "p h..val", "p [1]", "p h->val)", "output 1 +",
		"x/2x h +", "break push if v %", "condition 1 h +", "p push(h, 1", "p h = = 1", "p h =", "set var h = ",
		"next", "set var h->val++", "p h->val", "set var ++h->val", "p h->val", "set var", "set var h->val + 1",
		"set var h == 0", "info breakpoints"))
	compareLines(t, "syntax errors", dir, ours, theirs)
}

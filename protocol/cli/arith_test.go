package cli_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

const cArith = `#include <stdio.h>
enum color { RED, GREEN = 5, BLUE };
struct point { int x, y; };
struct shape { struct point at; struct point *next; unsigned flags; double scale; float ratio; char tag; enum color c; };
int values[6] = {3, 1, 4, 1, 5, 9};
long big = 1L << 40;
unsigned char dim = 200;
int measure(struct shape *s, int n, unsigned mask) {
    int i = n % 4;
    return s->at.x * n + values[i] + (int)(s->flags & mask);
}
int main(void) {
    struct point p = {7, -3};
    struct shape sh = {{2, 5}, &p, 0xf0u, 2.5, 0.75f, 'k', BLUE};
    int r = measure(&sh, 10, 0x30u);
    printf("%d\n", r);
    return 0;
}
`

// arithExprs are C expressions a gdb user types at a stop in measure; each is printed by
// polydbg and by gdb, and the answers compared.
var arithExprs = []string{
	"n > 5", "!n", "n == 10 && mask", // a truth is C's 1 or 0
	"values[1]@3", "s->at.x@2", "*values@2", // gdb's v@n
	"sizeof(int)", "sizeof(struct shape)", "sizeof values", "sizeof(s->scale)", "sizeof(long) * 2",
	"(char)n", "(unsigned char)300", "(long)s->scale", "(float)n / 4", "(int)s->tag", "(enum color)5",
	"*(values + 2)", "(&values[0])[3]", "&values[4] - &values[1]", "s->next[0].x", "*(s->next)",
	"((struct point *)s->next)->y", "(values + 1)[i]",
	"&values[2]", "values + 1", "&big", "(void *)&dim", "(char *)&values[1]", // pointers, named as gdb names them
	"n * 1000000000", "2147483647 + 1", "0x7fffffff + 1", "-1u", "-1 < 1u", "1 << 31", "1u << 31", // C's types:
	"(n - 13) / 2", "(n - 13) % 4", "~0", "5000000000", "mask - 100", "dim * dim * dim * dim", // int wraps at
	"s->ratio * 3", "s->tag * 1000", "big * 3 + n", "s->ratio / 3", "-mask", "n / 4.0f", // 32 bits, as in the program
	"$pc", "$pc == $pc", "$rip", "$rsp == $sp", "$rbp", // gdb's code and data pointers
	"$edi", "$di", "$dil", "$esi + 1", "$edx", "$dh", "$r8d", // x86-64's pseudo-registers
	"n > 5 ? n : -n", "s->c == BLUE ? values[1] : values[2]", "0 ? *(int *)0 : 7", "n ? mask ? 1 : 2 : 3", "sizeof(long double)", // ?: and the rest
	"n + 1", "n * 2 - 3", "(n + 2) * 3", "n / 3", "n % 3", "-n", "!n + 1", "~n",
	"s->at.x + s->at.y", "s->at.x * n + values[i]", "values[i] * 2", "values[n - 7] + values[0]",
	"s->next->x - s->next->y", "(*s).at.y * 3", "s->flags & mask", "s->flags | 1", "s->flags ^ 0xff",
	"s->flags >> 4", "mask << 2", "s->scale * 2", "s->scale / 4", "s->ratio + 1", "s->tag + 1",
	"s->c + 1", "(n > 5 && mask != 0) * 3", "n < 5 || s->flags == 240", "big / 1024", "big + n",
	"0x10 + 010 + 7", "'a' + 1", "1.5 + n", "values[1 + 1] + values[5]", "dim + 1", "-dim",
	"measure", "&measure", "*measure", "main", // functions as values
	"RED", "GREEN + 1", "s->c == BLUE", "s->c", "(enum color)5", // enumerators
	"'A'", "'\\n'", "\"hi\"", "s->tag", // literals
	"&values", "&values[1]", "-1", "1", "5000000000", "0xffffffff", // pointers to arrays, a literal's type
	"$1", "$2 + 1", "$$3", // history: a pointer, a number, a char
	"(int (*)(struct shape *, int, unsigned))measure", "(void (*)(void))0", "(int (**)(int))0", // abstract declarators
	"(struct point *(*)(int))0", "(char (*)[4])values", "*(char (*)[4])values", "(char (**)[4])0", "(int *(*)[3])0",
	"(unsigned)n", "(short unsigned)-1", "(long unsigned int *)0", "(signed)mask", // C's other spellings
}

// gdbBatch is the gdb oracle the native tests compare polydbg's answers with.
func gdbBatch(t *testing.T, exe, commands string) string { return realparts.GDBBatch(t, exe, commands) }

// loopAndGDB runs commands on cProg in polydbg and in gdb: the build directory, polydbg's
// transcript and gdb's.
func loopAndGDB(t *testing.T, commands string) (dir, out, oracle string) {
	t.Helper()
	realparts.Need(t, "gdb")
	dir, out = nativeScript(t, commands)
	return dir, out, gdbBatch(t, filepath.Join(dir, "loop"), commands)
}

// captured is the first group of each match of re in a transcript, the build directory
// taken out of its paths ("" leaves them).
func captured(re *regexp.Regexp, s, dir string) []string {
	if dir != "" {
		s = strings.ReplaceAll(s, dir+"/", "")
	}
	var out []string
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

var printed = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?\$\d+ = (.*)$`)

// C arithmetic in print on a native program, against gdb on the same executable at the
// same stop.
func TestArithmeticAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	commands := "break measure\nrun\n"
	for _, e := range arithExprs {
		commands += "print " + e + "\n"
	}
	dir, out := nativeScriptOf(t, "arith", cArith, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "arith"), commands)
	agreeWithGDB(t, "C arithmetic", arithExprs, printedValues(out), printedValues(oracle), out, oracle)
}

// printedValues are the values print showed ($N = VALUE), in order.
func printedValues(s string) []string {
	var vs []string
	for _, m := range printed.FindAllStringSubmatch(s, -1) {
		vs = append(vs, m[1])
	}
	return vs
}

// agreeWithGDB compares polydbg's answers to the questions asked with gdb's, one by one, and
// says how many agree.
func agreeWithGDB(t *testing.T, what string, asked, ours, theirs []string, out, oracle string) {
	t.Helper()
	if len(ours) != len(asked) || len(theirs) != len(asked) {
		t.Fatalf("%s: %d answers from polydbg, %d from gdb, want %d:\n%s\n--- gdb:\n%s", what, len(ours), len(theirs), len(asked), out, oracle)
	}
	agree := 0
	for i, q := range asked {
		if ours[i] == theirs[i] {
			agree++
		} else {
			t.Errorf("%s: polydbg\n%s\ngdb\n%s", q, ours[i], theirs[i])
		}
	}
	t.Logf("%s: %d of %d answers agree with gdb", what, agree, len(asked))
}

// agreeLines compares polydbg's lines with gdb's one by one, gdb having given at least min.
func agreeLines(t *testing.T, what string, min int, ours, theirs []string, out, oracle string) {
	t.Helper()
	if len(theirs) < min {
		t.Fatalf("%s: gdb gave %d lines, want at least %d:\n%s", what, len(theirs), min, oracle)
	}
	asked := make([]string, len(theirs))
	for i := range asked {
		asked[i] = fmt.Sprintf("line %d", i+1)
	}
	agreeWithGDB(t, what, asked, ours, theirs, out, oracle)
}

// What C refuses is refused in gdb's words; a pointer moved by n moves by n objects.
func TestArithRefusals(t *testing.T) {
	_, out := nativeScriptOf(t, "arith", cArith, "break measure\nrun\nprint n / 0\nprint s * 2\nprint (n + 1)@2\nprint (struct shape)n\nprint s + 1\nprint (char *)s - (char *)(s + 1)\n")
	expect(t, out, "print n / 0\nDivision by zero\n", "print s * 2\ninvalid operands to *: a pointer\n",
		"print (n + 1)@2\nOnly values in memory can be extended with '@'.\n", "print (struct shape)n\nInvalid cast to struct shape.\n",
		"print s + 1\n$1 = (struct shape *) 0x", "print (char *)s - (char *)(s + 1)\n$2 = -48\n")
}

// A breakpoint condition with arithmetic, as gdb users write them (if i % 2 == 1), is
// checked by polydbg at each hit (the stub's agent expressions take only comparisons); it
// was refused before.
func TestConditionWithArithmetic(t *testing.T) {
	_, out := nativeScript(t, "break square if x %\nbreak square if x % 2 == 1 && x * x > 1\nrun\nprint x\nc\n")
	expect(t, out, "A syntax error in expression, near `'.", "Breakpoint 1 at 0x", "Breakpoint 1, square (x=3) at", "print x\n$1 = 3\n", "sum 30", "[Inferior 1 (process ", ") exited normally]")
}

// Habits of gdb users that failed on a native program: a bare line number before the program
// stops (main's file, as gdb), a breakpoint set after the program ended (kept for the next
// run), and x/ at an array (its first element's address, as C's decay).
func TestGDBHabitsOnNative(t *testing.T) {
	_, out := nativeScript(t, "break 10\nrun\nx/2dw &counter\nc\nbreak square\nrun\nprint x\nkill\n")
	expect(t, out,
		"(polydbg) break 10", "Breakpoint 1 at 0x", "loop.c, line 10.\n",
		"Breakpoint 1, main () at", "loop.c:10",
		"(polydbg) x/2dw &counter", ":\t5\t",
		"sum 30", "[Inferior 1 (process ", ") exited normally]",
		"(polydbg) break square", "Breakpoint 2 at 0x",
		"Breakpoint 2, square (x=0) at", "print x\n$1 = 0\n")
	_, out = nativeScriptOf(t, "arith", cArith, "break measure\nrun\nup\nx/6dw values\nx/2dw sh\n")
	expect(t, out, "(polydbg) x/6dw values", ":\t3\t1\t4\t1\n", ":\t5\t9\n",
		"(polydbg) x/2dw sh", "is not an address") // a struct is not, as in gdb
}

const cTwoWorkers = `#include <stdio.h>
#include <pthread.h>
int shared;
void *worker(void *arg) {
    int id = *(int *)arg;
    for (int i = 0; i < 3; i++)
        shared += id;
    return NULL;
}
int main(void) {
    pthread_t t[2];
    int ids[2] = {1, 2};
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, &ids[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    printf("shared %d\n", shared);
    return 0;
}
`

// Two threads hit a breakpoint, one is reported; the breakpoint is deleted before the other
// thread's hit is: that thread goes on, as in gdb, instead of a "Paused" nobody asked for
// (seen in 2 runs of 5 before; the race is run six times here).
func TestDeletedBreakpointLetsTheOtherThreadGoOn(t *testing.T) {
	for range 6 {
		_, out := nativeScriptOf(t, "workers", cTwoWorkers, "break worker\nrun\nthread 1\nc\nnext\nnext\ndelete\nc\n", "-pthread")
		expect(t, out, "Breakpoint 1, worker (arg=0x", "(polydbg) delete", "shared 9", "[Inferior 1 (process ", ") exited normally]")
		if i := strings.Index(out, "(polydbg) delete"); strings.Contains(out[i:], "Paused") {
			t.Fatalf("a thread stopped at the deleted breakpoint:\n%s", out[i:])
		}
	}
}

var typeAnswer = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?type = (?:[^{\n]*\{\n(?:    .*\n)*\}|.*)$`)

// ptype and whatis of type names on a native program, against gdb on the same executable.
func TestPtypeOfTypeNamesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	types := []string{"ptype struct point", "ptype struct shape", "ptype enum color", "whatis struct shape", "ptype int", "whatis enum color",
		"ptype s", "ptype s->next", "whatis s", "ptype struct point *", "ptype unsigned long", "whatis values", "ptype values",
		"whatis n * 2", "whatis mask + 1", "whatis s->tag + s->tag", "whatis big + n", "whatis s->ratio + 1", "whatis s->ratio + 1.0",
		"whatis n > 1", "whatis n + 1L", "whatis mask + big", "whatis sizeof(int)"}
	commands := "break measure\nrun\n" + strings.Join(types, "\n") + "\n"
	dir, out := nativeScriptOf(t, "arith", cArith, commands+"ptype struct nosuch\n")
	oracle := gdbBatch(t, filepath.Join(dir, "arith"), commands)
	answers := func(s string) []string {
		var as []string
		for _, a := range typeAnswer.FindAllString(s, -1) {
			as = append(as, strings.TrimPrefix(a, "(polydbg) "))
		}
		return as
	}
	agreeWithGDB(t, "types by name", types, answers(out), answers(oracle), out, oracle)
	expect(t, out, "(polydbg) ptype struct nosuch\nNo struct type named nosuch.\n") // gdb's words
}

// call runs a function of the program as gdb's call does, and the program goes on as if
// nothing had happened to its registers: the steps after the calls and the sum they make
// are gdb's. print runs a call as gdb's does; a breakpoint inside the called function
// abandons the call, registers restored.
func TestCallAsGDB(t *testing.T) {
	dir, out, oracle := loopAndGDB(t, "break 8\nrun\ncall square(7)\ncall square(counter) + 1\ncall square(-3) * 2\n"+
		"call square(1, 2)\nprint square(4) + 1\nnext\nnext\nnext\nprint sum\n") // (gdb passes more arguments than the function takes)
	results := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(\$\d+ = .*|\d+\t.*)$`)
	agreeLines(t, "call", 9, captured(results, out, dir), captured(results, oracle, dir), out, oracle)
	_, out = nativeScript(t, "break square\nrun\np square(2)\ncall square()\ncall square(3)\ninfo registers rip\n")
	expect(t, out, "(polydbg) p square(2)\n\nBreakpoint 1, square (x=2) at", // stopped there, as gdb leaves it
		"The program being debugged stopped while in a function called from GDB.\nEvaluation of the expression containing the function\n(square) will be abandoned.",
		"(polydbg) call square()\nToo few arguments in function call.\n",
		"(polydbg) call square(3)\n\nBreakpoint 1, square (x=3) at",
		"(polydbg) info registers rip\nrip            0x", " <square+")
}

const richProg = `#include <string.h>
typedef int (*op_t)(int, int);
static int add(int a, int b) { return a + b; }
union num { int i; float f; unsigned char b[4]; };
struct node { const char *name; int grid[2][3]; struct { int lo, hi; } range; union num u; op_t op; struct node *next; double w; char tag[6]; };
enum sign { NEG = -1, ZERO, POS };
int main(void) {
    struct node b = { "beta", {{1,2,3},{4,5,6}}, {-1, 1}, {.f = 1.5f}, add, 0, 0.25, "bb" };
    struct node a = { "alpha", {{0}}, {0, 9}, {.i = 65}, 0, &b, -3.5, "hello" };
    struct node *list[2] = { &a, &b };
    char **names = (char *[]){ "x", "y", 0 };
    enum sign s = NEG;
    int n = (int)strlen(a.name) + s;
    return n - 4;
}
`

// ptype of an expression describes its type as the program has it, as gdb does: an array
// of pointers to a struct, a struct with an anonymous struct inside, arrays of arrays; and
// print shows such values as gdb does (a typedef'd function pointer with its type).
func TestPtypeOfExpressionsAsGDB(t *testing.T) {
	asked := realparts.InFrame(0, "ptype list", "ptype a", "ptype a.u", "ptype b.grid", "ptype names", "ptype a.range",
		"ptype list[0]", "ptype *list[0]", "ptype b.op", "ptype s", "ptype a.tag", "ptype &a", "ptype n + 1", "ptype a.w * 2",
		"p b.op", "p a.u", "p b.u", "p names[1]", "p *names@2", "p s", "p/d s", "p b.grid[1]", "p a.tag", "p list[0]->name",
		"p b.range", "whatis a.range", "whatis b.op", "p *b.op")
	var commands strings.Builder
	commands.WriteString("break 13\nrun\n")
	for _, q := range asked {
		commands.WriteString(q.Cmd + "\n")
	}
	dir, out := nativeScriptOf(t, "rich", richProg, commands.String())
	var ours []string
	for _, q := range asked {
		_, after, _ := strings.Cut(out, "(polydbg) "+q.Cmd+"\n")
		answer, _, _ := strings.Cut(after, "(polydbg) ")
		ours = append(ours, strings.TrimSuffix(answer, "\n"))
	}
	realparts.CompareAnswers(t, "ptype and print", asked, ours, realparts.GDBAnswers(t, filepath.Join(dir, "rich"), "break 13\nrun", asked))
}

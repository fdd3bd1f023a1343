package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// typesSources is a program of two units and a header they share, with a type of every
// kind info types lists: base types, structs, unions, enums, typedefs of each (anonymous
// ones too, and a function pointer), types from the C library's headers, a struct only
// declared (not listed, as gdb), a function's own type (not listed).
var typesSources = map[string]string{
	"types.h": "struct shape { int sides; };\ntypedef unsigned int uint;\n",
	"a.c": `#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include "types.h"
struct point { int x, y; };
typedef struct point point_t;
typedef struct { int a; } anon_t;
enum color { RED, GREEN };
union num { int i; float f; };
typedef int (*cmp_fn)(const void *, const void *);
typedef enum { LOW, HIGH } level;
struct node { struct node *next; long long v; };
struct opaque;
typedef struct opaque opaque_t;
opaque_t *op;
point_t origin;
anon_t an;
enum color col;
union num un;
cmp_fn cmp;
level lv;
struct node head;
size_t sz;
bool flag;
struct shape sq;
uint u;
unsigned char uc;
uint32_t w;
int8_t small;
extern int other(void);
int main(void) { struct local { short s; } l = {1}; return l.s + other() + (int)sz; }
`,
	"b.c": "#include \"types.h\"\nstruct pair { double a, b; };\nstruct pair pr;\nstruct shape tri;\nint other(void) { return (int)pr.a + tri.sides; }\n",
}

// info types, all and by regular expression (gdb's: POSIX basic), against gdb: the files in gdb's order, each
// type once (a header's, declared by both units, too), base types by gdb's names ("unsigned
// long"), a typedef with the type under all its typedefs. Before run: once the program runs,
// gdb also lists the types of the libraries that carry their own debug information (the
// dynamic loader's, on some systems), which polydbg does not read.
func TestInfoTypesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc", "gdbserver")
	dir := t.TempDir()
	for name, text := range typesSources {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("gcc", "-g", "-O0", "-o", "types", "a.c", "b.c")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	exe := filepath.Join(dir, "types")
	for _, args := range [][]string{
		{"-ex", "info types"},
		{"-ex", "info types col", "-ex", "info types ^s", "-ex", "info types int", "-ex", "info types zzz", "-ex", "info types opaque"},
		{"-ex", "info types point", "-ex", "info types ^(long|short|unsigned)", "-ex", `info types ^\(long\|short\)`,
			"-ex", "info types [[:upper:]]", "-ex", "info types [", "-ex", "info functions ^\\(ma\\|ot\\)"},
	} {
		ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, args)
		compareLines(t, args[len(args)-1], dir, ours, theirs)
	}
}

// info inferiors and info proc against gdb, before the program runs, while it runs (with
// arguments, one with a space) and after it ended: the table, the process's command line,
// directory, executable and memory mappings as the system tells them.
func TestInferiorsAndProcAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "proc", squareProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, []string{
		"-ex", "info inferiors", "-ex", "info proc", "-ex", "break square", "-ex", "run",
		"-ex", "info inferiors", "-ex", "info proc", "-ex", "info proc cmdline", "-ex", "info proc exe",
		"-ex", "info proc cwd", "-ex", "info proc mappings", "-ex", "continue", "-ex", "info proc", "-ex", "info inferiors",
	}, "one", "two words")
	compareLines(t, "inferiors and proc", dir, ours, theirs)
}

// info proc stat and info proc all as gdb's: each /proc field under gdb's name, in gdb's
// order. The values are the process's own (its faults, its start time), so the lines are
// compared by what they name: the text before ":", a mapping by its file.
func TestInfoProcStatAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "procstat", squareProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, []string{
		"-ex", "break square", "-ex", "run", "-ex", "info proc stat", "-ex", "info proc all"})
	labels := func(out []byte) []byte {
		var b strings.Builder
		for _, l := range strings.Split(string(out), "\n") {
			switch f := strings.Fields(l); {
			case len(f) >= 5 && strings.HasPrefix(f[0], "0x"): // a mapping: its file
				b.WriteString("mapping " + f[len(f)-1])
			case strings.Contains(l, ":"):
				b.WriteString(l[:strings.Index(l, ":")])
			default:
				b.WriteString(l)
			}
			b.WriteString("\n")
		}
		return []byte(b.String())
	}
	compareLines(t, "info proc stat and all", dir, labels(ours), labels(theirs))
}

// info auxv as gdb's: each entry with gdb's name, description and form (a number, an
// address, a string beside its address; ??? for one gdb 13 does not name), before the run
// gdb's words. Addresses on the stack move with the environment: they are left out.
func TestInfoAuxvAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "auxv", squareProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, []string{"-ex", "info auxv", "-ex", "break square", "-ex", "run", "-ex", "info auxv"})
	stack := regexp.MustCompile(`0x7fffffff[0-9a-f]{4}\b`)
	compareLines(t, "info auxv", dir, stack.ReplaceAll(ours, []byte("STACK")), stack.ReplaceAll(theirs, []byte("STACK")))
}

// printLimitsProg has arrays and strings longer than gdb's limits, and runs of one value.
const printLimitsProg = `#include <string.h>
int big[300];
char text[400];
char *ptr = text;
const char *hello = "hello, world";
int zeros[10];
int rep[12] = {1,1,1,1,1,1,1,1,1,1,1,2};
int main(void) {
	for (int i = 0; i < 300; i++) big[i] = i;
	memset(text, 'a', 350);
	return big[5] + text[0];
}
`

// Values are shortened as gdb shortens them: 200 elements or characters, then "...";
// runs of more than 10 equal elements as "<repeats N times>"; set print elements and set
// print repeats change both, show print says them, and an array cast to a pointer is its
// address (C's decay).
func TestPrintLimitsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = `break 11
run
p big
p text
p zeros
p rep
p ptr
p (char *)text
set print elements 4
p big
p text
p rep
p hello
set print elements 0
p rep
set print repeats 3
p rep
p zeros
p hello
show print elements
show print repeats
set print repeats unlimited
p rep
show print repeats
`
	dir, ours, theirs := scriptAndGDB(t, "limits", printLimitsProg, lines)
	compareLines(t, "print limits", dir, ours, theirs)
}

// Before run, expressions are evaluated over the program's file, as gdb's: constants,
// sizes, convenience variables, globals with their initial values, memory from the file;
// an unknown name in gdb's words. (Not compared: the addresses of a PIE, which gdb shows
// as the file's before run and polydbg as they will be loaded.)
func TestPrintBeforeRunAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	prog := "struct point { int x, y; };\nstatic int counter = 5;\ndouble ratio = 1.5;\nchar name[] = \"kite\";\n" +
		"int main(void) { struct point p = {1, 2}; return p.x + counter; }\n"
	dir, exe := buildNative(t, "static", prog)
	cmds := exCommands("p 1 + 1", "p sizeof(struct point)", "p counter", "p ratio * 2", "p name", "p $x = 3",
		"p $x * counter", "x/4xb &counter", "output counter", "p nosuch", "p counter")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	symbolAddr := regexp.MustCompile(`0x[0-9a-f]+( <)`)
	compareLines(t, "print before run", dir, symbolAddr.ReplaceAll(ours, []byte("ADDR$1")), symbolAddr.ReplaceAll(theirs, []byte("ADDR$1")))
}

// Smaller words, each as gdb's: a function's type (int (int), not Go's func(int) int),
// $eflags by its flags and as a number under a format or in arithmetic, registers' types,
// list FILE:FIRST,LAST, and x leaving $_ (the last unit's address) and $__ (its contents).
func TestSmallAnswersAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "small", squareProg)
	cmds := exCommands("list small.c:2,3", "list small.c:3,", "break square", "run", "ptype square", "whatis main",
		"p $eflags", "p/x $eflags", "p $eflags & 0x200", "whatis $eflags", "whatis $rax", "whatis $eax", "whatis $ax",
		"p $_", "x/2dw $sp", "p $_ == $sp + 4", "p $__ == *(int *)($sp + 4)", "whatis $__", "x/xg $sp", "whatis $_")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	stack := regexp.MustCompile(`0x7ff[0-9a-f]+`) // the stack: where it is differs between the two runs
	compareLines(t, "small answers", dir, stack.ReplaceAll(ours, []byte("STACK")), stack.ReplaceAll(theirs, []byte("STACK")))
}

// ptype/o lays a struct out as gdb's does: offsets and sizes, bit fields by their bit,
// holes and padding, structs and unions inside expanded with their total sizes; of a type
// name and of an expression.
func TestPtypeOffsetsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "layout", `struct inner { char c; double d; };
struct flags { unsigned a : 3; unsigned b : 5; int rest; };
union u { int i; char bytes[6]; };
struct outer {
	char tag;
	struct inner in;
	short s;
	struct flags f;
	union u un;
	int arr[3];
	char *p;
	char last;
};
struct outer o;
int main(void) { return o.tag; }
`)
	cmds := exCommands("ptype/o struct outer", "ptype/o struct flags", "ptype /o union u", "ptype/o int",
		"break main", "run", "ptype/o o.in", "ptype/o o", "ptype/t o")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "ptype/o", dir, ours, theirs)
}

// info address and info scope say where variables live as gdb says it: a function's
// address, static storage, a DWARF expression disassembled (a local at -O0, relative to
// the frame base), and at -O2 location lists with their ranges (registers, constants,
// entry values). At -O2 frames show their parameters' entry values (a=a@entry=0, from the
// caller's call site) and info frame gdb's frame base of a function without a frame
// pointer. Each against gdb, after run.
func TestInfoAddressAndScopeAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "where.c")
	if err := os.WriteFile(src, []byte(`#include <stdio.h>
static int calls;
double ratio = 1.5;
__attribute__((noinline)) int f(int a, int b) { calls += a; return a * b + calls; }
int main(int argc, char **argv) {
	int s = 0;
	for (int i = 0; i < argc; i++) {
		int twice = f(i, argc) * 2;
		s += twice;
	}
	printf("%d %g\n", s, ratio);
	return 0;
}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, opt := range []string{"-O0", "-O2"} {
		exe := filepath.Join(dir, "where"+opt)
		if out, err := exec.Command("gcc", "-g", opt, "-o", exe, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		cmds := exCommands("break f", "run", "info address a", "info address b", "info address calls", "info address ratio",
			"info address f", "info address nosuch", "info scope f", "info scope main", "info scope where.c:8", "bt", "info frame",
			"up", "info address s", "info frame")
		ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
		compareLines(t, "info address, scope and frame "+opt, dir, ours, theirs)
	}
}

// Before run, what needs a running program says so in gdb's words, each its own: "No
// stack.", "No threads.", "The program has no registers now.", "No frame selected.", "The
// program is not being run.", "No registers." for a register in an expression.
func TestBeforeRunWordsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "early", squareProg)
	cmds := exCommands("info sharedlibrary", "info threads", "bt", "info registers rip", "info frame", "info program",
		"info locals", "finish", "next", "step", "stepi", "continue", "kill", "detach", "info display", "info breakpoints",
		"p $pc", "info args", "tbreak square")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "before run", dir, ours, theirs)
}

// x's and print's formats as gdb's: x/a (addresses with their symbols), o, t, z, c (the
// number and the character), f (float or double by the unit), the last format, size and
// count kept, x without an address going on after the last unit; print/z, /a, /s, /f (an
// integer's bits as a float of its width), and an unknown format refused after the value is
// numbered, as gdb does.
func TestExamineAndPrintFormatsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "formats", "static int counter = 5;\ndouble ratio = 1.5;\nint square(int x) { return x * x + counter; }\n"+
		"int main(void) { return square(3) - 14 + (int)ratio; }\n")
	cmds := exCommands("break square", "run", "x/2o &counter", "x/2t &counter", "x/fg &ratio", "x/2zw &counter",
		"x/3ub &counter", "x/2c &counter", "x/2hx &counter", "x", "x/2xw", "x/s &counter", "x/2dw &counter", "x/f &ratio",
		"x/3c &counter", "x/2a $sp", "output/x counter", "p/a main", "p/s counter", "p/z counter", "p/f ratio", "p/f counter",
		"p/u -1", "p/a $pc", "p/z x", "p/q 1", "p/x ratio", "p/a &counter", "p/z (char)5")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	stack := regexp.MustCompile(`0x7ff[0-9a-f]+`) // the stack: where it is differs between the two runs
	compareLines(t, "x and print formats", dir, stack.ReplaceAll(ours, []byte("STACK")), stack.ReplaceAll(theirs, []byte("STACK")))
}

// callsProg has functions that return a struct, a typedef, a pointer, nothing and a double.
const callsProg = `struct pt { int x, y; };
typedef unsigned long ulong_t;
struct pt mk(int x) { struct pt p = {x, x}; return p; }
ulong_t big(void) { return 1; }
char *name(int i) { return i ? "a" : "b"; }
void nothing(void) {}
double half(double v) { return v / 2; }
int main(void) {
	struct pt p = mk(1);
	char *s = name(1);
	return p.x + (int)big() + s[0] + (int)half(2);
}
`

// whatis and ptype of a call say the type the function returns without running it, as
// gdb's (a struct laid out by ptype, a typedef named by whatis, void, arithmetic on the
// result); output prints a pointer with its type, as print does; after info line, x/i
// goes on from the line's code. Each against gdb.
func TestTypesOfCallsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := []string{"-ex", "break 10", "-ex", "run"}
	for _, e := range []string{"mk(1)", "big()", "name(1)", "nothing()", "half(3)", "big() + 1", "nosuch(1)"} {
		cmds = append(cmds, "-ex", "whatis "+e, "-ex", "ptype "+e)
	}
	cmds = append(cmds, "-ex", "output p", "-ex", "output &p", "-ex", "output/x p.x", "-ex", "output main",
		"-ex", "info line half", "-ex", "x/2i", "-ex", "print $_", "-ex", "print $__", "-ex", "x/i", "-ex", "x/2xb")
	dir, exe := buildNative(t, "calls", callsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "types of calls", dir, ours, theirs)
}

// floatsProg holds a NaN, infinities, a float NaN and long doubles (x87's 80 bits).
const floatsProg = `double zero = 0.0;
int main(void) {
	double n = zero / zero, i = 1 / zero, m = -1 / zero;
	float fn = (float)n, f = 1.5f;
	long double ld = 3.14159265358979323846264338327950288L, l2 = 0.1L;
	return (int)(n + i + m + fn + f + ld + l2);
}
`

// Floating-point values as gdb prints them: a NaN with its mantissa (-nan(0x8000000000000)),
// inf, a long double with x87's 21 digits, and arithmetic on them (a NaN's bits kept).
func TestFloatsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break 6", "run", "info locals", "p ld", "p l2", "p -n", "p fn", "p i + 1", "p m * 2",
		"p n == n", "p f / 3", "p 1.0/3", "p -fn", "p fn + 1")
	dir, exe := buildNative(t, "floats", floatsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "floats", dir, ours, theirs)
}

// vectorProg leaves doubles in the SSE registers, zeros in xmm7 and a long double in x87's.
const vectorProg = `#include <stdio.h>
int main(void) {
	volatile double d = 1.5;
	volatile float f = 2.25f;
	long double ld = 3.0L;
	double r = d * 2 + f;
	ld = ld * r;
	__asm__ volatile("pxor %%xmm7, %%xmm7" ::: "xmm7");
	printf("%g %Lg\n", r, ld);
	return 0;
}
`

// Registers of the types the target description declares, as gdb shows them: x86's
// vec128 union of vectors (each element in hex by info registers, naturally by print, a
// run of equal elements as <repeats N times>),
// x87's 80-bit floats with their raw bits, mxcsr's flags (a number under /x and to
// arithmetic), the types whatis names, the members and elements of a vector register
// (print $xmm1.v4_float[1]) with their types, and gdb's ymm and zmm made of xmm, ymmh
// and zmmh where the machine has AVX and AVX-512.
func TestVectorRegistersAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break 9", "run", "info registers xmm0", "info registers xmm1", "info registers xmm7", "p $xmm7", "info registers st0",
		"info registers st7", "info registers mxcsr", "p $xmm0", "p $xmm1", "p $st7", "p $mxcsr", "p/x $mxcsr",
		"p $mxcsr & 0x80", "whatis $xmm0", "whatis $st0", "whatis $mxcsr", "output $xmm1", "echo \\n", "info registers fctrl",
		"p $xmm1.v4_float", "p $xmm1.v4_float[1]", "p $xmm1.v2_double[0]", "p $xmm1.v8_half[3]", "p $xmm1.v8_bfloat16",
		"p $xmm1.v16_int8", "p $xmm1.uint128", "p $xmm0.uint128", "p $xmm1.v2_int64[0] + 1", "p/x $xmm1.v4_int32",
		"p $xmm1.v4_float[1] * 2", "p $xmm1.nosuch", "p $rip.x", "whatis $xmm1.v4_float", "whatis $xmm1.v4_float[0]",
		"whatis $xmm1.v4_int32[0]", "whatis $xmm1.uint128", "whatis $xmm1.v8_bfloat16[0]", "info registers float",
		"info registers vector", "info registers system", "info all-registers")
	cpu, _ := os.ReadFile("/proc/cpuinfo") // gdb's ymm and zmm where the machine has AVX and AVX-512
	if flags := " " + strings.Join(strings.Fields(string(cpu)), " ") + " "; strings.Contains(flags, " avx ") {
		cmds = append(cmds, exCommands("whatis $ymm1", "p $ymm1", "info registers ymm1", "p $ymm1.v8_float", "whatis $ymm1.v8_float",
			"whatis $ymm1.v8_float[0]", "p $ymm1.v4_double[0] + 1", "whatis $ymm1.v2_int128", "p $ymm1.v2_int128")...)
		if strings.Contains(flags, " avx512f ") {
			cmds = append(cmds, exCommands("whatis $zmm1", "p $zmm1.v16_float", "info registers zmm7", "p $ymm20", "whatis $zmm20.v8_double")...)
		}
	}
	dir, exe := buildNative(t, "vector", vectorProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "vector registers", dir, ours, theirs)
}

// segvProg faults at address 0x10, in a function main calls.
const segvProg = `int *p = (int *)0x10;
int load(void) { return *p; }
int main(void) { return load(); }
`

// $_siginfo as gdb's: void before the program runs, the siginfo_t of the signal that
// stopped it (a breakpoint's SIGTRAP, then a SIGSEGV with the address it faulted at),
// its members and elements, in arithmetic and under a format, in any frame (it is the
// thread's).
func TestSiginfoAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("p $_siginfo", "break load", "run", "p $_siginfo.si_signo", "p $_siginfo.si_code", "up", "p $_siginfo.si_code",
		"continue", "p $_siginfo", "up", "p $_siginfo._sifields._sigfault.si_addr", "p $_siginfo._sifields._sigfault", "whatis $_siginfo",
		"p $_siginfo._sifields._pad[0]", "p/x $_siginfo.si_code", "p $_siginfo.si_signo == 11")
	dir, exe := buildNative(t, "segv", segvProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "$_siginfo", dir, ours, theirs)
}

// arraysProg has arrays of ints, of chars with NULs after their text, in a struct and of
// arrays.
const arraysProg = `struct s { int v[3]; char name[8]; };
int zeros[20];
int vals[4] = {1, 2, 3, 4};
char buf[10] = "hi";
struct s st = {{7, 8, 9}, "ab"};
int grid[2][2] = {{1, 2}, {3, 4}};
int main(void) { return vals[0] + buf[0] + st.v[0] + zeros[0] + grid[0][0]; }
`

// set print array-indexes and set print null-stop as gdb's: each element after its index
// (repeats, nested arrays, under /x and in output too), a char array up to its first NUL;
// their show answers and a bad value.
func TestPrintArrayOptionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("show print array-indexes", "show print null-stop", "p vals", "p buf", "set print array-indexes on",
		"show print array-indexes", "p vals", "p zeros", "p st", "p grid", "p buf", "set print null-stop on", "show print null-stop",
		"p buf", "p st", "set print array-indexes off", "p st", "p/x vals", "set print array-indexes on", "p/x vals", "p/x grid",
		"output vals", "echo \\n", "set print array-indexes maybe", "break main", "run", "p/x grid", "p st")
	dir, exe := buildNative(t, "arrays", arraysProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "print array options", dir, ours, theirs)
}

// stringsProg holds strings three ways: an array, a pointer to a literal, a buffer filled
// at run time.
const stringsProg = `#include <string.h>
char greeting[16] = "hello";
const char *who = "world";
int count(const char *s) { return (int)strlen(s); }
int main(void) {
	char buf[8];
	strcpy(buf, "hel");
	int n = count(who) + count(buf);
	return n - 8;
}
`

// gdb's string literals (sizeof "abc", "ab" "cd") and its convenience functions on strings
// and memory ($_streq, $_strlen, $_memeq, $_regex, $_isvoid) on arrays, pointers and
// literals, in print and in a breakpoint's condition, and a convenience variable never
// set (void). Against gdb. (A string function given a number says gdb's error without its
// Python lines.)
func TestConvenienceFunctionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands(`print sizeof("abc")`, `print "ab" "cd"`, `whatis "ab" "c"`, `print $_streq("a", "a")`,
		`print $_isvoid($unset)`, `break count if $_streq(s, "hel")`, "run", `print $_strlen(s)`, `print $_streq(s, buf)`,
		"up", `print $_streq(buf, "hel")`, `print $_strlen(greeting)`, `print $_strlen(who)`, `print $_memeq(greeting, "help", 3)`,
		`print $_memeq(greeting, "help", 4)`, `print $_memeq(who, "wor", 3)`, `print $_regex(who, "w.r")`, `print $_regex(who, "or")`,
		`print $_regex(greeting, "h[a-z]+o$")`, `whatis $_strlen(who)`, `print $_streq(who, "world") && $_strlen(buf) == 3`,
		`print $_isvoid(n)`, `print $_isvoid($nothing)`, `print $nothing + 1`, `print sizeof(greeting) + sizeof "x"`,
		"info breakpoints")
	dir, exe := buildNative(t, "strfns", stringsProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "convenience functions", dir, ours, theirs)
}

// varsProg has globals, a file static, an array of pointers, a typedef'd global, an extern
// declaration and a function's static (which gdb lists among the non-debugging symbols).
const varsProg = `static int file_static = 1;
int global_arr[3];
const char *names[] = {"a", "b"};
extern int ext_decl;
struct P { int x; } pt;
typedef int myint;
myint typed_g;
int f(void) { static int calls; return ++calls + file_static; }
int main(void) { return f() + global_arr[0] + pt.x + typed_g; }
`

// info variables and info functions as gdb's: the declarations by file (globals, then
// statics), then the non-debugging symbols of the program (its startup code, linker
// symbols, PLT entries) at file addresses before the run, and with the loaded libraries'
// (libc's, read from its dynamic symbols and PLT) at loaded ones after; -q and -n. Against
// gdb.
func TestInfoVariablesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("info variables", "info variables -n", "info variables ^[a-z]", "info variables -q x",
		"info variables zzz", "info variables -q zzz", "info functions -q ^mai", "info variables -n -q", "info functions -n ^m",
		"info functions", "info functions ^_", "info variables _", "break f", "run", "info variables ^c", "info functions ^f",
		"info functions ^mem", "info variables ^std", "info functions -q ^sig", "info variables file")
	dir, exe := buildNative(t, "vars", varsProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "info variables", dir, ours, theirs)
}

// valuesProg has a value of each kind C has: arrays of ints, doubles and chars, an enum, a
// union, bit fields, a linked struct, function pointers (one a typedef's, an array of
// them), strings, a long, an unsigned char.
const valuesProg = `#include <stdio.h>
#include <string.h>
enum color { RED, GREEN = 5, BLUE };
union u { int i; float f; char c[4]; };
struct bits { unsigned a:3; int b:5; unsigned c:1; };
struct node { int v; struct node *next; };
typedef int (*binop)(int, int);
int add(int a, int b) { return a + b; }
int mul(int a, int b) { return a * b; }
int arr[5] = {1, 2, 3, 4, 5};
double darr[3] = {1.5, -2.25, 3e10};
char name[8] = "hey";
enum color col = GREEN;
union u un = { .i = 0x41424344 };
struct bits bf = { 5, -3, 1 };
struct node n2 = { 2, 0 }, n1 = { 1, &n2 };
binop ops[2] = { add, mul };
const char *strs[] = { "one", "two", 0 };
int main(void) {
    binop fp = mul;
    int *p = arr + 1;
    long big = -1;
    unsigned char uc = 200;
    int r = fp(3, 4) + ops[0](1, 2) + *p;
    printf("%d %s\n", r, name);
    return 0;
}
`

// print of each kind of value as gdb's: arrays and slices of them (@), formats on arrays,
// unions and bit fields, enums and their arithmetic, structs through pointers, function
// pointers printed, dereferenced and called through (fp(5, 6), ops[1](2, 3), (*fp)(3, 3)),
// ptype of a union, of bit fields (a : 3) and of a function pointer typedef, registers of
// flags, C's operators and literals. Against gdb.
func TestValuesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break 25", "run", "p arr", "p arr[1]@3", "p/x arr", "p *p@2",
		"p darr", "p name", "p col", "p col == GREEN", "p/d col", "p (enum color)6",
		"p un", "p/x un", "p bf", "p/x bf", "p n1", "p *n1.next",
		"p n1.next->v", "p ops", "p fp", "p *fp", "p fp(5, 6)", "p ops[1](2, 3)",
		"p strs", "p *strs@2", "p big", "p/x big", "p uc", "p/c uc",
		"p/x -1", "p sizeof(union u)", "ptype union u", "ptype struct bits", "ptype binop", "whatis ops",
		"ptype fp", "p $eflags", "p/x $eflags", "p $rip", "info registers eflags", "p arr == &arr[0]",
		"p &arr[2] - &arr[0]", "p *&n1", "p n1.next->next", "p name[0]", "p &name", "p *name@2",
		"set var arr[0] = 10", "p arr[0] * 2", "p -arr[0]", "p !arr[0]", "p ~arr[0]", "p arr[0] > 5 ? 1 : 2",
		"p darr[0] * 2", "p darr[1] / 0", "p 10 / 3.0", "p 10 % 3", "p 1.0f", "p 'A'",
		"p 'A' + 1", "p \"x\" \"y\"", "p/t 255", "p/o 0", "p fp(5, 6)", "p ops[1](2, 3)",
		"p ops[0](1,1) + fp(2,2)", "p (*fp)(3, 3)", "call ops[1](4, 4)", "p 10 % 3.0", "whatis 1.5L", "whatis 1.5L * 2.0f", "p 1.5L/3", "p -5/2", "p -5%3")
	dir, exe := buildNative(t, "values", valuesProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "values", dir, ours, theirs)
}

// rbreak as gdb's: a breakpoint on each matching function, told with its declaration, the
// program's own with debug information first, then those without (its startup code, and once
// it runs libc's: adjtime, ntp_adjtime named by the address as gdb names it), by address.
func TestRbreakAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("rbreak ^ma", "rbreak ^_[is]", "rbreak zzzz", "info breakpoints", "run", "rbreak ^ad",
		"info breakpoints")
	dir, exe := buildNative(t, "rbreak", valuesProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "rbreak", dir, ours, theirs)
}

// gdb's convenience functions given what they do not take say so, and the session goes on:
// a wrong number of arguments, a bad regular expression, a negative or huge length, a
// setting that is none.
func TestConvenienceFunctionErrors(t *testing.T) {
	_, exe := buildNative(t, "strfnerr", stringsProg)
	out, _ := exec.Command(polydbgBinary(t), append([]string{"debug", "-batch"}, append(exCommands("break count", "run",
		`p $_strlen()`, `p $_streq(s)`, `p $_regex(s, "(")`, `p $_memeq(s, s, -1)`, `p $_memeq(s, s, 100000000)`,
		`p $_memeq(1, s, 2)`, `p $_gdb_setting("nosuch")`, `p $_isvoid()`, `p $_strlen(s)`), exe)...)...).CombinedOutput()
	for _, want := range []string{"$_strlen takes 1 argument, not 0", "$_streq takes 2 arguments, not 1",
		"$_regex: error parsing regexp", "length must be non-negative", "$_memeq compares at most 65536 bytes",
		"$_memeq: argument 1 is not an array or a pointer", "must be a valid setting of the 'show' command",
		"You must provide one argument for $_isvoid.", "$1 = 5"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/cli"
)

const structProg = `#include <stdio.h>
struct pair { int a; short b; unsigned char c; char name[3]; };
struct pair p = {7, -3, 16, "hi"};
int scale(int k, struct pair *q) {
    int r = k * q->a;
    return r; /* LINE:ret */
}
int main(void) {
    int out = scale(2, &p);
    printf("%d %d %d %s\n", out, p.a, p.b, p.name);
    return 0;
}
`

// cScript builds a C program and runs the debugger on it under gdbserver.
func cScript(t *testing.T, src, commands string) string {
	t.Helper()
	out, _ := cScriptExe(t, src, commands)
	return out
}

// cScriptExe is cScript that also returns the executable.
func cScriptExe(t *testing.T, src, commands string) (transcript, exe string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdbserver")
	dir := t.TempDir()
	c := filepath.Join(dir, "pair.c")
	exe = filepath.Join(dir, "pair")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, c).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	var out strings.Builder
	cli.Run(cli.Config{In: strings.NewReader(commands), Echo: true,
		Debug: gdbcmd.Config{Out: &out, NewSession: nativeSessions(exe)}})
	return strings.ReplaceAll(out.String(), dir+"/", ""), exe
}

// info args and info locals apart, set var on members and locals, print/x of a struct with
// every member at its own width, as gdb prints them.
func TestSetVarInfoArgsAndStructFormats(t *testing.T) {
	out := cScript(t, structProg, `break pair.c:6
run
info args
info locals
print/x p
p/d p.c
p/t q->b
set var r = 100
set var q->b = -2
set p.name[0] = 'H'
set var p.a = $1
set var nosuch = 1
set var p = 1
set var r
print r
c
`)
	expect(t, out,
		"(polydbg) info args\nk = 2\nq = 0x", "(polydbg) info locals\nr = 14\n",
		"(polydbg) print/x p\n$1 = {a = 0x7, b = 0xfffd, c = 0x10, name = {0x68, 0x69, 0x0}}\n",
		"(polydbg) p/d p.c\n$2 = 16\n",
		"(polydbg) p/t q->b\n$3 = 1111111111111101\n",
		"(polydbg) set var r = 100\n(polydbg) set var q->b = -2\n(polydbg) set p.name[0] = 'H'\n",
		"(polydbg) set var p.a = $1\n",                                                               // a struct from the history is no number
		"(polydbg) set var nosuch = 1\nNo symbol \"nosuch\" in current context.\n",                   // gdb's words
		"(polydbg) set var p = 1\nInvalid cast.\n",                                                   // gdb's: an int is no struct pair
		"(polydbg) set var r\nwarning: Expression is not an assignment (and might have no effect)\n", // gdb's
		"(polydbg) print r\n$4 = 100\n",
		"100 7 -2 Hi\n",
	)
}

// On a Kite program: set var on a local, a list item and a map field; info args.
func TestSetVarKite(t *testing.T) {
	out := script(t, "break fib if n == 3\nrun\ninfo args\nset var n = 4\nset total = total + 100\np n\ninfo locals\nset var n == 1\nc\n")
	expect(t, out,
		"(polydbg) info args\nn = 3\n",
		"(polydbg) set var n = 4\n(polydbg) set total = total + 100\n(polydbg) p n\n$1 = 4\n",
		"(polydbg) info locals\nNo locals.\n",
		"(polydbg) set var n == 1\nwarning: Expression is not an assignment (and might have no effect)\n",
	)
}

// print with every format, on structs, arrays, pointers and chars, answers what gdb does.
func TestPrintFormatsMatchGDB(t *testing.T) {
	printsMatchGDB(t, structProg, "pair.c:6", "print/x p", "print/d p", "print/o p", "print/t p.b", "print/c p",
		"print/u p.b", "p/x *q", "p/x q", "p/c p.c", "p/x p.name", "p/d p.name[1]", "p/o p.a")
}

const mixProg = `enum color { RED, GREEN = 5, BLUE };
union u { int i; float f; };
struct mix { float f; double d; enum color c; union u u; };
struct mix m = {1.5f, -2.5, GREEN, {.f = 3.25f}};
int main(void) { return m.c; }
`

// A format shows an enumeration constant by its number and a float by its bits, as gdb
// (p/x of 1.5f is 0x3fc00000), in a struct and a union member by member.
func TestEnumAndFloatFormatsMatchGDB(t *testing.T) {
	printsMatchGDB(t, mixProg, "pair.c:5", "p/x m", "p/d m.c", "p/x m.c", "p/x m.f", "p/t m.f", "p/o m.d",
		"p/d m.d", "p/u m.f", "p/x m.u", "p m", "p m.c", "p/x RED", "p/c m.c")
}

const bitsProg = `struct flags { int lo : 5; unsigned mid : 3; int hi : 7; short s; };
struct flags f = {-9, 5, -1, -2};
int main(void) { return f.lo; }
`

// Bit fields are masked at their own width, as gdb masks them (a 5-bit -9 is 0x17).
func TestBitFieldFormatsMatchGDB(t *testing.T) {
	printsMatchGDB(t, bitsProg, "pair.c:3", "p/x f", "p/x f.lo", "p/o f.lo", "p/t f.hi", "p/u f.lo", "p/d f.mid",
		"p/x f.mid", "p/c f.lo", "p/x f.s", "p f")
}

// printsMatchGDB runs prints at a breakpoint on src in polydbg and in gdb and compares the
// values.
func printsMatchGDB(t *testing.T, src, at string, prints ...string) {
	t.Helper()
	realparts.Need(t, "gdb")
	out, exe := cScriptExe(t, src, "break "+at+"\nrun\n"+strings.Join(prints, "\n")+"\nkill\n")
	args := []string{"-batch", "-nx", "-ex", "break " + at, "-ex", "run"}
	for _, p := range prints {
		args = append(args, "-ex", p)
	}
	g, err := exec.Command("gdb", append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, g)
	}
	value := regexp.MustCompile(`(?m)^\$\d+ = (.*)$`)
	ours, theirs := value.FindAllStringSubmatch(out, -1), value.FindAllStringSubmatch(string(g), -1)
	if len(ours) != len(prints) || len(theirs) != len(prints) {
		t.Fatalf("answers: ours %d, gdb %d\n%s\n%s", len(ours), len(theirs), out, g)
	}
	agree := 0
	for i, p := range prints {
		if ours[i][1] != theirs[i][1] {
			t.Errorf("%s: polydbg %q, gdb %q", p, ours[i][1], theirs[i][1])
		} else {
			agree++
		}
	}
	t.Logf("%d of %d prints agree with gdb", agree, len(prints))
}

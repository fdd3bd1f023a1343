package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// echo and printf print what gdb prints for the same commands on the same program; output
// prints a value alone.
func TestEchoOutputPrintfAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	commands := `break measure
run
echo <a\tb\n
printf "<%d|%5.2f|%c|%s|%x|%lu|%-4d|%o|%%>\n", n, s->scale, s->tag, "lit", mask, sizeof(*s), i, n
printf "<%u|%#x|%e|%g|%i|%s>\n", dim, values[2], s->scale, s->ratio, -n, "two words"
`
	dir, out := nativeScriptOf(t, "arith", cArith, commands+"output n * 2\noutput/x mask\nprintf \"%d %d\\n\", n\n")
	oracle := gdbBatch(t, filepath.Join(dir, "arith"), commands)
	marked := regexp.MustCompile(`(?m)^<.*$`)
	agreeWithGDB(t, "echo, printf", []string{"echo", "printf 1", "printf 2"},
		marked.FindAllString(out, -1), marked.FindAllString(oracle, -1), out, oracle)
	expect(t, out, "(polydbg) output n * 2\n20(polydbg) output/x mask\n0x30(polydbg) ",
		"Wrong number of arguments for specified format-string\n")
}

// interrupt on a program that is stopped does nothing, as in gdb (it waited for ever for a
// stop, found by FuzzCommands); before the program runs it says so.
func TestInterruptWhileStopped(t *testing.T) {
	out := script(t, "interrupt\nb fib\nrun\ninterrupt\np n\n")
	expect(t, out, "(polydbg) interrupt\nThe program is not being run.\n", "(polydbg) interrupt\n(polydbg) p n\n$1 = ")
}

// backtrace full, N and -N, and list FIRST,LAST, as gdb takes them.
func TestBacktraceFullAndListRanges(t *testing.T) {
	out := script(t, "break fib if n == 1\nrun\nc\nbt full\nbt 1\nbt -1\nlist 2,4\nlist ,12\nbt x\nlist 4,2\n")
	expect(t, out,
		"(polydbg) bt full\n#0  fib (n=1) at prog.kite:2\nNo locals.\n#1  fib (n=2) at prog.kite:5:12\nNo locals.\n",
		"#2  main () at prog.kite:10:", "        i = 2\n",
		"(polydbg) bt 1\n#0  fib (n=1) at prog.kite:2\n(More stack frames follow...)\n",
		"(polydbg) bt -1\n#2  main () at prog.kite:10:",
		"(polydbg) list 2,4\n", "2\t    if n < 2 {\n", "4\t    }\n(polydbg) list ,12\n",
		"12\tprint(\"total\", total)\n(polydbg) bt x\nNo symbol \"x\" in current context.\n",
		"(polydbg) list 4,2\n(polydbg) ") // nothing, as gdb
}

// info functions and rbreak, over the program's function names by regular expression.
func TestInfoFunctionsAndRbreak(t *testing.T) {
	out := script(t, "info functions\ninfo functions ^f\nrbreak ^fib$\ninfo breakpoints\nrbreak [\nrun\n")
	expect(t, out, "(polydbg) info functions\nAll defined functions:\n\nFile prog.kite:\n", "\tfib\n", "\tmain\n",
		"(polydbg) info functions ^f\nAll functions matching regular expression \"^f\":\n\nFile prog.kite:\n2:\tfib\n(polydbg) rbreak ^fib$\n",
		"Breakpoint 1 at pc ", "(polydbg) info breakpoints\nNum     Type           Disp Enb Address            What\n1       breakpoint     keep y   pc ", "(polydbg) rbreak [\nInvalid regexp: Unmatched [ or [^", "Breakpoint 1, fib (n=0) at prog.kite:2")
}

// dprintf prints what gdb's dprintf prints at each hit of a native program's function, and
// the program runs on.
func TestDprintfAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	commands := "dprintf square,\"<sq %d|%#x|%3d|%s>\\n\", x, x * 7, counter, \"lit\"\nrun\n"
	dir, out := nativeScript(t, commands+"info breakpoints\n")
	oracle := gdbBatch(t, filepath.Join(dir, "loop"), commands)
	marked := regexp.MustCompile(`(?m)^<sq .*$`)
	agreeWithGDB(t, "dprintf", []string{"x=0", "x=1", "x=2", "x=3", "x=4"},
		marked.FindAllString(out, -1), marked.FindAllString(oracle, -1), out, oracle)
	expect(t, out, "Dprintf 1 at 0x", "sum 30\n", `printf "<sq %d|%#x|%3d|%s>\n", x, x * 7, counter, "lit"`)
}

// dprintf on a Kite program: it prints at each hit and never stops; a format that does not
// fit its arguments sets nothing.
func TestDprintf(t *testing.T) {
	out := script(t, "dprintf fib,\"fib(%d) total=%x\\n\", n, total\ndprintf\ndprintf 2\ndprintf 2,\"%d %d\\n\", n\ninfo breakpoints\nrun\n")
	expect(t, out, "Dprintf 1 at pc ", "(polydbg) dprintf\nFormat string required\n",
		"(polydbg) dprintf 2\nFormat string required\n",
		"No breakpoint set: Wrong number of arguments for specified format-string\n",
		`printf "fib(%d) total=%x\n", n, total`, "fib(0) total=0\nfib(1) total=0\nfib(2) total=1\nfib(1) total=1\nfib(0) total=1\n", "total 7")
	if strings.Contains(out, "Breakpoint 1,") {
		t.Errorf("a dprintf stopped the program:\n%s", out)
	}
}

const declProg = `#include <stdarg.h>
static int helper(int x) { return x + 1; }
char *name_of(int n) { static char buf[8]; buf[0] = 'a' + n; return buf; }
void noop(void) {}
int sum_all(int n, ...) {
    va_list ap;
    va_start(ap, n);
    int s = 0;
    for (int i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap);
    return s;
}
int main(void) { noop(); return helper(1) + sum_all(2, 1, 2) + name_of(1)[0] - 100; }
`

// info functions declares each function of the program as gdb does: its declaration's
// line and its C declaration (static, a pointer returned, no parameters, varargs).
func TestInfoFunctionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "info functions ^helper$\ninfo functions name_of\ninfo functions noop\ninfo functions sum_all\n" +
		"info functions ^main$\ninfo functions nothing_like_this\n"
	dir, out := nativeScriptOf(t, "decls", declProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "decls"), commands)
	decl := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:All functions|File |\d+:\t).*)$`)
	agreeLines(t, "info functions", 16, captured(decl, out, ""), captured(decl, oracle, ""), out, oracle)
}

package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/cli"
)

// watchHit is one stop at a watchpoint as gdb prints it: the watchpoint, the values, the line.
var watchHit = regexp.MustCompile(`(Hardware [a-z/() ]*watchpoint \d+: \S+)\n\n((?:Old value = .*\nNew value = .*\n)|(?:Value = .*\n))\S+ (?:\(\) )?at \S+:(\d+)\n`)

// watch, awatch, info breakpoints and delete on a native program, against gdb on the same
// executable: every stop at a watchpoint says the same values at the same line.
func TestWatchpointsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.NeedHardwareWatchpoints(t)
	const commands = "break main\nrun\nwatch counter\ninfo breakpoints\ncontinue\ncontinue\nawatch sum\ncontinue\ndelete\ncontinue\n"
	dir, out := nativeScript(t, commands)
	expect(t, out,
		"(polydbg) watch counter", "Hardware watchpoint 2: counter\n",
		"(polydbg) info breakpoints", "\n2       hw watchpoint  keep y                      counter\n",
		"Hardware watchpoint 2: counter\n\nOld value = 0\nNew value = 1\nmain () at ", "loop.c:8\n",
		"Hardware watchpoint 2: counter\n\nOld value = 1\nNew value = 2\n",
		"(polydbg) awatch sum", "Hardware access (read/write) watchpoint 3: sum\n",
		"Hardware access (read/write) watchpoint 3: sum\n\nOld value = 0\nNew value = 1\n",
		"sum 30", "[Inferior 1 (process ", ") exited normally]",
	)
	oracle := gdbBatch(t, filepath.Join(dir, "loop"), commands)
	stops := func(s string) []string { // the watchpoint, the values and the line of each stop
		var ss []string
		for _, m := range watchHit.FindAllStringSubmatch(s, -1) {
			ss = append(ss, m[1]+"\n"+m[2]+"line "+m[3])
		}
		return ss
	}
	agreeWithGDB(t, "watchpoint stops", []string{"stop 1", "stop 2", "stop 3"}, stops(out), stops(oracle), out, oracle)
	// (x86's read watchpoints, which gdb makes of access ones: TestReadWatchpointAsGDB.)
}

// A Kite program's watchpoints are software ones, in gdb's words; a local's ends with its
// activation, as gdb deletes it when the frame goes.
func TestWatchOnKite(t *testing.T) {
	out := script(t, "b 10\nrun\nwatch total\ninfo breakpoints\ndelete 1\ncontinue\ncontinue\ndelete 2\n"+
		"b fib if n == 3\ncontinue\nrwatch n\ndelete 3\ncontinue\ncontinue\ncontinue\nwatch nope\nrwatch total[0]\n")
	expect(t, out,
		"(polydbg) watch total", "Watchpoint 2: total\n",
		"(polydbg) info breakpoints", "\n2       watchpoint     keep y                      total\n",
		"(polydbg) continue", "\nWatchpoint 2: total\n\nOld value = 0\nNew value = 1\nmain () at prog.kite:9:1\n",
		"(polydbg) continue", "\nWatchpoint 2: total\n\nOld value = 1\nNew value = 2\n",
		"(polydbg) rwatch n", "Read watchpoint 4: n\n",
		"(polydbg) continue", "\nRead watchpoint 4: n\n\nValue = 3\nfib (n=3) at prog.kite:5:16\n", // fib(3)'s reads only
		"(polydbg) continue", "\nRead watchpoint 4: n\n\nValue = 3\nfib (n=3) at prog.kite:5:29\n", // the second read, its column says
		"(polydbg) continue", "\nWatchpoint 4 deleted because the program has left the block in\nwhich its expression is valid.\nfib (",
		"(polydbg) watch nope", "Cannot watch nope: no variable nope\n",
		"(polydbg) rwatch total[0]", "Cannot watch total[0]: cannot index a value of type int\n",
	)
}

// finish with an outer frame selected runs until that frame returns, as gdb: from fib(1)
// with fib(2) selected, it stops in main with fib(2)'s value; in the outermost frame it
// says it means nothing.
func TestFinishSelectedFrame(t *testing.T) {
	out := script(t, "b fib if n == 1\nrun\nc\nup\nfinish\nbt\n")
	expect(t, out, "(polydbg) finish", "Run till exit from #1  fib (n=2) at prog.kite:5:", "Value returned is $1 = 1\n",
		"(polydbg) bt", "#0  main () at")
	out = script(t, "b fib\nrun\nup\nfinish\n")
	expect(t, out, "(polydbg) finish", "\"finish\" not meaningful in the outermost frame.\n")
}

// A tbreak's hit is told as gdb tells it, and the next hit of the place is not a stop.
func TestTemporaryBreakpointHit(t *testing.T) {
	out := script(t, "tbreak fib\nrun\nbt\nc\n")
	expect(t, out, "Temporary breakpoint 1 at", "\nTemporary breakpoint 1, fib (n=0) at prog.kite:2\n",
		"(polydbg) c", "total 7")
	if strings.Count(out, "Breakpoint 1,") != 0 {
		t.Errorf("the temporary breakpoint stopped again:\n%s", out)
	}
}

// With a program that is there already (firmware in QEMU, behind a stub), continue starts
// it, as gdb's does after target remote; without, it still says to run first.
func TestContinueStartsAnAttachedProgram(t *testing.T) {
	_, p := compileProg(t)
	var out strings.Builder
	cli.Run(cli.Config{In: strings.NewReader("b fib\ncontinue\nc\n"), Echo: true,
		Debug: gdbcmd.Config{Out: &out, NewSession: kiteSessions(p), Attached: true}})
	expect(t, out.String(), "(polydbg) continue\nContinuing.\n", "Breakpoint 1, fib (n=0) at", "(polydbg) c\nContinuing.\n", "Breakpoint 1, fib (n=1) at")
	expect(t, script(t, "b fib\ncontinue\n"), "(polydbg) continue\nThe program is not being run.\n")
}

// advance and until LOCATION run to a place, as gdb says it (where, no breakpoint number),
// and leave no breakpoint behind, also when something else stops the program first.
func TestAdvance(t *testing.T) {
	out := script(t, "start\nadvance 10\nadvance fib\ninfo breakpoints\nuntil 12\nuntil 12\nadvance\nuntil\n")
	expect(t, out,
		"(polydbg) advance 10\nmain () at prog.kite:10\n10\t",
		"(polydbg) advance fib\nfib (n=0) at prog.kite:2\n",
		"(polydbg) info breakpoints\nNo breakpoints or watchpoints.\n",
		"(polydbg) until 12\nmain () at prog.kite:10:11\n10\t    total += fib(i)\n", // fib(0) returned first: gdb stops there too
		"(polydbg) until 12\n", "main () at prog.kite:12\n",
		"(polydbg) advance\nArgument required", "(polydbg) until\n", "[program exited normally]")
	out = script(t, "start\nb fib\nadvance 12\ninfo breakpoints\n")
	expect(t, out, "(polydbg) advance 12\n", "Breakpoint 1, fib (n=0) at prog.kite:2", // fib first: the advance's breakpoint goes
		"(polydbg) info breakpoints\nNum     Type           Disp Enb Address            What\n1       breakpoint ")
	if i := strings.LastIndex(out, "(polydbg) info breakpoints"); strings.Contains(out[i:], "\n2 ") {
		t.Errorf("advance left its breakpoint:\n%s", out[i:])
	}
}

// shownLine is a source line as the terminal and gdb show it at a stop: its number, a tab.
var shownLine = regexp.MustCompile(`(?m)^(?:\(polydbg\) )*(\d+)\t`)

// linesAndValues is what a run showed to compare with gdb: the numbers of the source lines
// shown at its stops, then the values it printed.
func linesAndValues(s string) []string {
	var ls []string
	for _, m := range shownLine.FindAllStringSubmatch(s, -1) {
		ls = append(ls, m[1])
	}
	return append(ls, printedValues(s)...)
}

// linesAsGDB runs commands on the C program src in polydbg and in gdb and checks that the
// source lines shown at each stop and the values printed agree (what is named by what);
// it returns polydbg's output.
func linesAsGDB(t *testing.T, name, src, commands string, what ...string) string {
	t.Helper()
	realparts.Need(t, "gdb")
	dir, out := nativeScriptOf(t, name, src, commands)
	oracle := gdbBatch(t, filepath.Join(dir, name), commands)
	agreeWithGDB(t, name, what, linesAndValues(out), linesAndValues(oracle), out, oracle)
	return out
}

const cAdvance = `#include <stdio.h>
int square(int x) {
    int y = x * x;
    return y;
}
int main(void) {
    int s = square(3);
    s += square(4);
    printf("%d\n", s);
    return 0;
}
`

// advance LOCATION stops where the current function returns first, as gdb's does: from
// square, advance 9 stops back in main on the call's line; from there it reaches line 9.
// The lines shown and the value printed agree with gdb's.
func TestAdvanceAsGDB(t *testing.T) {
	out := linesAsGDB(t, "advance", cAdvance, "break square\nrun\ndelete\nadvance 9\nadvance 9\nprint s\ninfo breakpoints\n",
		"the breakpoint's line", "advance 9 from square", "advance 9 from main", "print s")
	expect(t, out, "(polydbg) info breakpoints\nNo breakpoints or watchpoints.\n") // advance's removed, as in gdb
}

// disable, enable and ignore, as gdb: the same commands on the same program stop with the
// same values.
func TestEnableDisableIgnoreAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break square\nbreak main\ndisable 1\nrun\nenable 1\nignore 1 2\ncontinue\nprint x\ndisable\ncontinue\n"
	dir, out := nativeScript(t, commands)
	expect(t, out, "Breakpoint 2, main () at", "(polydbg) ignore 1 2\nWill ignore next 2 crossings of breakpoint 1.\n",
		"Breakpoint 1, square (x=", "sum 30", "[Inferior 1 (process ", ") exited normally]")
	oracle := gdbBatch(t, filepath.Join(dir, "loop"), commands)
	agreeWithGDB(t, "enable, disable, ignore", []string{"print x after ignore 1 2"}, printedValues(out), printedValues(oracle), out, oracle)
	if strings.Count(out, "Breakpoint 1, square") != 1 {
		t.Errorf("a disabled breakpoint stopped the program:\n%s", out)
	}
	_, out = nativeScript(t, "break square\ndisable 1\ninfo breakpoints\nenable 9\nignore 1\n")
	expect(t, out, "\n1       breakpoint     keep n   0x", "(polydbg) enable 9\nNo breakpoint number 9.\n", "(polydbg) ignore 1\nArgument required")
}

// info breakpoints is gdb's table, row by row: a conditional breakpoint hit once with an
// ignore count, a disabled one, a dprintf and a watchpoint (a temporary one, hit, is gone).
func TestInfoBreakpointsAsGDB(t *testing.T) {
	dir, out, oracle := loopAndGDB(t, "break square if x == 3\nbreak main\ntbreak loop.c:8\ndisable 2\nrun\ncontinue\n"+
		"dprintf square,\"sq %d\\n\", x\nignore 1 1\nwatch counter\ninfo breakpoints\n")
	table := func(s string) []string { // the lines from the table's header to the end or the next prompt
		i := strings.Index(s, "Num     Type")
		if i < 0 {
			return nil
		}
		s, _, _ = strings.Cut(strings.ReplaceAll(s[i:], dir+"/", ""), "(polydbg)")
		return strings.Split(strings.TrimRight(s, "\n"), "\n")
	}
	agreeLines(t, "info breakpoints", 8, table(out), table(oracle), out, oracle)
}

const cUntil = `#include <stdio.h>
int main(void) {
    int total = 0;
    for (int i = 0; i < 5; i++) {
        total += i;
        total += 1;
    }
    printf("%d\n", total);
    return 0;
}
`

// until without a location: next, but not back into the loop, as gdb's (which stops at
// the loop's increment, placed after the body, then past the loop); the lines shown and the
// value printed agree with gdb's.
func TestUntilLeavesTheLoopAsGDB(t *testing.T) {
	linesAsGDB(t, "until", cUntil, "break 6\nrun\ndelete\nuntil\nuntil\nprint total\nuntil\n",
		"the breakpoint's line", "until", "until", "until", "print total")
	out := script(t, "until\nbreak 10\nrun\ndelete\nuntil\nprint total\n") // a Kite for loop
	expect(t, out, "(polydbg) until\nThe program is not being run.\n", "(polydbg) until\n12\tprint(\"total\", total)\n", "$1 = 7\n")
}

// jump LINE goes on at another line of the function, as gdb's: past the loop, the program
// prints the total it had (0), as it does in gdb; a line of another function is refused.
func TestJumpAsGDB(t *testing.T) {
	const commands = "break 5\nrun\njump 7\n"
	dir, out := nativeScriptOf(t, "until", cUntil, commands)
	expect(t, out, "(polydbg) jump 7\nContinuing at 0x", "\n0\n", "[Inferior 1 (process ", ") exited normally]")
	if oracle := gdbBatch(t, filepath.Join(dir, "until"), commands); !strings.Contains(oracle, "\n0\n") {
		t.Errorf("gdb printed another total:\n%s", oracle)
	}
	out = script(t, "break 10\nrun\njump 3\njump 9\nprint i\n")
	expect(t, out, "(polydbg) jump 3\nLine 3 is not a statement of the function being run", "(polydbg) jump 9\nContinuing at pc ",
		"Breakpoint 1, main () at prog.kite:10", "(polydbg) print i\n$1 = 1\n")
}

const finishProg = `struct pair { int a, b; };
struct big { long x[3]; };
struct mixed { double d; int i; };
struct pair make(int x) { struct pair p = { x, x * 2 }; return p; }
struct big wide(long x) { struct big b = {{ x, x + 1, x + 2 }}; return b; }
struct mixed mix(int i) { struct mixed m = { i / 4.0, i }; return m; }
double half(int x) { return x / 2.0; }
float third(int x) { return x / 3.0f; }
char pick(const char *s, int i) { return s[i]; }
const char *name(void) { return "polydbg"; }
int main(void) {
    struct pair p = make(3);
    struct big b = wide(7);
    struct mixed m = mix(5);
    double h = half(p.b);
    float t = third(2);
    char c = pick("hello", 1);
    const char *n = name();
    return (int)h + (int)t + c + p.a + n[0] + (int)b.x[0] + m.i - 249;
}
`

// finish prints what a function returned as gdb does whatever its type: a struct in
// registers (integers, then a double and an int), one in memory, a double, a float, a
// char, a string; x at an address without memory says so as gdb does.
func TestFinishValuesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break make\nbreak wide\nbreak mix\nbreak half\nbreak third\nbreak pick\nbreak name\nrun\n" +
		"finish\nc\nfinish\nc\nfinish\nc\nfinish\nc\nfinish\nc\nfinish\nc\nfinish\nx/4x 0x65\nx/s 0x65\np 1\n" // the last succeeds: gdb -batch ends with its status
	dir, out := nativeScriptOf(t, "finish", finishProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "finish"), commands)
	returned := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:Value returned is|\s*0x65:).*)$`)
	agreeLines(t, "finish", 9, captured(returned, out, ""), captured(returned, oracle, ""), out, oracle)
}

// rwatch on x86-64, whose debug registers watch writes or every access: as gdb, an access
// watchpoint whose hits that change the value are writes and pass; info watchpoints counts
// each watchpoint's hits.
func TestReadWatchpointAsGDB(t *testing.T) {
	realparts.NeedHardwareWatchpoints(t)
	const commands = "break 8\nrun\nwatch sum\nrwatch counter\nc\nc\nc\nc\ninfo watchpoints\n"
	_, out, oracle := loopAndGDB(t, commands)
	said := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:Hardware |Value = |Old value|New value|Num |\d+ +\S+ watchpoint|\tbreakpoint already).*)$`)
	agreeLines(t, "rwatch", 14, captured(said, out, ""), captured(said, oracle, ""), out, oracle)
}

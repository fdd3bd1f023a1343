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

const framesProg = `#include <stdio.h>
struct point { int x, y; };
enum color { RED, GREEN = 5, BLUE };
int fact(int n) {
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}
int paint(struct point p, enum color c, const char *name, int *out) {
    *out = p.x + c + name[0];
    return fact(3);
}
int main(void) {
    struct point p = {1, 2};
    int o = 0;
    int r = paint(p, GREEN, "pt", &o);
    printf("%d %d\n", r, o);
    return 0;
}
`

// frameText finds the frames a transcript shows (at a stop, in a backtrace, after finish,
// up and down) and keeps the frame itself: "#1  0x... in fact (n=3) at frames.c:7", and
// the lines a stepi shows in the middle of a line, after their pc. (gdb
// -batch does not say "Run till exit from".)
var frameText = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(?:Breakpoint \d+, )?((?:#\d+ +)?(?:0x[0-9a-f]+ in )?\w+ \(.*\) at \S+:\d+|0x[0-9a-f]+\t\d+\t.*)$`)

// stackAddress is a pointer into the stack, which gdb's own run of the program places
// elsewhere than gdbserver's (another environment).
var stackAddress = regexp.MustCompile(`0x7ff[0-9a-f]{9}`)

// frameLines are the frames a transcript shows, with the build directory and stack
// addresses taken out.
func frameLines(s, dir string) []string {
	var fs []string
	for _, m := range frameText.FindAllStringSubmatch(s, -1) {
		f := strings.ReplaceAll(m[1], dir+"/", "")
		fs = append(fs, stackAddress.ReplaceAllString(f, "0x7ff..."))
	}
	return fs
}

// Frames are shown as gdb shows them, arguments and caller addresses included: at a
// breakpoint, in a backtrace through a recursion and a function taking a struct, after
// finish (in the middle of the caller's line), on up, frame and down, and at each stepi.
func TestFrameLinesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break fact if n == 1\nrun\nbacktrace\nfinish\nup\nframe 3\ndown\nbacktrace 2\nstepi\nstepi\nstepi\n"
	dir, out := nativeScriptOf(t, "frames", framesProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "frames"), commands)
	agreeLines(t, "frame lines", 12, frameLines(out, dir), frameLines(oracle, dir), out, oracle)
	expect(t, out, "#3  0x", " in paint (p=..., c=GREEN, name=0x", ` "pt", out=0x`)
}

// sourceLine is a line a step shows: "8\t..." at the start of a line, "0x...\t8\t..." inside.
var sourceLine = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:0x[0-9a-f]+\t)?\d+\t.*)$`)

// nexti steps an instruction at a time over the call of square, as gdb: the same pcs and
// lines, the pc shown only inside a line (gdb's line table, loop rows merged).
func TestNextiAsGDB(t *testing.T) {
	dir, out, oracle := loopAndGDB(t, "break main\nrun\nnext\nnext\nnext"+strings.Repeat("\nnexti", 10)+"\n")
	agreeLines(t, "nexti", 14, captured(sourceLine, out, dir), captured(sourceLine, oracle, dir), out, oracle)
	if !strings.Contains(out, "(polydbg) nexti\n6\t") {
		t.Errorf("nexti did not come back from square to the loop:\n%s", out)
	}
}

// On Kite, nexti runs a call instruction with the function it calls: it never stops in
// fib, and stepi does.
func TestNextiOnKite(t *testing.T) {
	out := script(t, "b 10\nrun\n"+strings.Repeat("nexti\n", 8)+"bt\n"+strings.Repeat("stepi\n", 8)+"bt\n")
	i := strings.Index(out, "(polydbg) bt")
	if i < 0 || strings.Contains(out[:i], "fib (") || !strings.Contains(out[i:], "#0  main () at prog.kite:") {
		t.Fatalf("nexti stopped in fib:\n%s", out)
	}
	expect(t, out[i+1:], "(polydbg) stepi", "fib (n=", "(polydbg) bt\n#0  fib (n=", "#1  main () at prog.kite:10:")
}

// registerLine is a line of info registers: name, raw value, natural value.
var registerLine = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?([a-z][a-z0-9_]*) +(0x[0-9a-f]+) +(.*)$`)

// info registers shows gdb's general group in gdb's columns, each value by its type (a
// code pointer with its symbol, eflags' flags, signed integers), and gdb's aliases pc, sp,
// fp and ps. A value that depends on where the stack is (another environment under gdb)
// is compared by its form only.
func TestInfoRegistersAsGDB(t *testing.T) {
	_, out, oracle := loopAndGDB(t, "break square\nrun\ninfo registers\ninfo registers pc sp fp ps $rip\n")
	lines := func(s string) []string {
		var ls []string
		for _, m := range registerLine.FindAllStringSubmatch(s, -1) {
			if strings.HasPrefix(m[2], "0x7ff") || strings.HasPrefix(m[3], "0x7ff") { // the stack, the loader, libc
				m[0] = m[1] + " <an address of the process's memory map>"
			}
			ls = append(ls, strings.TrimPrefix(m[0], "(polydbg) "))
		}
		return ls
	}
	agreeLines(t, "info registers", 30, lines(out), lines(oracle), out, oracle)
}

const prettyProg = `struct point { int x, y; };
struct shape { const char *name; struct point at; struct point corners[2]; int tags[3]; };
int area(struct shape *s) { return (s->corners[1].x - s->corners[0].x) * 2; }
int main(void) {
    struct shape s = {"box", {1, 2}, {{0, 0}, {3, 4}}, {7, 8, 9}};
    return area(&s);
}
`

// set print pretty on lays out structs as gdb does: a member a line, nested structs
// indented, arrays of scalars on one line, a struct element of an array one level deeper.
func TestPrintPrettyAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break area\nrun\nset print pretty on\nshow print pretty\nprint *s\nprint s->corners\nprint s->at\nset print pretty off\nprint s->at\n"
	dir, out := nativeScriptOf(t, "pretty", prettyProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "pretty"), commands)
	after := func(s string) []string { // the lines from show print pretty on, without the commands
		i := strings.Index(s, "Pretty formatting of structures is on.")
		if i < 0 {
			return nil
		}
		s, _, _ = strings.Cut(s[i:], "A debugging session is active.") // the end of input's question (gdb's -batch does not ask)
		var ls []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			if l != "(polydbg)" && !strings.HasPrefix(l, "(polydbg) ") {
				ls = append(ls, l)
			}
		}
		return ls
	}
	agreeLines(t, "print pretty", 20, after(out), after(oracle), out, oracle)
}

// infoLineAnswer is an answer of info line.
// (Not libc's loop.c, whose lines gdb may know too.)
var infoLineAnswer = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(Line .*"loop\.c".*)$`)

// info line says where a line's code starts and ends as gdb does, by gdb's line table (the
// loop's rows merged), for the current line, a function (the line it starts at, not the
// one after its prologue), a line, an address, a line without code and one past the end;
// $_ is then that address (and x/i goes on from there: TestTypesOfCallsAsGDB).
func TestInfoLineAsGDB(t *testing.T) {
	dir, out, oracle := loopAndGDB(t, "break square\nrun\ninfo line\ninfo line square\ninfo line 8\ninfo line loop.c:6\n"+
		"info line *$pc\ninfo line 2\ninfo line 300\nup\ninfo line\ninfo line *$pc\ninfo line main\np $_\n")
	agreeLines(t, "info line", 10, captured(infoLineAnswer, out, dir), captured(infoLineAnswer, oracle, dir), out, oracle)
	agreeLines(t, "$_ after info line", 1, captured(printed, out, dir), captured(printed, oracle, dir), out, oracle)
}

// On Kite, info line says a line's first statement by instruction numbers.
func TestInfoLineOnKite(t *testing.T) {
	out := script(t, "b fib\nrun\ninfo line\ninfo line 5\ninfo line *23\ninfo line 7\ninfo line 99\n")
	expect(t, out,
		"(polydbg) info line\nLine 2 of \"prog.kite\" starts at address pc 23 and ends at pc ",
		"(polydbg) info line 5\nLine 5 of \"prog.kite\" starts at address pc ",
		"(polydbg) info line *23\nLine 2 of \"prog.kite\" starts at address pc 23 and ends at pc ",
		"(polydbg) info line 7\nLine 7 of \"prog.kite\" is at address pc ", " but contains no code.\n",
		"(polydbg) info line 99\nLine number 99 is out of range for \"prog.kite\".\n")
}

// infoFrameLine is a line of info frame's answer.
var infoFrameLine = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:Stack level|  ?[a-zA-Z]).*)$`)

// info frame says where a frame lives as gdb does: its address, its pc and the one it
// returns to, its caller and callee, its language, its arguments and where it saved its
// caller's registers, for the innermost frame, a middle one and main. The stack lies
// elsewhere under gdb (another environment): its addresses are compared by their form.
func TestInfoFrameAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break fact if n == 1\nrun\ninfo frame\nup\ninfo frame\nframe 4\ninfo frame\n"
	dir, out := nativeScriptOf(t, "frames", framesProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "frames"), commands)
	lines := func(s string) []string {
		var ls []string
		for _, l := range captured(infoFrameLine, s, dir) {
			if strings.HasPrefix(l, "Stack level") || strings.Contains(l, " = 0x") || strings.Contains(l, " at 0x") || strings.Contains(l, "language") {
				ls = append(ls, stackAddress.ReplaceAllString(l, "0x7ff..."))
			}
		}
		return ls
	}
	agreeLines(t, "info frame", 20, lines(out), lines(oracle), out, oracle)
}

// list after a stop shows the ten lines around it as gdb centres them (line - 5), and after
// up the lines around the selected frame's.
func TestListCentresOnTheStop(t *testing.T) {
	out := script(t, "b 10\nrun\nlist\nb fib if n == 1\nc\nc\nlist\nup\nlist\n")
	expect(t, out,
		"(polydbg) list\n5\t", "12\t", // line 10: from 5
		"Breakpoint 2, fib (n=1)", "(polydbg) list\n1\tfn fib(n) {\n2\t", // line 2: from 1
		"(polydbg) up\n#1  main () at prog.kite:10:14", "(polydbg) list\n5\t") // main's line 10 again
	if i := strings.Index(out, "(polydbg) list\n"); strings.Contains(out[i:i+60], "\n4\t") {
		t.Errorf("list starts before line 5:\n%s", out)
	}
}

// info source tells the selected frame's file and how it was compiled, as gdb does; the
// program is built from its own directory (gcc frames.c), so that the unit's name is
// relative and its place the compilation directory's.
func TestInfoSourceAsGDB(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver", "gdb")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "frames.c"), []byte(framesProg), 0o644); err != nil {
		t.Fatal(err)
	}
	gcc := exec.Command("gcc", "-g", "-O1", "-o", "frames", "frames.c")
	gcc.Dir = dir
	if out, err := gcc.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	exe := filepath.Join(dir, "frames")
	const commands = "info source\nbreak fact\nrun\ninfo source\nup\ninfo source\n"
	var out strings.Builder
	cli.Run(cli.Config{In: strings.NewReader(commands), Echo: true, Debug: gdbcmd.Config{Out: &out, NewSession: nativeSessions(exe)}})
	oracle := gdbBatch(t, exe, commands)
	sourceLine := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:No current source|Current source|Compilation directory|Located in|Contains|Source language|Producer|Compiled with|Does not include|Includes).*)$`)
	agreeLines(t, "info source", 17, captured(sourceLine, out.String(), ""), captured(sourceLine, oracle, ""), out.String(), oracle)
}

// list, list -, FIRST,LAST, ,LAST, FILE:LINE, FILE:FUNCTION and FUNCTION show the lines gdb
// shows, a range's ends any of those or +N after the first (polydbg marks the current line
// and breakpoints in a column of its own: the line numbers are compared).
func TestListAsGDB(t *testing.T) {
	const commands = "list square\nlist\nlist -\nlist 3,5\nlist loop.c:8\nlist loop.c:square\nlist ,4\nlist -\n" +
		"list nosuch.c:3\nbreak square\nrun\nlist\nframe 1\nlist\nlist -\nlist main,+2\nlist square,main\nlist 6,3\n" +
		"list nosuch,3\nlist loop.c:main,+1\nlist 9,\n"
	_, out, oracle := loopAndGDB(t, commands)
	numbered := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(\d+\t.*|No source file.*|Already at.*)$`) // as gdb's: no marks
	agreeLines(t, "list", 60, captured(numbered, out, ""), captured(numbered, oracle, ""), out, oracle)
}

const recProg = `int fact(int n) {
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}
int main(void) {
    int r = fact(5);
    return r - 120;
}
`

// up N and down N move N frames, as far as there are; bt N and bt -N show the innermost and
// the outermost N frames; frame shows the selected one.
func TestFrameCountsAsGDB(t *testing.T) {
	const commands = "break fact if n == 2\nrun\nbt 2\nbt -2\nup 2\ndown 1\nframe\nframe 3\nup 9\nup\ndown 9\ndown\nwhere 1\n"
	dir, out := nativeScriptOf(t, "rec", recProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "rec"), commands)
	said := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(#\d+ .*|Initial frame.*|Bottom .*)$`)
	agreeLines(t, "frame counts", 13, captured(said, out, dir), captured(said, oracle, dir), out, oracle)
}

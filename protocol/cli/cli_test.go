package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/protocol/cli"
)

const prog = `fn fib(n) {
    if n < 2 {
        return n
    }
    return fib(n - 1) + fib(n - 2)
}

let total = 0
for i in range(0, 5) {
    total += fib(i)
}
print("total", total)
`

// script runs the debugger on prog with the given commands piped in.
func script(t *testing.T, commands string) string {
	t.Helper()
	return scriptShown(t, commands, false, false)
}

// scriptShown is script with Config.Color and Config.Marks (a terminal's) set as asked.
func scriptShown(t *testing.T, commands string, color, marks bool) string {
	t.Helper()
	file, p := compileProg(t)
	var out strings.Builder
	code := cli.Run(cli.Config{
		In: strings.NewReader(commands), Echo: true,
		Debug: gdbcmd.Config{Out: &out, Color: color, Marks: marks, NewSession: kiteSessions(p)},
	})
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	return strings.ReplaceAll(out.String(), file, "prog.kite")
}

// compileProg writes prog to a file and compiles it.
func compileProg(t *testing.T) (string, *compile.Program) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "prog.kite")
	if err := os.WriteFile(file, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := kite.CompileFile(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return file, p
}

// kiteSessions makes fresh sessions of a compiled Kite program, as Config.NewSession.
func kiteSessions(p *compile.Program) func() (*engine.Session, error) {
	return func() (*engine.Session, error) {
		tg, err := kitevm.New(p, kitevm.Options{})
		if err != nil {
			return nil, err
		}
		return engine.NewSession(tg), nil
	}
}

func expect(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		i := strings.Index(out, w)
		if i < 0 {
			t.Fatalf("output lacks %q:\n%s", w, out)
		}
		out = out[i+len(w):]
	}
}

// Source lines are coloured only when Config.Color is set: keywords and the current line's mark.
func TestListColour(t *testing.T) {
	if out := script(t, "b fib\nrun\nlist\n"); strings.Contains(out, "\x1b[") {
		t.Errorf("escape codes without Color:\n%q", out)
	}
	out := scriptShown(t, "b fib\nrun\nlist\n", true, true)
	expect(t, out, "\x1b[35mfn\x1b[0m fib(n) {", "\x1b[1;33m*>\x1b[0m   2\t    \x1b[35mif\x1b[0m n < \x1b[36m2\x1b[0m {")
}

func TestBreakStepPrintBacktrace(t *testing.T) {
	out := script(t, `b fib if n == 2
run
bt
info args
p n * 10
next
n
s
finish
display total
delete
c
quit
`)
	expect(t, out,
		"Breakpoint 1 at pc 23: file prog.kite, line 2.\n",
		"Breakpoint 1, fib (n=2) at prog.kite:2\n2\t    if n < 2 {",
		"(polydbg) bt\n#0  fib (n=2) at prog.kite:2\n#1  main () at prog.kite:10:14\n",
		"n = 2",
		"$1 = 20",
		"5\t    return fib(n - 1) + fib(n - 2)", // n == 2: the if is false
		"(polydbg) n\nmain () at prog.kite:10:11\n10\t    total += fib(i)", // next over the return: back in the caller, mid-line
		"(polydbg) s\n9\tfor i in range(0, 5) {",                           // the same frame: its line only
		"Breakpoint 1, fib (n=2) at prog.kite:2",                           // finish at the top level runs on: fib(3) calls fib(2)
		"1: total = 2",
		"total 7",
		"[program exited normally]",
	)
}

func TestMistakesGetClearMessages(t *testing.T) {
	out := script(t, `continue
frobnicate
s
b
b nosuchfn
b 100
undisplay 3
p 1 +
run
c
print n
history
`)
	expect(t, out,
		"(polydbg) continue\nThe program is not being run.\n", // gdb's words
		`Undefined command: "frobnicate". Try "help".`,
		"(polydbg) s\nThe program is not being run.\n",
		"(polydbg) b\nNo default breakpoint address now.\n", // gdb's, before the program runs
		`Function "nosuchfn" not defined.`,                  // gdb's words
		"No breakpoint set: no code at or after line 100",
		"No display number 3.",
		"total 7",
		"The program is not being run (it has ended).",
		"   12  history",
	)
	if out := script(t, "fin\n"); !strings.Contains(out, `Ambiguous command "fi": finish`) && !strings.Contains(out, "not being run") {
		t.Fatalf("fin: %s", out)
	}
	if out := script(t, "f\nstart\nup\nwhere\nlist\nlist fib\ninfo frame\nkill\n"); !strings.Contains(out, "Stopped at entry") ||
		!strings.Contains(out, "Initial frame selected; you cannot go up.") || !strings.Contains(out, "1\tfn fib(n) {") || !strings.Contains(out, "[program terminated]") {
		t.Fatalf("start/list/kill:\n%s", out)
	}
}

func TestGarbageAndHugeLines(t *testing.T) {
	huge := strings.Repeat("x", 3<<20)
	out := script(t, "\x00\x01\xff\n"+huge+"\nb fib\nrun\n   \n\"unclosed\nq\n")
	expect(t, out, "Undefined command", "Line too long", "Breakpoint 1 at pc", "Breakpoint 1, fib (n=0) at")
	if n := strings.Count(out, "Breakpoint 1, "); n != 1 { // the empty line does not run it again, as gdb
		t.Errorf("%d stops, want 1:\n%s", n, out)
	}
	out = script(t, "b fib\nrun\nnext\n\n")
	expect(t, out, "(polydbg) next\n3\t", "(polydbg) \nmain () at prog.kite:10:") // but next is repeated
}

// Displays are the engine's watches: numbered as gdb numbers them, shown in their format at
// every stop, and kept under the same numbers when the program is run again.
func TestDisplaysAcrossRuns(t *testing.T) {
	out := script(t, "b fib\nrun\ndisplay n\ndisplay/x n + 16\nundisplay 1\ninfo display\nkill\nrun\nc\n")
	expect(t, out,
		"(polydbg) display n\n1: n = 0\n",
		"(polydbg) display/x n + 16\n2: /x n + 16 = 0x10\n",
		"(polydbg) info display\nAuto-display expressions now in effect:\nNum Enb Expression\n2:   y  /x n + 16\n",
		"(polydbg) run", "Breakpoint 1, fib", "2: /x n + 16 = 0x10\n",
		"(polydbg) c", "Breakpoint 1, fib", "2: /x n + 16 = 0x11\n",
	)
	if strings.Contains(out[strings.Index(out, "undisplay 1"):], "1: n =") {
		t.Errorf("display 1 shown after undisplay:\n%s", out)
	}
}

// On a Kite program too: break without a location is at the selected frame's pc, gdb's
// note names the breakpoint already there, and enable once disables after one stop.
func TestBareBreakAndEnableOnce(t *testing.T) {
	out := script(t, `break fib
run
break
up
break
enable once 1
info breakpoints 1
continue
continue
info breakpoints
`)
	expect(t, out,
		"(polydbg) break\nNote: breakpoint 1 also set at pc 23.\nBreakpoint 2 at pc 23: file prog.kite, line 2.\n",
		"(polydbg) break\nBreakpoint 3 at pc 13: file prog.kite, line 10.\n", // the caller's pc, after the call
		"1       breakpoint     dis  y   pc 23              in fib at prog.kite:2\n",
		"\nBreakpoint 3, main () at prog.kite:10:14\n", // fib(0) returned
		"\nBreakpoint 1, fib (n=1) at prog.kite:2\n",
		"1       breakpoint     dis  n   pc 23              in fib at prog.kite:2\n\tbreakpoint already hit 2 times\n"+
			"2       breakpoint     keep y   pc 23              prog.kite:2\n\tbreakpoint already hit 1 time\n", // both at the stop
	)
}

// skip on a Kite program: step passes over a skipped function (and what it calls), as
// next would, and enters it again once the skip is disabled.
func TestSkipOnKite(t *testing.T) {
	out := script(t, `break 10
run
skip fib
info skip
step
skip disable 1
step
step
`)
	expect(t, out,
		"(polydbg) skip fib\nFunction fib will be skipped when stepping.\n",
		"1     y      n <none>                n fib\n",
		"(polydbg) step\n9\tfor i in range(0, 5) {\n", // fib(0) and what it calls passed over
		"(polydbg) step\nfib (n=1) at prog.kite:2\n")  // entered once the skip is disabled
}

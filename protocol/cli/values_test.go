package cli_test

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/cli"
)

// gdb's value history: every print makes $N; $, $$ and $$N go back from the last one.
// print/x /t /o /c /d /u format the value; whatis and ptype show its type.
func TestValueHistoryAndFormats(t *testing.T) {
	out := script(t, `b fib
run
p n
p $1 + 1
p $ * 10
p $$2
p $$
p $9
p/x 255
p/t 5
p/o 8
p/c 65
p/x -1
p/z 5
p
whatis total
ptype n
show values
display/x n + 255
display/q n
c
`)
	expect(t, out,
		"(polydbg) p n\n$1 = 0\n",
		"(polydbg) p $1 + 1\n$2 = 1\n",
		"(polydbg) p $ * 10\n$3 = 10\n",
		"(polydbg) p $$2\n$4 = 0\n", // two back from $3
		"(polydbg) p $$\n$5 = 10\n",
		"History has not yet reached $9.",
		"$6 = 0xff\n", "$7 = 101\n", "$8 = 010\n", "$9 = 65 'A'\n",
		"$10 = 0xffffffffffffffff\n", // a Kite int has 64 bits
		"$11 = 0x0000000000000005\n", // z: hex as wide as the value, as gdb
		"(polydbg) p\n$12 = 5\n",
		"(polydbg) whatis total\ntype = int\n",
		"(polydbg) ptype n\ntype = int\n",
		"(polydbg) show values\n$3 = 10\n",
		"(polydbg) display/x n + 255\n1: /x n + 255 = 0xff\n",
		`Undefined output format "q"`,
		"Breakpoint 1, fib (n=1) at", "1: /x n + 255 = 0x100\n",
	)
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes in piped output:\n%q", out)
	}
}

// list marks the current line ('>') and breakpoints ('*') at a terminal (Marks); continue
// N passes the current breakpoint N-1 more times; set context on shows source, stack and
// variables at each stop, all without escape codes when there is no colour.
func TestListMarksContinueNAndContext(t *testing.T) {
	out := scriptShown(t, `b 5
b fib
run
list
set listsize 3
list 9
delete 1
c 4
p n
info breakpoints
set context on
c
show context
info args
info locals
`, false, true)
	expect(t, out,
		"Breakpoint 2, fib (n=",
		"(polydbg) list\n     1\tfn fib(n) {\n*>   2\t    if n < 2 {\n     3\t        return n\n     4\t    }\n*    5\t    return fib(n - 1) + fib(n - 2)\n",
		"(polydbg) list 9\n     8\tlet total = 0\n     9\tfor i in range(0, 5) {\n    10\t    total += fib(i)\n(polydbg)",
		// fib(1), fib(2) and fib(2)'s fib(1) are passed; fib(2)'s fib(0) stops
		"Will ignore next 3 crossings of breakpoint 2.  Continuing.",
		"Breakpoint 2, fib (n=0) at prog.kite:2", "(polydbg) p n\n$1 = 0\n", "\tbreakpoint already hit 5 times\n",
		"── source ──", "*>   2\t    if n < 2 {",
		"── stack ──", "#0   fib at prog.kite:2", "#1   main at prog.kite:10",
		"── variables ──", "n = 3",
		"The context display after each stop is on.",
		"(polydbg) info args\nn = 3\n",
		"(polydbg) info locals\nNo locals.\n",
	)
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes in piped output:\n%q", out)
	}
}

// finish says which frame it leaves and keeps the returned value as $N, as gdb does.
func TestFinishPrintsTheReturnedValue(t *testing.T) {
	out := script(t, "b fib if n == 2\nrun\nfinish\np $ + 1\n")
	expect(t, out,
		"(polydbg) finish\nRun till exit from #0  fib (n=2) at prog.kite:2\nmain () at prog.kite:10:11\n",
		"10\t    total += fib(i)\n",
		"Value returned is $1 = 1\n",
		"(polydbg) p $ + 1\n$2 = 2\n",
	)
}

// lineReader hands out one line per Read and calls hook(line) before handing it out.
type lineReader struct {
	lines []string
	hook  func(line string)
}

func (r *lineReader) Read(b []byte) (int, error) {
	if len(r.lines) == 0 {
		return 0, io.EOF
	}
	line := r.lines[0]
	r.lines = r.lines[1:]
	r.hook(line)
	return copy(b, line), nil
}

// A Ctrl-C that comes after the command is typed but before the program is resumed
// still pauses it (else an endless program would run on, deaf to the key).
func TestCtrlCBeforeTheResumeStillPauses(t *testing.T) {
	p, err := kite.Compile("spin.kite", []byte("let k = 0\nwhile true {\n    k += 1\n}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var pause func()
	in := &lineReader{lines: []string{"start\n", "continue\n", "print k > 0\n", "kill\n"}, hook: func(line string) {
		if line == "continue\n" {
			pause() // Ctrl-C now: the program is stopped at entry, about to be continued
		}
	}}
	var out strings.Builder
	done := make(chan struct{})
	go func() {
		defer close(done)
		cli.Run(cli.Config{In: in, Echo: true,
			Interrupts: func(p func()) func() { pause = p; return func() {} },
			Debug:      gdbcmd.Config{Out: &out, NewSession: kiteSessions(p)}})
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the program was not paused:\n%s", out.String())
	}
	expect(t, out.String(), "(polydbg) continue\nContinuing.\n", "Paused in main", "(polydbg) print k > 0\n$1 = true", "[program terminated]")
}

// The value history as gdb keeps it: its messages when empty or short, the values printed
// again once the program has ended, and $_exitcode (void until the program exits).
func TestHistoryAsGDB(t *testing.T) {
	const commands = "p $\np $$\np $1\np $_exitcode\nbreak square if x == 3\nrun\np x\np sum\np $\np $$2\np $$9\np $9\np/x $2\n" +
		"delete\ncontinue\np $_exitcode\np $1\np $\np $$\n"
	_, out, oracle := loopAndGDB(t, commands)
	value := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(\$\d+ = .*|History .*|The history .*)$`)
	agreeLines(t, "value history", 14, captured(value, out, ""), captured(value, oracle, ""), out, oracle)
}

// info program says why the program stopped, as gdb does, and that it is not being run
// once it has ended.
func TestInfoProgramAsGDB(t *testing.T) {
	const commands = "info program\nbreak square\nrun\ninfo program\nstepi\ninfo program\ncontinue\ndelete\ninfo program\nkill\ninfo program\n"
	_, out, oracle := loopAndGDB(t, commands)
	said := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:\tUsing the running image|Program stopped|It stopped|The program being debugged).*)$`)
	lwp := regexp.MustCompile(`LWP \d+`)
	pick := func(s string) []string {
		ls := captured(said, s, "")
		for i := range ls {
			ls[i] = lwp.ReplaceAllString(ls[i], "LWP N")
		}
		return ls
	}
	agreeLines(t, "info program", 11, pick(out), pick(oracle), out, oracle)
}

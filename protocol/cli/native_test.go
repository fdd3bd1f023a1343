package cli_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/cli"
)

const cProg = `#include <stdio.h>
int counter;
int square(int x) { return x * x; }
int main(void) {
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        counter++;
        sum += square(i);
    }
    printf("sum %d\n", sum);
    return 0;
}
`

// nativeScript builds cProg with gcc and runs the debugger on it under gdbserver with the
// given commands; it returns the build directory and the transcript.
func nativeScript(t *testing.T, commands string) (dir, transcript string) {
	t.Helper()
	return nativeScriptOf(t, "loop", cProg, commands)
}

// nativeScriptOf is nativeScript for the C program text prog, built as name.c with gcc's
// extra flags.
func nativeScriptOf(t *testing.T, name, prog, commands string, flags ...string) (dir, transcript string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdbserver")
	dir = t.TempDir()
	src, exe := filepath.Join(dir, name+".c"), filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-g", "-O0", "-o", exe, src}, flags...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	var out strings.Builder
	cli.Run(cli.Config{In: strings.NewReader(commands), Echo: true,
		Debug: gdbcmd.Config{Out: &out, NewSession: nativeSessions(exe)}})
	return dir, out.String()
}

// nativeSessions makes the sessions of a native program under gdbserver.
func nativeSessions(exe string) func() (*engine.Session, error) {
	return func() (*engine.Session, error) {
		tg, err := gdbremote.LaunchNative(context.Background(), exe, nil, gdbremote.Config{})
		if err != nil {
			return nil, err
		}
		return engine.NewSession(tg), nil
	}
}

// The same commands work on a native program under gdbserver as on a Kite program.
func TestSameCommandsOnNativeProgram(t *testing.T) {
	dir, out := nativeScript(t, "break square if x == 3\nrun\nbt\nprint x\nprint counter\nfinish\nprint sum\ndelete\nc\n")
	expect(t, strings.ReplaceAll(out, dir+"/", ""),
		"Breakpoint 1 at 0x", ": file loop.c, line 3.\n",
		"Breakpoint 1, square (x=3) at loop.c:3",
		"#0  square (x=3) at loop.c:3\n", "#1  0x", " in main () at loop.c:8\n",
		"$1 = 3",
		"$2 = 4",
		"Run till exit from #0  square (x=3) at loop.c:3\n0x", " in main () at loop.c:8\n",
		"8\t        sum += square(i);",
		"Value returned is $3 = 9", // square(3), gdb's words
		"$4 = 5",
		"[Inferior 1 (process ", ") exited normally]",
	)
}

// Registers and memory on a native program; a Kite program says it has none.
func TestMachineCommands(t *testing.T) {
	_, out := nativeScript(t, "break square\nrun\ninfo registers rip rsp\nx/8xb $rsp\nx/2dw $rsp\nset $rax = 0x1234\ninfo registers rax\nx/4xg\nset rax\np $rsp\nx/2xg $\nx/dw &counter\nb *$pc\nkill\n")
	expect(t, out,
		"(polydbg) info registers rip rsp", "\nrip            0x", " <square+", "\nrsp            0x",
		"(polydbg) x/8xb $rsp", "0x7", ":\t0x", "\t0x",
		"(polydbg) x/2dw $rsp", ":\t",
		"(polydbg) info registers rax", "rax            0x1234              4660\n",
		"(polydbg) x/4xg", ":\t0x", // no address: on after the last one shown, as gdb
		"(polydbg) set rax", "Usage: set $REGISTER = VALUE",
		"(polydbg) p $rsp", "$1 = ",
		"(polydbg) x/dw &counter", ":\t1\n", // an expression's address: counter is 1 at the first call
		"(polydbg) b *$pc", "Breakpoint 2 at 0x",
	)
	// x at a value from the history; a giant is 0x and 16 hex digits
	if !regexp.MustCompile(`\(polydbg\) x/2xg \$\n0x[0-9a-f]+:\t0x[0-9a-f]{16}\t0x[0-9a-f]{16}\n`).MatchString(out) {
		t.Errorf("x/2xg $:\n%s", out)
	}
	if out := script(t, "start\ninfo registers\nx/4xb 0\n"); !strings.Contains(out, "Not available on this target") {
		t.Fatalf("kite target:\n%s", out)
	}
}

// A signal stops the program in gdb's words, and continue delivers it, as gdb passes it.
func TestSignalsAsGDB(t *testing.T) {
	src, err := os.ReadFile("../../backend/gdbremote/testdata/native/signals.c")
	if err != nil {
		t.Fatal(err)
	}
	_, out := nativeScriptOf(t, "sig", string(src), "run\nc\nc\n")
	expect(t, out,
		"Program received signal SIGUSR1, User defined signal 1.\n",
		"handled 10\n",
		"Program received signal SIGSEGV, Segmentation fault.\nmain () at ", "sig.c:11\n",
		"\nProgram terminated with signal SIGSEGV, Segmentation fault.\nThe program no longer exists.\n",
	)
}

// start on a C program stops in main, as gdb's (a temporary breakpoint there), not at the
// loader's entry; the breakpoint is gone after.
func TestStartStopsInMainAsGDB(t *testing.T) {
	dir, out, oracle := loopAndGDB(t, "start\nnext\ninfo breakpoints\n")
	stops := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(Temporary breakpoint 1, .*|\d+\t.*|No breakpoints or watchpoints\.)$`)
	agreeLines(t, "start", 4, captured(stops, out, dir), captured(stops, oracle, dir), out, oracle)
}

// signalLine is what a signal and the program say: gdb's notice, the program's line.
var signalLine = regexp.MustCompile(`(?m)^(Program received signal .*|handled \d+|Signal +Stop.*|SIG\w+ +(?:Yes|No)\t.*)$`)

// handle changes what a signal does as gdb's does: nostop noprint lets SIGUSR1 through
// unseen, nostop alone tells it and goes on, nopass stops and then does not deliver it (the
// handler does not run). The same commands in gdb say the same; the setting stays for the
// next run.
func TestHandleSignalsAsGDB(t *testing.T) {
	src, err := os.ReadFile("../../backend/gdbremote/testdata/native/signals.c")
	if err != nil {
		t.Fatal(err)
	}
	lines := func(s string) []string {
		var ls []string
		for _, m := range signalLine.FindAllStringSubmatch(s, -1) {
			ls = append(ls, m[1])
		}
		return ls
	}
	for _, commands := range []string{
		"handle SIGUSR1 nostop noprint\nrun\ninfo signals SIGUSR1\n",
		"handle SIGUSR1 nostop\nrun\n",
		"handle SIGUSR1 nopass\nrun\ncontinue\n",
	} {
		dir, out := nativeScriptOf(t, "sig", string(src), commands)
		oracle := gdbBatch(t, filepath.Join(dir, "sig"), commands)
		ours := lines(out)
		if strings.HasPrefix(commands, "handle") { // gdb -batch shows handle's table only at a terminal
			ours = ours[2:]
		}
		agreeLines(t, strings.ReplaceAll(commands, "\n", "; "), 2, ours, lines(oracle), out, oracle)
	}
	_, out := nativeScriptOf(t, "sig", string(src), "handle SIGUSR1 nostop noprint\nrun\nrun\n")
	if n := strings.Count(out, "handled 10"); n != 2 || strings.Contains(out, "signal SIGUSR1") {
		t.Errorf("handle was not kept for the second run (%d runs handled it):\n%s", n, out)
	}
	expect(t, script(t, "handle SIGUSR1 nostop\n"), "Not available on this target")
}

package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A Kite program that runs for a very long time, so Ctrl-C has something to interrupt.
const longLoop = `fn work(n) {
    let s = 0
    for i in range(0, n) {
        s += i
    }
    return s
}

let total = 0
let point = {"x": 1, "y": 2}
for k in range(0, 1000000000) {
    total += work(3)
}
print("total", total)
`

// writeSource writes text to name in a new temporary directory.
func writeSource(t *testing.T, name, text string) (dir, file string) {
	t.Helper()
	dir = t.TempDir()
	file = filepath.Join(dir, name)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

// buildNative builds C source with gcc -g -O0 into dir/name, for a test under gdbserver.
func buildNative(t *testing.T, name, src string) (dir, exe string) {
	t.Helper()
	return buildNativeWith(t, name, src)
}

// buildNativeWith is buildNative with more flags for gcc (-pthread).
func buildNativeWith(t *testing.T, name, src string, flags ...string) (dir, exe string) {
	t.Helper()
	realparts.Need(t, "gcc", "gdbserver")
	dir, file := writeSource(t, name+".c", src)
	exe = filepath.Join(dir, name)
	if out, err := exec.Command("gcc", append(append([]string{"-g", "-O0"}, flags...), "-o", exe, file)...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return dir, exe
}

// At a terminal: Tab completes a command, a function and a variable; the up arrow and
// Ctrl-R recall commands; Ctrl-C pauses the running program and continue goes on; Ctrl-D
// quits; the history file is written, and a second run reads it back.
func TestDebugAtATerminal(t *testing.T) {
	bin := polydbgBinary(t)
	dir, file := writeSource(t, "loop.kite", longLoop)
	hist := filepath.Join(dir, "state", "history")
	env := []string{"POLYDBG_HISTORY=" + hist}
	p := startPane(t, env, bin, "debug", file)
	p.waitFor("(polydbg) ", 1)

	// A command: "brea" + Tab is "break "; a function: "wo" + Tab is "work".
	p.complete("brea", "(polydbg) break")
	p.complete("wo", "(polydbg) break work")
	p.do("Breakpoint 1 at pc", "Enter")
	p.enter("run", "Breakpoint 1, work (")

	// A variable: "print tot" + Tab is "print total" (a global seen from work's frame).
	p.complete("print tot", "(polydbg) print total")
	p.do("$1 = ", "Enter")
	// A local and a map key: "p point[" + Tab + "y" + Tab is `p point["y"]`.
	p.complete("p point[", `(polydbg) p point["`)
	p.complete("y", `(polydbg) p point["y"]`)
	p.do("$2 = 2", "Enter")

	// The up arrow recalls the last command; Ctrl-R finds an older one.
	p.keys("Up")
	p.waitPrompt(`(polydbg) p point["y"]`)
	p.do("$3 = 2", "Enter")
	p.keys("C-r")
	p.typeText("print t")
	p.waitFor("(reverse-i-search)`print t': print total", 1)
	p.do("$4 = ", "Enter")
	p.enter("p $2 + $", "$5 = 2") // $2 is 2, $ (= $4) is 0 // the value history in an expression

	// Ctrl-C while the program runs pauses it; continue goes on; Ctrl-C pauses it again.
	p.enter("delete", "Delete all breakpoints? (y or n) ") // gdb's question, at a terminal
	p.enter("y", "(y or n) y")
	p.continueAndPause("Paused in ")
	p.continueAndPause("Paused in ")
	p.typeText("half a comma")
	p.do("Quit", "C-c") // Ctrl-C at the prompt drops the line, as in gdb
	s := p.enter("print total", "$6 = ")
	if strings.Contains(s, "[exit") {
		t.Fatalf("Ctrl-C ended polydbg:\n%s", s)
	}

	// Ctrl-D quits; the history file has what was typed.
	p.do("Quit anyway? (y or n)", "C-d") // the program is alive: gdb asks first
	s = p.do("[exit 0]", "y", "Enter")
	if !strings.Contains(s, "(polydbg) quit") {
		t.Errorf("Ctrl-D did not answer quit:\n%s", s)
	}
	h := readFile(t, hist)
	for _, want := range []string{"break work\n", "run\n", "print total\n", `p point["y"]` + "\n", "continue\n"} {
		if !strings.Contains(h, want) {
			t.Errorf("history file lacks %q:\n%s", want, h)
		}
	}

	// A second run reads it back: Ctrl-R finds the breakpoint command of the first run.
	p2 := startPane(t, env, bin, "debug", file)
	p2.waitFor("(polydbg) ", 1)
	p2.keys("C-r")
	p2.typeText("break w")
	p2.waitFor("(reverse-i-search)`break w': break work", 1)
	p2.do("Breakpoint 1 at pc", "Enter")
	p2.keys("Up")
	p2.waitPrompt("(polydbg) break work")
	p2.keys("C-u")
	p2.do("[exit 0]", "C-d")

	// --no-history neither reads nor writes it.
	before := readFile(t, hist)
	p3 := startPane(t, env, bin, "debug", "--no-history", file)
	p3.waitFor("(polydbg) ", 1)
	p3.keys("Up")
	p3.enter("frobnicate", `Undefined command: "frobnicate"`)
	p3.do("[exit 0]", "C-d")
	if after := readFile(t, hist); after != before {
		t.Errorf("--no-history changed the history file:\n%s", after)
	}
}

const cPoint = `#include <stdio.h>
struct point { int x; int y; };
int counter;
int square(int x) { return x * x; }
int main(void) {
    struct point pt = {3, 4};
    int sum = 0;
    for (int i = 0; i < 5; i++) {
        counter++;
        sum += square(i) + pt.x;
    }
    printf("sum %d\n", sum);
    return 0;
}
`

// On a native program under gdbserver: Tab completes a C function, a $register and a
// struct field; the context display shows source in colour, the stack, the variables and
// the general registers; NO_COLOR turns the colour off.
func TestDebugNativeAtATerminal(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "pt", cPoint)
	p := startPane(t, []string{"POLYDBG_HISTORY=" + filepath.Join(dir, "history")}, bin, "debug", "--native", exe)
	p.waitFor("(polydbg) ", 1)
	p.complete("break squ", "(polydbg) break square")
	p.do("Breakpoint 1 at 0x", "Enter")
	p.complete("break pt.", "(polydbg) break pt.c:") // a file name, for FILE:LINE
	p.typeText("12")
	p.do("Breakpoint 2 at 0x", "Enter")
	p.enter("run", "Breakpoint 1, square (x=")
	p.complete("p $ri", "(polydbg) p $rip")
	p.do("$1 = ", "Enter")
	p.enter("up", "#1  0x")
	p.typeText("p pt.")
	p.keys("Tab", "Tab")
	p.waitFor("\nx y \n", 1) // both fields listed
	p.typeText("y")
	p.do("$2 = 4", "Enter")

	p.enter("set context on", "(polydbg) set context on")
	s := p.enter("continue", "eflags 0x") // the last general register: the display is complete
	for _, want := range []string{"── source ──", "*>   4  int square", "── stack ──", "#1   main at pt.c:10", "── variables ──", "x = 1", "rip    0x", "eflags 0x"} {
		if !strings.Contains(s, want) {
			t.Errorf("context display lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "xmm0") {
		t.Errorf("context display shows vector registers:\n%s", s)
	}
	colour := p.tmux("capture-pane", "-p", "-e", "-t", "0")
	if !strings.Contains(colour, "\x1b[35mint") {
		t.Errorf("no syntax colour on the terminal:\n%q", colour)
	}
	p.quitKilling()

	plain := startPane(t, []string{"NO_COLOR=1"}, bin, "debug", "--no-history", "--context", "--native", exe)
	plain.waitFor("(polydbg) ", 1)
	plain.enter("break square", "Breakpoint 1 at")
	plain.enter("run", "── registers ──")
	if s := plain.tmux("capture-pane", "-p", "-e", "-t", "0"); strings.Contains(s, "\x1b[35m") {
		t.Errorf("colour with NO_COLOR:\n%q", s)
	}
	plain.quitKilling()
}

// A stub that is slow to answer: after a second, polydbg says what it is waiting for.
func TestDebugSaysWhatItWaitsFor(t *testing.T) {
	bin := polydbgBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		time.Sleep(1500 * time.Millisecond) // silent, then gone
		c.Close()
	}()
	cmd := exec.Command(bin, "debug", "--gdb", l.Addr().String(), "--elf", bin)
	cmd.Stdin = strings.NewReader("quit\n")
	out, _ := cmd.CombinedOutput()
	if want := "polydbg: waiting for the GDB stub at " + l.Addr().String() + " to answer..."; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if strings.Contains(string(out), "ready after") {
		t.Errorf("a failed connection called ready:\n%s", out)
	}
}

// Ctrl-C pauses a native program in an endless loop (gdbserver, in its own process group,
// does not see the SIGINT), and it goes on after continue.
func TestDebugNativeCtrlC(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildNative(t, "spin", "volatile long counter;\nint main(void) {\n    for (;;)\n        counter++;\n}\n")
	p := startPane(t, nil, bin, "debug", "--no-history", "--native", exe)
	p.waitFor("(polydbg) ", 1)
	p.enter("break main", "Breakpoint 1 at")
	// A command list typed at the terminal: gdb's words, then its ">" prompt until end.
	p.enter("commands", `End with a line saying just "end".`)
	p.enter("print counter", ">print counter")
	p.enter("end", "(polydbg) ")
	p.enter("run", "$1 = 0")
	// A while loop typed at the terminal runs until Ctrl-C ends it.
	p.enter("while 1", ">")
	p.enter("set $n = 1", ">set $n = 1")
	p.typeText("end")
	p.keys("Enter")
	p.do("Quit", "C-c")
	p.enter("print $n", "$2 = 1")
	p.enter("delete", "Delete all breakpoints? (y or n) ")
	p.enter("y", "(y or n) y")
	p.continueAndPause("Program received signal SIGINT, Interrupt.")
	p.enter("print counter > 0", "$3 = 1")
	p.continueAndPause("Program received signal SIGINT, Interrupt.")
	p.enter("print counter > 0", "$4 = 1")
	// kill asks first: n keeps the program, which goes on as it was.
	p.enter("kill", "Kill the program being debugged? (y or n)")
	p.do("Not confirmed.", "n", "Enter")
	p.continueAndPause("Program received signal SIGINT, Interrupt.")
	p.enter("print counter > 0", "$5 = 1")
	s := p.do("Quit anyway? (y or n)", "C-d")
	if !strings.Contains(s, "A debugging session is active.\n\n        Inferior 1 [process ") {
		t.Errorf("quit does not name the process:\n%s", s)
	}
	p.do("[exit 0]", "y", "Enter")
}

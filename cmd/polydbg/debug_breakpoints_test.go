package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// downProg counts down in a recursion and calls a void function twice, for breakpoints
// that stop more than once.
const downProg = `#include <stdio.h>
static int total;
int down(int n) {
	total += n;
	if (n == 0)
		return 0;
	return 1 + down(n - 1);
}
void tick(void) { total *= 2; }
int main(void) {
	int f = down(4);

	tick();
	tick();
	printf("%d %d\n", f, total);
	return 0;
}
`

// gdb's breakpoint dispositions and table, from a script: a line with no code taken
// without a word, enable once (disposition "dis", disabled after its stop), enable count,
// enable delete (a tbreak made of it), break without a location (the selected frame's
// pc, listed without its function), info breakpoints N, and a condition removed
// without a word, each against gdb.
func TestBreakpointDispositionsAsGDB(t *testing.T) {
	dir, ours, theirs := scriptAndGDB(t, "disp", downProg, `break 12
break down
break tick
info breakpoints 2
run
condition 2 n == 2
condition 2
enable once 3
info breakpoints
continue
info breakpoints 3
enable count 2 2
continue
continue
info breakpoints
break
info breakpoints
enable delete 3
info breakpoints
tbreak 15
info breakpoints 2-5
disable
info breakpoints
enable breakpoints
delete 2-3
info breakpoints 1 4 5
continue
continue
info breakpoints
info breakpoints 9
info watchpoints 1
`)
	compareLines(t, "breakpoint dispositions", dir, ours, theirs)
}

// Typed (or piped), gdb says which breakpoints are already where a new one is set
// ("Note: breakpoints 1 (disabled) and 2 also set at pc 0x1144."), and that a condition
// was removed; two breakpoints at one place are both counted as hit, and a bad use of
// enable's words is refused, each as gdb's.
func TestBreakpointNotesAsGDB(t *testing.T) {
	pipedAsGDB(t, "breakpoint notes", "notes", downProg, "break\nbreak down\nbreak down\ndisable 1\nbreak 4\nrun\ncondition 1\nbreak\nenable once\n"+
		"enable count\nenable count 0 1\ninfo breakpoints\nenable delete 2 3\ninfo breakpoints 2-3\n"+
		"continue\ninfo breakpoints\nkill\n")
}

// pipedAsGDB builds the C program src as name, pipes the lines of input into polydbg
// debug and into gdb on it with args, and compares their answers line by line (what says
// what they are).
func pipedAsGDB(t *testing.T, what, name, src, input string, args ...string) {
	t.Helper()
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, name, src)
	ours, theirs := pipedAndGDB(t, input, exe, args...)
	compareLines(t, what, dir, ours, theirs)
}

// pipedAndGDB runs the lines of input piped into polydbg debug and into gdb on exe with
// args: both outputs with the prompts, gdb's first line and the last line's end taken out.
func pipedAndGDB(t *testing.T, input, exe string, args ...string) (ours, theirs []byte) {
	t.Helper()
	cmd := exec.Command(polydbgBinary(t), append(append(append([]string{"debug"}, noLibcDebugInfo...), exe), args...)...)
	cmd.Stdin = strings.NewReader(input)
	ours, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	cmd = exec.Command("gdb", append([]string{"-nx", "-q", "-iex", "set debug-file-directory /nonexistent", "-ex", "set width 0",
		"--args", exe}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	theirs, err = cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	unprompt := func(out string) []byte { // polydbg ends the last prompt's line, gdb does not
		return []byte(strings.TrimRight(strings.NewReplacer("(polydbg) ", "", "(gdb) ", "").Replace(out), "\n"))
	}
	_, theirs0, _ := strings.Cut(string(theirs), "\n") // Reading symbols from ...
	return unprompt(string(ours)), unprompt(theirs0)
}

// syscallProg makes system calls from main.
const syscallProg = `#include <unistd.h>
int main(void) {
	write(1, "one\n", 4);
	getpid();
	write(1, "two\n", 4);
	return 0;
}
`

// catch syscall as gdb's: by name and by number, several at once, any; an unknown name;
// the stops at a call's entry and return, in the library that makes it; the table with
// its hits; delete, disable and enable; a catchpoint kept for the next run (a program's own calls: the dynamic
// loader's before the program's entry are not caught, see Limits). Against gdb.
func TestCatchSyscallAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("catch syscall write", "catch syscall 39 close", "catch syscall nosuch", "info breakpoints",
		"delete 2", "break main", "run", "catch syscall getpid", "info breakpoints", "continue", "continue", "continue",
		"continue", "info breakpoints", "delete 1", "continue", "continue", "catch syscall", "info breakpoints 5",
		"delete 5", "run", "disable 4", "info breakpoints", "continue", "enable", "run", "continue", "continue",
		"info breakpoints 4", "kill")
	dir, exe := buildNative(t, "catch", syscallProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "catch syscall", dir, ours, theirs)
}

// save breakpoints as gdb's: each breakpoint, tbreak, dprintf and watchpoint as the command
// that sets it again, with its condition, ignore count, command list and disabled state
// ($bpnum, the last breakpoint set); the file sourced again gives the same table; with
// nothing to save, gdb's warning.
func TestSaveBreakpointsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "save", downProg)
	saved := func(n int) string { return filepath.Join(dir, fmt.Sprintf("saved%d.gdb", n)) }
	script := filepath.Join(dir, "save.gdb")
	text := fmt.Sprintf(`break down if n == 2
tbreak save.c:7
break tick
disable 3
commands 1
silent
print n
end
ignore 1 2
dprintf save.c:13,"tick %%d\n", total
save breakpoints %[1]s
shell cat %[1]s
run
watch total
rwatch total
save breakpoints %[2]s
shell cat %[2]s
delete
save breakpoints %[3]s
source %[2]s
info breakpoints
print $bpnum
`, saved(1), saved(2), saved(3))
	if err := os.WriteFile(script, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, []string{"-x", script})
	compareLines(t, "save breakpoints", dir, ours, theirs)
}

// watch -l (-location) as gdb's: the place an expression names watched, told as
// "-location EXPR", a local's place watched after its frame has gone.
func TestWatchLocationAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break down", "run", "watch -l total", "watch -location n", "info watchpoints", "continue",
		"continue", "rwatch -l total", "info watchpoints")
	dir, exe := buildNative(t, "watchl", downProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "watch -location", dir, ours, theirs)
}

// A breakpoint on a shared library's function (break write) once the program has loaded
// it, hit and shown as gdb shows a frame without debug information; a function nowhere in
// gdb's words, the question of a pending breakpoint answered as gdb answers it in a script.
func TestLibraryFunctionBreakpointAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break nosuch", "break main", "run", "break write", "break nosuch", "info breakpoints",
		"continue", "bt", "finish", "continue", "info breakpoints")
	dir, exe := buildNative(t, "libbreak", syscallProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "library function breakpoint", dir, ours, theirs)
}

// pltProg calls library functions through its PLT, exit also taken by address (its entry
// in .plt.got).
const pltProg = `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
	void (*ex)(int) = exit;
	puts("one");
	write(1, "two\n", 4);
	fflush(stdout);
	if (getpid() == 0) ex(1);
	exit(0);
}
`

// Breakpoints on library functions set before the program runs, as gdb sets them: on the
// program's PLT entries (Breakpoint 1 at 0x1030, <puts@plt>), moved to the library's
// functions once the program has loaded them, hit there (also when libc calls write
// itself), and again on the next run.
func TestLibraryFunctionBeforeRunAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break puts", "tbreak write", "break exit", "info breakpoints", "run", "bt",
		"info breakpoints", "continue", "bt", "continue", "continue", "info breakpoints", "run", "info breakpoints",
		"continue", "kill")
	dir, exe := buildNative(t, "pltbreak", pltProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "library function before run", dir, ours, theirs)
}

// sigForkProg raises a signal it handles, then forks a child that exits at once.
const sigForkProg = `#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
volatile int got;
void h(int s) { got = s; }
int main(void) {
	signal(SIGUSR1, h);
	raise(SIGUSR1);
	printf("got %d\n", got);
	pid_t p = fork();
	if (p == 0) { _exit(3); }
	int st; waitpid(p, &st, 0);
	printf("child %d\n", WEXITSTATUS(st));
	return 0;
}
`

// catch signal and catch fork as gdb's: the catchpoints' words and rows (standard, any,
// several signals; an unknown one), the stops they make ("Catchpoint 3 (signal SIGUSR1),",
// "Catchpoint 1 (forked process N),"), the child let go as gdb says it, the hits and the
// child in info breakpoints, save breakpoints; handle in a script says nothing; $_thread,
// $_inferior. Against gdb.
func TestCatchSignalAndForkAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("catch signal", "catch signal all", "catch signal SIGUSR1 SIGUSR2", "catch signal NOSUCH",
		"catch fork", "catch signal SIGUSR1", "info breakpoints", "delete 1 2 3", "handle SIGUSR2 nostop", "p $_thread",
		"run", "bt 1", "p $_thread", "p $_inferior", "continue", "info breakpoints", "continue", "info breakpoints",
		"save breakpoints "+filepath.Join(t.TempDir(), "bps"), "run", "disable 4", "continue", "info breakpoints 4")
	dir, exe := buildNative(t, "catchsig", sigForkProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "catch signal and fork", dir, ours, theirs)
}

// vforkProg vforks twice: in system(), whose posix_spawn is a vfork, and itself, with a
// child that calls a function with a breakpoint before it execs.
const vforkProg = `#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
int helper(int x) { return x * 2; }
int done(int st, int r) { return st + r; }
int main(void) {
	int r = system("exit 3");
	pid_t p = vfork();
	if (p == 0) { if (helper(1) == 2) execl("/bin/true", "true", (char *)0); _exit(1); }
	int st = -1;
	waitpid(p, &st, 0);
	return done(st, helper(3) + r);
}
`

// A vfork's child shares the program's memory, breakpoints included: as gdb, polydbg takes
// them out while the child runs and puts them back when it has exec'd, so the child's call
// of helper neither stops nor kills it (before, it died of SIGTRAP: st was 5), and the
// parent still stops there. catch vfork as gdb's: its words, its stops (system()'s too,
// "Catchpoint 1 (vforked process N)"), the child held until the program goes on
// ("[Detaching after vfork ...]" then), its row in info breakpoints, a kill with a child
// held, and next from vfork, which has no line information ("Single stepping until exit
// from function vfork,"). Against gdb.
func TestVforkAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("catch vfork", "break helper", "break done", "info breakpoints", "run", "info breakpoints",
		"kill", "run", "continue", "next", "next", "next", "continue", "bt", "continue", "p st", "p r",
		"info breakpoints", "delete 1", "run", "continue", "continue", "p $_exitcode")
	dir, exe := buildNative(t, "vforks", vforkProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "vfork", dir, ours, theirs)
	if !strings.Contains(string(ours), "$1 = 0") {
		t.Errorf("the vfork child did not end normally:\n%s", ours)
	}
}

// A program that execs is followed as gdb follows it: "process N is executing new
// program: ...", the breakpoints placed again in the new program and reached there (before,
// the run went on in a program polydbg did not know: a stray SIGINT stop in the dynamic
// linker and no breakpoint); catch exec stops there ("Catchpoint 2 (exec'd ...)", its row
// with the program); a step over the exec lets the new program run, as gdb; a breakpoint
// the new program has no place for is disabled and pending, with gdb's "Error in
// re-setting breakpoint 1: Function "helper" not defined."; a run after it starts the
// program the exec ran (/bin/true), the breakpoint kept pending. Against gdb.
func TestExecAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "execs", realparts.ExecProg)
	bin := polydbgBinary(t)
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break helper", "catch exec",
		"info breakpoints", "run", "continue", "info breakpoints", "next", "continue", "bt", "finish", "continue",
		"info breakpoints", "delete 2", "run", "continue", "p x", "continue", "break 11", "run", "next", "info breakpoints"))
	compareLines(t, "exec", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("set args /bin/true", "break helper",
		"break main", "run", "continue", "continue", "continue", "info breakpoints", "run", "info breakpoints", "run"))
	compareLines(t, "exec of another program", dir, ours, theirs)
}

// step and next where no line information is: from a function the symbol table names,
// gdb's "Single stepping until exit from function ..., which has no line number
// information." and a run to its return; from code no symbol names (the dynamic linker's
// first instruction, a stripped program's), gdb's "Cannot find bounds of current
// function" and no step. Against gdb.
func TestStepWithoutLinesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "nolines", vforkProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo,
		exCommands("starti", "next", "step", "stepi", "next", "catch vfork", "continue", "next", "continue", "step",
			"info registers rip", "p 1"))
	compareLines(t, "no lines", dir, ours, theirs)
	stripped := filepath.Join(dir, "stripped")
	if out, err := exec.Command("gcc", "-O0", "-static", "-s", "-o", stripped, filepath.Join(dir, "nolines.c")).CombinedOutput(); err != nil {
		t.Skipf("no static libc: %v\n%s", err, out)
	}
	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), stripped, noLibcDebugInfo,
		exCommands("starti", "next", "stepi", "step", "bt", "info registers rip"))
	compareLines(t, "stripped", dir, ours, theirs)
}

// Watchpoints with a condition (watch EXPR if COND: the program goes on past the changes
// where it is false, no hit counted), condition N on a watchpoint, and gdb's words for a
// name it does not know; disable, enable and delete display, as gdb's.
func TestWatchConditionsAndDisplaysAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break add", "run", "watch counter if counter > 2", "awatch nosuch", "info watchpoints",
		"display counter", "display a", "disable display 1", "info display", "continue", "continue", "info watchpoints",
		"condition 2", "info watchpoints", "condition 2 counter == 3", "enable display", "continue", "delete display 2",
		"info display", "disable display 9", "undisplay 7", "delete display", "info display")
	dir, exe := buildNative(t, "watchcond", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "watch conditions and displays", dir, ours, theirs)
}

// starti as gdb's: the program stopped at its very first instruction, in the dynamic
// linker ("Program stopped.", "?? () from /lib64/ld-linux-x86-64.so.2"), stepped there; a
// continue from there does what a start does at the entry point (a breakpoint on a library
// function moves into the library, main's is hit); kill, and a run after it.
func TestStartiAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break main", "break puts", "starti", "bt 1", "stepi", "info breakpoints", "continue",
		"info breakpoints", "continue", "bt 1", "kill", "starti", "continue", "info breakpoints")
	dir, exe := buildNative(t, "starti", pltProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	compareLines(t, "starti", dir, ours, theirs)
}

// At the first instruction the dynamic linker is the one library loaded, as gdb lists it
// (its list in memory is not made yet): info sharedlibrary shows it where the kernel put
// it, with its code's addresses.
func TestStartiLibraries(t *testing.T) {
	_, exe := buildNative(t, "startilibs", pltProg)
	out, err := exec.Command(polydbgBinary(t), "debug", "-batch", "-ex", "starti", "-ex", "info sharedlibrary", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^0x0000[0-9a-f]{12}  0x0000[0-9a-f]{12}  Yes.*/ld-linux[^ ]*\.so\.[0-9]$`).Match(out) {
		t.Errorf("no dynamic linker listed:\n%s", out)
	}
}

// enable once, count and delete replace a breakpoint's disposition as gdb's (a tbreak
// enabled once is kept and disabled, not deleted); enable count's remaining stops listed as
// gdb lists them; breakpoint ranges and the breakpoints keyword of disable and delete.
func TestEnableDispositionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("break add", "break main", "tbreak 9", "break 10", "disable 1-2 4", "info breakpoints 2-3",
		"delete 1-2", "info breakpoints", "disable breakpoints 3", "enable once 3-4", "info breakpoints",
		"delete breakpoints", "tbreak add", "enable once 5", "run", "info breakpoints", "enable count 3 5", "continue",
		"info breakpoints", "continue", "info breakpoints", "tbreak main", "enable count 2 6", "enable delete 5",
		"info breakpoints")
	dir, exe := buildNative(t, "dispositions", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "enable dispositions", dir, ours, theirs)
}

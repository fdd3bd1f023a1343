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

// crashProg has a second thread waiting in libc when its main thread writes through a
// null pointer: its core dump has two threads, a struct and a static to read.
const crashProg = `#include <stdio.h>
#include <pthread.h>
#include <unistd.h>
struct point { int x, y; };
static int total = 7;
void *idle(void *a) { for (;;) pause(); return a; }
void crash(struct point *p, int *q) {
	int local = p->x + total;
	*q = local;
}
int main(int argc, char **argv) {
	pthread_t t;
	pthread_create(&t, 0, idle, 0);
	usleep(10000);
	struct point pt = {3, 4};
	crash(&pt, argc > 5 ? &total : 0);
	return 0;
}
`

// gdbWarning is gdb's own complaint about some kernels' XSAVE notes, and the empty line
// it puts before it.
var gdbWarning = regexp.MustCompile("\n?warning: Section `.reg-xstate/[0-9]+' in core file too small.\n")

// coreCommands read a dump as a user does: threads, the stack, values, an outer frame's
// registers, another thread's stack, and what cannot be done to a program that has ended.
var coreCommands = []string{"-ex", "info threads", "-ex", "bt", "-ex", "info inferiors", "-ex", "p local",
	"-ex", "p *p", "-ex", "p total", "-ex", "up", "-ex", "info locals", "-ex", "p argv[0]", "-ex", "x/2dw p",
	"-ex", "info registers rip rsp rbp", "-ex", "info frame", "-ex", "thread 2", "-ex", "bt", "-ex", "continue",
	"-ex", "next", "-ex", "kill"}

// polydbg debug PROG CORE (gdb's form) and --core read a core dump: one written by gdb's
// gcore and, where the kernel writes them here, one the kernel wrote; each line against
// gdb's for the same dump. gdb is told not to read libc's separate debug information,
// which polydbg does not read; info sharedlibrary is compared without that (both read
// whether it exists).
func TestCoreDumpAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc")
	dir, exe := buildNative(t, "crash", crashProg)
	gcore := filepath.Join(dir, "gcore.core")
	if out, err := exec.Command("gdb", "-nx", "-batch", "-ex", "run", "-ex", "gcore "+gcore, exe).CombinedOutput(); err != nil {
		t.Fatalf("gdb gcore: %v\n%s", err, out)
	}
	cores := map[string]string{"gcore": gcore}
	if k := kernelCore(t, dir, exe); k != "" {
		cores["kernel"] = k
	}
	bin := polydbgBinary(t)
	for name, core := range cores {
		ours, ourErr := exec.Command(bin, append(append(append([]string{"debug", "-batch"}, noLibcDebugInfo...), coreCommands...), exe, core)...).CombinedOutput()
		theirs, theirErr := exec.Command("gdb", append(append([]string{"-nx", "-batch", "-iex", "set debug-file-directory /nonexistent"},
			coreCommands...), exe, core)...).CombinedOutput()
		if fmt.Sprint(ourErr) != fmt.Sprint(theirErr) { // both fail, as the last command (kill) does
			t.Errorf("%s core: polydbg ended with %v, gdb with %v", name, ourErr, theirErr)
		}
		theirs = gdbWarning.ReplaceAll(theirs, nil)
		for _, want := range []string{"Program terminated with signal SIGSEGV, Segmentation fault.\n#0  0x", " in crash (p=0x",
			"$1 = 10\n$2 = {x = 3, y = 4}\n$3 = 7\n", "The program is not being run.\n", "You can't do that without a process to debug."} {
			if !strings.Contains(string(ours), want) {
				t.Errorf("%s core: polydbg did not say %q:\n%s", name, want, ours)
			}
		}
		compareLines(t, name+" core", dir, ours, theirs)
		// --core with the program found from the dump itself, and info sharedlibrary.
		ours, err := exec.Command(bin, "debug", "-batch", "--core", core, "-ex", "info sharedlibrary").CombinedOutput()
		if err != nil {
			t.Fatalf("polydbg --core: %v\n%s", err, ours)
		}
		theirs, err = exec.Command("gdb", "-nx", "-batch", "-ex", "info sharedlibrary", exe, core).CombinedOutput()
		if err != nil {
			t.Fatalf("gdb: %v\n%s", err, theirs)
		}
		compareLines(t, name+" core's libraries", dir, ours, gdbWarning.ReplaceAll(theirs, nil))
	}
}

// kernelCore makes the kernel dump exe's core in dir, when this machine's core_pattern
// writes one there; "" when it does not (a pipe to a crash collector).
func kernelCore(t *testing.T, dir, exe string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", "ulimit -c unlimited; exec "+exe)
	cmd.Dir = dir
	cmd.Run() // it crashes
	matches, _ := filepath.Glob(filepath.Join(dir, "core*"))
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() && m != filepath.Join(dir, "gcore.core") {
			return m
		}
	}
	t.Logf("no kernel core dump in %s (core_pattern sends it elsewhere): the gcore one only", dir)
	return ""
}

// gcore writes the stopped program as a core dump, as gdb's does: gdb reads it (its
// threads, stack and values) as polydbg does, line for line.
func TestGcoreAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc", "gdbserver")
	dir, exe := buildNative(t, "crash", crashProg)
	core := filepath.Join(dir, "polydbg.core")
	out, err := exec.Command(polydbgBinary(t), "debug", "-batch", "-ex", "break crash", "-ex", "run", "-ex", "gcore "+core, exe).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Saved corefile "+core+"\n") {
		t.Fatalf("gcore: %v\n%s", err, out)
	}
	cmds := []string{"-ex", "info threads", "-ex", "bt", "-ex", "p *p", "-ex", "p total", "-ex", "up", "-ex", "info locals",
		"-ex", "info registers rip rsp", "-ex", "thread 2", "-ex", "bt", "-ex", "info sharedlibrary"}
	ours, err := exec.Command(polydbgBinary(t), append(append(append([]string{"debug", "-batch"}, noLibcDebugInfo...), cmds...), exe, core)...).CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	theirs, err := exec.Command("gdb", append(append([]string{"-nx", "-batch", "-iex", "set debug-file-directory /nonexistent"}, cmds...), exe, core)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	// gdb says "(*)" of libraries whose debug information it was told not to read.
	noDebug := strings.NewReplacer("Yes (*)", "Yes    ", "(*): Shared library is missing debugging information.\n", "")
	compareLines(t, "gcore read by gdb", dir, []byte(noDebug.Replace(string(ours))), []byte(noDebug.Replace(string(theirs))))
}

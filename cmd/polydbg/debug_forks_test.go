package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// vforkChildProg vforks; the child, sharing the parent's memory, calls work and exits.
const vforkChildProg = `#include <unistd.h>
#include <sys/wait.h>

static int work(int n) {
	return n * 2;
}

int main(void) {
	int x = 5;
	pid_t pid = vfork();
	if (pid == 0) {
		x = work(x);
		_exit(x);
	}
	int st;
	waitpid(pid, &st, 0);
	return 0;
}
`

// greetProg is the program the children of the spawning programs run.
const greetProg = `#include <stdio.h>
int greet(int n) { return n + 1; }
int main(void) { printf("hello %d\n", greet(41)); return 7; }
`

// spawnProg runs PROG with posix_spawn (a vfork that execs); threadForkProg forks from a
// thread and execs PROG in the child.
const (
	spawnProg = `#include <spawn.h>
#include <sys/wait.h>
extern char **environ;

int main(void) {
	pid_t pid;
	char *argv[] = {"greet", 0};
	int rc = posix_spawn(&pid, "%s", 0, 0, argv, environ);
	int st;
	waitpid(pid, &st, 0);
	return rc;
}
`
	threadForkProg = `#include <unistd.h>
#include <pthread.h>
#include <sys/wait.h>

static void *worker(void *arg) {
	pid_t pid = fork();
	if (pid == 0) {
		execl("%s", "greet", (char *)0);
		_exit(127);
	}
	waitpid(pid, 0, 0);
	return arg;
}

int main(void) {
	pthread_t t;
	pthread_create(&t, 0, worker, 0);
	pthread_join(t, 0);
	return 0;
}
`
)

// With set follow-fork-mode child, the child of a fork is debugged and the parent let go,
// as gdb does it (detach-on-fork): gdb's words for it ("[Attaching after Thread ... fork to
// child process N]", "[New inferior 2 (process N)]", "[Detaching after fork from parent
// process N]"), the child's breakpoints (copies of the parent's) reached in it, its thread
// 2.1 in the stop line, info threads, thread and $_inferior, info inferiors with the parent
// left as <null>, the end of inferior 2; a next over fork() goes on in the child; a caught
// fork is followed when the program goes on; a vfork's child is followed with the parent
// held until the child exits ("[Detaching vfork parent process N after child exit]") or
// execs (posix_spawn: "... after child exec"); a thread's fork, then an exec in the child,
// stops in the new program. Against gdb.
func TestFollowForkChildAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	_, greet := buildNative(t, "greet", greetProg)
	dir, exe := buildNative(t, "forker", realparts.ForkProg)
	_, vexe := buildNative(t, "vforker", vforkChildProg)
	_, spawn := buildNative(t, "spawner", fmt.Sprintf(spawnProg, greet))
	_, tfork := buildNativeWith(t, "tforker", fmt.Sprintf(threadForkProg, greet), "-pthread")
	child := "set follow-fork-mode child"
	for _, c := range []struct {
		name, exe string
		cmds      []string
	}{
		{"settings", exe, []string{"show follow-fork-mode", "set follow-fork-mode ch", "show follow-fork-mode",
			"set follow-fork-mode parent", "show follow-fork-mode", "set follow-fork-mode foo", "set follow-fork-mode",
			"show follow-fork-mode", "show detach-on-fork", "set detach-on-fork on"}},
		{"fork", exe, []string{child, "break work", "run", "bt", "info inferiors", "up", "p x", "p $_inferior",
			"p $_thread", "info threads", "thread", "thread 1", "thread 2.1", "continue", "info inferiors"}},
		{"next over fork", exe, []string{child, "break 12", "run", "next", "p pid", "next", "step", "bt", "finish",
			"info threads", "kill"}},
		{"catch fork", exe, []string{child, "catch fork", "run", "bt 1", "info inferiors", "continue"}},
		{"vfork", vexe, []string{child, "break work", "run", "bt", "info inferiors", "next", "continue"}},
		{"spawn", spawn, []string{child, "catch exec", "run", "break greet", "continue", "bt", "info threads",
			"continue"}},
		{"thread's fork and exec", tfork, []string{child, "catch exec", "run", "info inferiors", "break greet",
			"continue", "bt", "info threads", "continue"}},
	} {
		ours, theirs := batchAndGDBWith(t, bin, c.exe, noLibcDebugInfo, exCommands(c.cmds...))
		compareLines(t, c.name, dir, ours, theirs)
	}
	// Both processes of a fork under the debugger at once is gdb's detach-on-fork off, which
	// polydbg refuses, saying so.
	out, _ := exec.Command(bin, "debug", "-batch", "-ex", "set detach-on-fork off", "-ex", "show detach-on-fork", exe).CombinedOutput()
	if !strings.Contains(string(out), "detach-on-fork stays on") || !strings.Contains(string(out), "is on.") {
		t.Errorf("set detach-on-fork off:\n%s", out)
	}
}

package main

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A stripped program and library whose debug information is in separate files, as gdb
// finds them: the program's by its .gnu_debuglink (in .debug/ beside it), the library's by
// its build id under debug-file-directory. Its functions, lines, frames with arguments,
// locals, a static function's call, finish's value and info sharedlibrary, as gdb says
// them; with the folder elsewhere the library is read by its symbols alone, as in gdb.
func TestSeparateDebugFilesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.Need(t, "gdbserver")
	dir, exe, debugDir := realparts.BuildStripped(t)
	cmds := exCommands("show debug-file-directory", "break add", "break scale", "info line twice", "run", "bt", "info locals",
		"finish", "continue", "bt", "info frame", "p by", "p twice(5)", "info sharedlibrary", "list scale", "info symbol scale",
		"info scope scale", "ptype scale", "continue")
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, []string{"-iex", "set debug-file-directory " + debugDir}, cmds)
	if !strings.Contains(string(ours), "Breakpoint 2, scale (v=5, by=4) at lib.c:3\n") {
		t.Errorf("the library's debug file was not read:\n%s", ours)
	}
	compareLines(t, "separate debug files", dir, ours, theirs)

	ours, theirs = batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, cmds)
	if !strings.Contains(string(ours), "Breakpoint 1, add (a=2, b=3) at prog.c:5\n") ||
		!regexp.MustCompile(`Yes \(\*\) +\S+libsc\.so`).Match(ours) {
		t.Errorf("the program's debug link, or the library without its debug file:\n%s", ours)
	}
	compareLines(t, "no debug folder", dir, ours, theirs)
}

// The program of the libc tests: qsort calling back, puts and printf.
const libcCallsProg = `#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int cmp(const void *a, const void *b) {
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}
int main(void) {
	int v[4] = {3, 1, 2, 0};
	qsort(v, 4, sizeof v[0], cmp);
	char buf[16];
	strcpy(buf, "hi");
	puts(buf);
	printf("%d %d\n", v[0], v[3]);
	return 0;
}
`

// With Debian's libc6-dbg installed, libc's frames are read from its debug file as gdb
// reads them: their functions by their assembler names (__GI___qsort_r), arguments with
// @entry values and <optimized out>, the inlined copies of msort_with_tmp as frames of
// their own (the one just entered hidden after finish), source files named as the
// compiler was given them (./stdlib/msort.c), a step into printf, a breakpoint on puts at
// its source line, libc's FILE type, errno, a thread-local variable, and environ, which libc
// declares extern and defines under another name (__environ).
func TestLibcDebugInfoAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.NeedLibcDebugFile(t)
	dir, exe := buildNative(t, "calls", libcCallsProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, nil, exCommands(
		"break cmp", "run", "bt", "up", "info frame", "finish", "bt 3", "delete",
		"break puts", "continue", "bt", "info args", "finish", "step", "bt", "info args", "whatis format",
		"ptype FILE", "p stdout->_fileno", "p errno", "info address errno", "whatis environ", "p *environ != 0",
		"info address environ", "info functions wbackup_area", "finish", "next",
		"info sharedlibrary", "continue"))
	for _, want := range []string{"__GI___qsort_r (", "at ./stdlib/msort.c:", "__printf (format=", "at ./libio/ioputs.c:35\n"} {
		if !strings.Contains(string(ours), want) {
			t.Errorf("libc's debug information was not read (no %q):\n%s", want, ours)
		}
	}
	compareLines(t, "libc's debug file", dir, ours, theirs)
}

const threadLocalProg = `#include <pthread.h>
#include <stdio.h>
static __thread int counter = 7;
__thread long slots[3] = {1, 2, 3};
static void *work(void *arg) {
	counter += (int)(long)arg;
	slots[1] = counter;
	return NULL;
}
int main(void) {
	pthread_t th;
	pthread_create(&th, NULL, work, (void *)5);
	pthread_join(th, NULL);
	counter++;
	printf("%d %ld\n", counter, slots[1]);
	return 0;
}
`

// Thread-local variables (__thread) are each thread's own, as gdb finds them: through
// the module's TLS id and the thread's dtv, as libthread_db reads them (the offsets of
// glibc's structures from libc's _thread_db_ descriptions). The worker's copy, then the
// main thread's, their addresses, info address; finish out of the worker with its pointer.
func TestThreadLocalsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNativeWith(t, "tls", threadLocalProg, "-pthread")
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands(
		"break work", "break 15", "run", "p counter", "p slots", "finish", "p counter", "p slots[1]",
		"continue", "p counter", "p slots", "p &slots[2]", "whatis counter", "ptype slots", "info address counter",
		"info address slots", "continue"))
	if !strings.Contains(string(ours), "$4 = 12\n") || !strings.Contains(string(ours), "$6 = 8\n") {
		t.Errorf("the threads' own counters are not told:\n%s", ours)
	}
	compareLines(t, "thread-local variables", dir, ours, theirs)
}

// condWaitProg has a worker waiting on a condition variable that main signals after its
// breakpoint on line 19.
const condWaitProg = `#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static int work(int x) { return x * 2; }
static void *worker(void *arg) {
	pthread_mutex_lock(&mu);
	while (!ready)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return (void *)(long)work((int)(long)arg);
}
int main(void) {
	pthread_t th;
	pthread_create(&th, 0, worker, (void *)7L);
	usleep(100000);
	pthread_mutex_lock(&mu);
	ready = 1;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
	void *r;
	pthread_join(th, &r);
	printf("%ld\n", (long)r);
	return 0;
}
`

// A thread stopped inside a system call that only another thread can end (a futex wait)
// is stepped with the other threads running, as gdb's steps let them run: stepi there, and
// finish out of libc's inlined futex wait where its debug information is installed, end
// instead of waiting forever (main, off its breakpoint first, signals the worker).
func TestBlockedThreadStepsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNativeWith(t, "condwait", condWaitProg, "-pthread")
	// (where main is when the worker's step ends is the scheduler's, and the order of the
	// program's last line and the worker's end the pipes': only the worker's place is
	// compared)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands(
		"break 19", "run", "thread 2", "stepi", "kill"))
	compareLines(t, "stepi in a blocked thread", dir, ours, theirs)

	realparts.NeedLibcDebugFile(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // (it used to wait forever)
	defer cancel()
	out, err := exec.CommandContext(ctx, polydbgBinary(t), "debug", "-batch", "-ex", "break 19", "-ex", "run", "-ex", "thread 2",
		"-ex", "finish", "-ex", "bt 1", "-ex", "finish", exe).CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`\n__futex_abstimed_wait_common \(.*\) at \./nptl/futex-internal\.c:\d+\n`).Match(out) ||
		strings.Contains(string(out), "Thread 1 \"condwait\" hit Breakpoint 1") && strings.Count(string(out), "hit Breakpoint 1") > 1 {
		t.Errorf("finish out of the inlined futex wait:\n%s", out)
	}
}

const abortProg = `#include <assert.h>
#include <stdio.h>
static int check(int v) {
	assert(v < 3);
	return v;
}
int main(void) {
	int s = 0;
	for (int i = 0; i < 5; i++)
		s += check(i);
	printf("%d\n", s);
	return 0;
}
`

// A failed assert's backtrace through libc, with its debug information, as gdb shows it:
// the tail call frame of __pthread_kill_internal (which jumped to
// __pthread_kill_implementation, its own frame gone) found from the call sites, parameters
// with their @entry values (also in __assert_fail_base's cold part), and info frame of the
// frames around it ("tail call frame", "Arglist at unknown address.").
func TestAbortBacktraceAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.NeedLibcDebugFile(t)
	dir, exe := buildNative(t, "aborts", abortProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, nil, exCommands(
		"run", "bt", "info frame", "up", "info frame", "info args", "up", "info frame", "frame 4", "info args", "kill"))
	if !strings.Contains(string(ours), "#1  0x") || !strings.Contains(string(ours), " in __pthread_kill_internal (") ||
		!strings.Contains(string(ours), " tail call frame, caller of frame at ") {
		t.Errorf("no tail call frame:\n%s", ours)
	}
	compareLines(t, "abort's backtrace", dir, ours, theirs)
}

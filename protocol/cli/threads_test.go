package cli_test

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

const threadProg = `#include <pthread.h>
#include <stdio.h>
volatile int spinning, done;
int work(int id) {
    int twice = id * 2;
    return twice;
}
void *worker(void *arg) {
    int id = (int)(long)arg;
    while (!spinning) /* until main is in its own code */
        ;
    long r = work(id);
    done = 1;
    return (void *)r;
}
int main(void) {
    pthread_t th;
    pthread_create(&th, 0, worker, (void *)7L);
    spinning = 1;
    while (!done)
        ;
    void *r;
    pthread_join(th, &r);
    printf("result %ld\n", (long)r);
    return 0;
}
`

// info threads lists both threads with gdb's numbers and their frames; thread N selects one,
// and the stack and variables are then that thread's.
func TestThreadsAsGDB(t *testing.T) {
	dir, out := nativeScriptOf(t, "threads", threadProg,
		"break work\nrun\ninfo threads\nprint id\nthread 1\nbt\nthread 2\nprint id\nthread\nfinish\ndelete\nc\n", "-pthread")
	out = strings.ReplaceAll(out, dir+"/", "")
	expect(t, out,
		"[New Thread 0x", // told live, as the thread starts
		"Breakpoint 1, work (id=7) at threads.c:5",
		"  Id   Target Id",
		"$1 = 7",
		"[Switching to thread 1 (Thread ",
		"#0  ", "main () at threads.c:",
		"[Switching to thread 2 (Thread ",
		"#0  work (id=7) at threads.c:5",
		"$2 = 7",
		"[Current thread is 2 (Thread ",
		"Value returned is $3 = 14",
		"exited]\n", "[Inferior 1 (process ", ") exited normally]",
	)
	if n := strings.Count(out, "[New Thread 0x"); n != 1 || !regexp.MustCompile(`\[Thread 0x[0-9a-f]+ \(LWP \d+\) exited\]`).MatchString(out) {
		t.Errorf("%d new threads told, want 1, and its exit:\n%s", n, out)
	}
	// the thread that hit the breakpoint is the current one, marked *, and is in work
	rows := regexp.MustCompile(`(?m)^([* ]) (\d+) +Thread (0x[0-9a-f]+).*$`).FindAllStringSubmatch(out, -1)
	if len(rows) != 2 {
		t.Fatalf("info threads shows %d threads, want 2:\n%s", len(rows), out)
	}
	for _, r := range rows {
		inWork := strings.Contains(r[0], "work (id=7) at threads.c:5")
		if (r[1] == "*") != inWork || (r[2] == "2") != inWork {
			t.Errorf("row %q: the current thread is the one in work, numbered 2", r[0])
		}
	}
	// frame 0 of thread 1 is main's thread, not work
	i := strings.Index(out, "[Switching to thread 1")
	if i < 0 || strings.Contains(out[i:strings.Index(out, "[Switching to thread 2")], "work") {
		t.Errorf("thread 1's stack shows work:\n%s", out)
	}
}

const inlineProg = `#include <stdio.h>
static inline __attribute__((always_inline)) int scale(int v) {
    int r = v * 3;
    return r + 1;
}
int (*keep)(int);
int scale_out(int v) { return scale(v); }
int main(int argc, char **argv) {
    int a = scale(argc);
    int b = scale(a + 2);
    printf("%d %d %d\n", a, b, scale_out(b));
    return 0;
}
`

// break FUNC on a function the compiler inlined binds at every copy, as gdb says
// "(N locations)", and info breakpoints lists them; a stop names the copy (1.2), as gdb's.
func TestBreakAtInlinedCopies(t *testing.T) {
	dir, out := nativeScriptOf(t, "inl", inlineProg, "break scale\ninfo breakpoints\nrun\nbt\nc\nc\nkill\n", "-O2")
	out = strings.ReplaceAll(out, dir+"/", "")
	expect(t, out, "Breakpoint 1 at ", " locations)", "<MULTIPLE>", "\n1.1                         y   0x", "\n1.2                         y   0x", "Breakpoint 1.1, scale (")
	m := regexp.MustCompile(`\((\d+) locations\)`).FindStringSubmatch(out)
	rows := regexp.MustCompile(`(?m)^1\.\d+ `).FindAllString(out, -1)
	if m == nil || m[1] != fmt.Sprint(len(rows)) || len(rows) < 3 {
		t.Errorf("locations said %v, listed %d:\n%s", m, len(rows), out)
	}
	if n := len(regexp.MustCompile(`Breakpoint 1\.\d, scale`).FindAllString(out, -1)); n != 3 {
		t.Errorf("%d hits of scale in three continues, want 3:\n%s", n, out)
	}
}

const joinProg = `#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
int work(int id) {
    return id * 2;
}
void *worker(void *arg) {
    usleep(200000); /* main is waiting in pthread_join by then */
    return (void *)(long)work((int)(long)arg);
}
int main(void) {
    pthread_t th;
    pthread_create(&th, 0, worker, (void *)7L);
    void *r;
    pthread_join(th, &r);
    printf("result %ld\n", (long)r);
    return 0;
}
`

// A thread waiting in libc (main in pthread_join) is unwound through the library's frames
// to the program's own, as gdb's backtrace shows it.
func TestBacktraceThroughLibraries(t *testing.T) {
	dir, out := nativeScriptOf(t, "join", joinProg, "break work\nrun\nthread 1\nbt\nkill\n", "-pthread")
	out = strings.ReplaceAll(out, dir+"/", "")
	i := strings.Index(out, "(polydbg) bt")
	if i < 0 {
		t.Fatalf("no bt:\n%s", out)
	}
	bt := out[i:]
	if !regexp.MustCompile(`#\d+ +0x[0-9a-f]+ in main \(\) at join.c:15\n`).MatchString(bt) {
		t.Errorf("main's frame (in pthread_join at line 15) is not in thread 1's backtrace:\n%s", bt)
	}
	// (by its symbol, or by its source where libc's debug information is installed)
	if !regexp.MustCompile(`#0 +(0x[0-9a-f]{16} in \S+ \(\) from /\S*libc\.so|\S+ \(.*\) at \S*nptl/\S+\.c:\d+\n)`).MatchString(bt) {
		t.Errorf("the innermost frame is not libc's:\n%s", bt)
	}
}

// programFrame is a frame of the test program in a transcript (not libc's, whose symbols
// gdb may have and polydbg does not read), or a thread apply header's number.
var programFrame = regexp.MustCompile(`(?m)^(?:(#\d+ +(?:0x[0-9a-f]+ in )?\w+ \(.*\) at threads\.c:\d+)$|(Thread \d+) \()`)

// spinningMain is main in its busy loop, at whichever instruction of it the stop found it
// (the loop's first, without an address, or another).
var spinningMain = regexp.MustCompile(`(?:0x[0-9a-f]+ in )?main \(`)

// thread apply all bt runs the backtrace in every thread, the highest number first, as gdb:
// the same threads with the same frames of the program; thread apply N runs any command.
func TestThreadApplyAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break work\nrun\nthread apply all bt\nthread apply 1 print done\n"
	dir, out := nativeScriptOf(t, "threads", threadProg, commands, "-pthread")
	oracle := gdbBatch(t, filepath.Join(dir, "threads"), commands)
	pick := func(s string) []string {
		var fs []string
		for _, m := range programFrame.FindAllStringSubmatch(strings.ReplaceAll(s, dir+"/", ""), -1) {
			f := stackAddress.ReplaceAllString(m[1]+m[2], "0x7ff...")
			fs = append(fs, spinningMain.ReplaceAllString(f, "[0x... in ]main ("))
		}
		return fs
	}
	agreeLines(t, "thread apply", 6, pick(out), pick(oracle), out, oracle)
	expect(t, out, "(polydbg) thread apply 1 print done\n\nThread 1 (Thread ", "):\n$1 = 0\n")
}

// clear deletes the breakpoints at a place, by line, function or the selected frame's line,
// in gdb's words.
func TestClear(t *testing.T) {
	_, out := nativeScriptOf(t, "threads", threadProg,
		"break work\nbreak threads.c:12\nb 12\nrun\nclear\nclear work\nclear threads.c:12\nclear main\ninfo breakpoints\n", "-pthread")
	expect(t, out, "(polydbg) clear\nDeleted breakpoints 2 3 \n", "(polydbg) clear work\nDeleted breakpoint 1 \n",
		"(polydbg) clear threads.c:12\nNo breakpoint at threads.c:12.\n", "(polydbg) clear main\nNo breakpoint at main.\n",
		"(polydbg) info breakpoints\nNo breakpoints or watchpoints.\n")
}

// clear on Kite, by function, line and instruction number.
func TestClearOnKite(t *testing.T) {
	out := script(t, "b fib\nb 5\nb *23\nb 10\nclear fib\nclear prog.kite:5\nclear *23\nclear 10\nclear nosuch\ninfo breakpoints\n")
	expect(t, out, "(polydbg) clear fib\nDeleted breakpoints 1 3 \n", "(polydbg) clear prog.kite:5\nDeleted breakpoint 2 \n",
		"(polydbg) clear *23\nNo breakpoint at *23.\n", "(polydbg) clear 10\nDeleted breakpoint 4 \n",
		"(polydbg) clear nosuch\nFunction \"nosuch\" not defined.\n", "(polydbg) info breakpoints\nNo breakpoints or watchpoints.\n")
}

// info sharedlibrary lists the libraries as gdb does: the dynamic linker first, each
// library's code as loaded (From, To), and a library without debug information marked, here
// one built for the test without -g.
func TestSharedLibrariesAsGDB(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver", "gdb")
	dir := t.TempDir()
	lib := filepath.Join(dir, "libtwice.so")
	if err := os.WriteFile(filepath.Join(dir, "twice.c"), []byte("int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib, filepath.Join(dir, "twice.c")).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	const commands = "info sharedlibrary\nbreak main\nrun\ninfo sharedlibrary\n"
	exeDir, out := nativeScriptOf(t, "uses", "int twice(int);\nint main(void) {\n    return twice(3) - 6;\n}\n", commands,
		"-L"+dir, "-ltwice", "-Wl,-rpath,"+dir)
	oracle := gdbBatch(t, filepath.Join(exeDir, "uses"), commands)
	table := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:From  |0x[0-9a-f]{16}  0x|\(\*\): |No shared libraries).*)$`)
	agreeLines(t, "info sharedlibrary", 6, captured(table, out, ""), captured(table, oracle, ""), out, oracle)
}

// Breakpoints at FILE:FUNCTION and at lines relative to the stop, numbers given as ranges
// to delete, disable and enable, and info watchpoints, as gdb has them.
func TestBreakpointSpecsAsGDB(t *testing.T) {
	const commands = "break main\nrun\nbreak loop.c:square\nbreak 8\nbreak +1\nbreak -1\nbreak other.c:square\n" +
		"disable 2-3\ninfo breakpoints\ndelete 1-2\ndisable 9\ndelete 4-3\ninfo breakpoints\nenable 3-4\n" +
		"info watchpoints\nwatch sum\ninfo watchpoints\ninfo breakpoints\n"
	_, out, oracle := loopAndGDB(t, commands)
	said := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?((?:Breakpoint \d+ at|Function |No |Num |\d+ |Hardware |inverted|Bad ).*)$`)
	// (The first, set before the program runs, gdb places at its link-time address.)
	agreeLines(t, "breakpoint specs", 24, captured(said, out, "")[1:], captured(said, oracle, "")[1:], out, oracle)
}

// threadLine picks gdb's lines about threads from a transcript: a thread started, ended or
// switched to, the thread that hit a breakpoint, info threads' table, and the end.
var threadLine = regexp.MustCompile(`(?m)^(?:\[(?:New|Switching|Thread 0x|Current|Inferior) .*|Thread \d+ .* hit .*|  Id +Target Id +Frame ?|[* ] \d+ +Thread .*)$`)

// Threads are named as gdb names them with libthread_db: by their pthread_t and LWP as they
// start, end and are switched to, "Thread 2 "name" hit" at a breakpoint once the program has
// two, and info threads' Target Id column as wide as its widest entry.
func TestThreadNamesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break work\nrun\ninfo threads\nthread 1\nthread\ncontinue\n"
	dir, out := nativeScriptOf(t, "threads", threadProg, commands, "-pthread")
	oracle := gdbBatch(t, filepath.Join(dir, "threads"), commands)
	ids := regexp.MustCompile(`0x[0-9a-f]+|LWP \d+|process \d+`)
	pick := func(s string) []string {
		var ls []string
		for _, l := range threadLine.FindAllString(strings.ReplaceAll(s, dir+"/", ""), -1) {
			ls = append(ls, ids.ReplaceAllStringFunc(spinningMain.ReplaceAllString(l, "main ("), func(id string) string {
				return strings.TrimRight(id, "0123456789abcdefx") + "N"
			}))
		}
		return ls
	}
	agreeLines(t, "thread lines", 9, pick(out), pick(oracle), out, oracle)
}

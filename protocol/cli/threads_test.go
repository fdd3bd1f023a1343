package cli_test

import (
	"regexp"
	"strings"
	"testing"
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
		"break work\nrun\ninfo threads\nprint id\nthread 1\nbt\nthread 2\nprint id\nthread\nfinish\nkill\n", "-pthread")
	out = strings.ReplaceAll(out, dir+"/", "")
	expect(t, out,
		"Breakpoint 1, work at threads.c:5",
		"  Id   Target Id",
		"$1 = 7",
		"[Switching to thread 1 (Thread ",
		"main at threads.c:",
		"[Switching to thread 2 (Thread ",
		"#0   work at threads.c:5",
		"$2 = 7",
		"[Current thread is 2 (Thread ",
		"Value returned is $3 = 14",
	)
	// the thread that hit the breakpoint is the current one, marked *, and is in work
	rows := regexp.MustCompile(`(?m)^([* ]) (\d+) +Thread (\d+).*$`).FindAllStringSubmatch(out, -1)
	if len(rows) != 2 {
		t.Fatalf("info threads shows %d threads, want 2:\n%s", len(rows), out)
	}
	for _, r := range rows {
		inWork := strings.Contains(r[0], "work () at threads.c:5")
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

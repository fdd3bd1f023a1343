package gdbremote

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// With a stub that has working thread events (QThreadOptions announced: gdbserver 15 and
// later), a create stop and a "w" reply reach the callback, and Wait resumes the target
// with the command it was running under each time, returning only the real stop.
func TestClientQThreadEvents(t *testing.T) {
	replies := []string{"T05create:;06:00;thread:p1.2;core:1;", "w0;p1.2", "W00"}
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		switch {
		case cmd == "QThreadEvents:1":
			w.packet("OK")
		case cmd == "vCont;c" && len(replies) > 0:
			w.packet(replies[0])
			replies = replies[1:]
		default:
			w.packet("")
		}
		return true
	})
	s.features(";QThreadEvents+;QThreadOptions=3")
	c := dial(t, s.ln.Addr().String(), Options{})
	ctx := testCtx(t, 5*time.Second)
	var mu sync.Mutex
	var got []string
	err := c.EnableThreadEvents(ctx, func(ev ThreadEvent) {
		mu.Lock()
		got = append(got, fmt.Sprint(ev.Started, " ", ev.Thread))
		mu.Unlock()
	})
	if err != nil || c.ThreadEventsWay() != "QThreadEvents" {
		t.Fatalf("enable: %q %v", c.ThreadEventsWay(), err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	sr, err := c.Wait(ctx)
	if err != nil || sr.Kind != StopExited {
		t.Fatalf("wait: %+v %v", sr, err)
	}
	mu.Lock()
	defer mu.Unlock()
	// ids of the program's own process come in plain form (forks.go)
	if want := []string{"true 2", "false 2"}; !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
	var conts int
	for _, cmd := range s.commands() {
		if cmd == "vCont;c" {
			conts++
		}
	}
	if conts != 3 {
		t.Errorf("%d continues, want 3 (one, and one after each thread event): %v", conts, s.commands())
	}
}

// A stub without QThreadOptions (gdbserver 13 and 14 crash on the first thread exit with
// QThreadEvents) gets no QThreadEvents:1.
func TestClientNoQThreadEventsWithoutOptions(t *testing.T) {
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool { w.packet(""); return true })
	s.features(";QThreadEvents+")
	c := dial(t, s.ln.Addr().String(), Options{})
	if err := c.EnableThreadEvents(testCtx(t, 5*time.Second), func(ThreadEvent) {}); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("QThreadEvents enabled on a stub that cannot report them safely: %v", err)
	}
	if slices.Contains(s.commands(), "QThreadEvents:1") {
		t.Fatal("QThreadEvents:1 sent to a stub without QThreadOptions")
	}
}

// threadEventText is an engine thread event as "started 1234".
func threadEventText(e engine.Event) string {
	return fmt.Sprint(e.Thread.Reason, " ", e.Thread.Thread.ID)
}

// Under gdbserver, threads that start and end while the program runs with no breakpoint
// reach a subscriber at once, in order, with the ids the threads have (their LWP): the
// program never stops for them.
func TestLiveThreadEventsNative(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, err := os.ReadFile("testdata/native/threads.c")
	if err != nil {
		t.Fatal(err)
	}
	prog := buildC(t, string(src), "-pthread")
	ctx := testCtx(t, 30*time.Second)
	tg, err := LaunchNative(ctx, prog, []string{"wait"}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.LiveThreadEvents() == "" {
		t.Fatal("gdbserver reports no live thread events")
	}
	x := newSess(t, tg)
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 6 {
		e := x.next(engine.EventThread, engine.EventStopped, engine.EventExited, engine.EventTerminated)
		if e.Kind != engine.EventThread {
			t.Fatalf("%v while waiting for thread events (have %v)", e.Kind, got)
		}
		got = append(got, threadEventText(e))
	}
	if st := x.s.State(); st != engine.Running {
		t.Fatalf("state %v after the thread events: the program stopped", st)
	}
	// The output comes on its own path: wait for the three lines.
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(x.out.String(), "tid ") < 3 && time.Now().Before(deadline) {
		select {
		case e := <-x.sub.Events():
			if e.Kind == engine.EventOutput {
				x.out.WriteString(e.Text)
			}
		case <-time.After(100 * time.Millisecond):
		}
	}
	var want []string
	for _, m := range regexp.MustCompile(`tid (\d+)`).FindAllStringSubmatch(x.out.String(), -1) {
		want = append(want, "started "+m[1], "exited "+m[1])
	}
	if !slices.Equal(got, want) {
		t.Fatalf("thread events %v, want %v (from the program's own gettid: %q)", got, want, x.out.String())
	}
	if err := x.s.Pause(); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	ths, err := x.s.Threads(context.Background())
	if err != nil || len(ths) != 1 || ths[0].ID != st.ThreadID {
		t.Fatalf("threads at the stop in thread %d: %v %v (the three have ended: only main is left, and stopped)", st.ThreadID, ths, err)
	}
	// A reset starts a new process (vRun): its threads are reported too.
	if _, err := x.s.Reset(ctx, false); err != nil {
		t.Fatal(err)
	}
	for n := 0; n < 6; n++ {
		if e := x.next(engine.EventThread, engine.EventExited, engine.EventTerminated); e.Kind != engine.EventThread {
			t.Fatalf("%v after %d thread events of the restarted program", e.Kind, n)
		}
	}
}

// nextProg creates a thread on the line a next steps over.
const nextProg = `#include <pthread.h>
#include <unistd.h>
static void *work(void *a) { usleep(1000); return a; }
int main(void) {
    pthread_t t;
    int x = 0;
    pthread_create(&t, 0, work, 0); /* LINE:create */
    x = 1; /* LINE:after */
    pthread_join(t, 0);
    return x - 1;
}
`

// A next over a line that creates a thread ends on the next line, not at the thread's
// creation, which is told on the way as a thread event.
func TestNextOverThreadCreate(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, nextProg, "-pthread")
	ctx := testCtx(t, 30*time.Second)
	tg, err := LaunchNative(ctx, prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	src := filepath.Join(filepath.Dir(prog), "prog.c") // buildCOpt's
	create, after := srcLine(t, src, "create"), srcLine(t, src, "after")
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{File: src, Line: create}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	if st := x.stopped(); st.Reason != engine.ReasonBreakpoint || x.line() != create {
		t.Fatalf("stop %+v at line %d, want the breakpoint at %d", st, x.line(), create)
	}
	if err := x.s.Resume(engine.StepOver); err != nil {
		t.Fatal(err)
	}
	e := x.next(engine.EventThread, engine.EventStopped, engine.EventExited)
	if e.Kind != engine.EventThread || e.Thread.Reason != engine.ThreadStarted {
		t.Fatalf("%v before the thread's start event (line %d)", e.Kind, x.line())
	}
	for {
		e = x.next(engine.EventThread, engine.EventStopped, engine.EventExited)
		if e.Kind != engine.EventThread {
			break
		}
	}
	if e.Kind != engine.EventStopped || e.Stop.Reason != engine.ReasonStep || x.line() != after {
		t.Fatalf("next ended with %v %+v at line %d, want a step stop at line %d", e.Kind, e.Stop, x.line(), after)
	}
	if got := x.eval("x"); got != "0" {
		t.Fatalf("x = %s: the next went past its line", got)
	}
}

// detachProg waits to be detached from (a breakpoint on the marked line), then starts a
// thread and writes the file named by its argument once the thread has ended.
const detachProg = `#include <pthread.h>
#include <stdio.h>
static void *work(void *a) { return a; }
int main(int argc, char **argv) {
    pthread_t t;
    int x = 0; /* LINE:stop */
    pthread_create(&t, 0, work, 0);
    pthread_join(t, 0);
    FILE *f = fopen(argv[1], "w");
    fputs("done", f);
    fclose(f);
    return x;
}
`

// A program detached from keeps running with no breakpoint of the thread events left in
// it: its threads start and end (a breakpoint left behind would kill it with SIGTRAP).
func TestDetachRemovesThreadEventBreakpoints(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, detachProg, "-pthread")
	done := filepath.Join(t.TempDir(), "done")
	ctx := testCtx(t, 30*time.Second)
	tg, err := LaunchNative(ctx, prog, []string{done}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if tg.LiveThreadEvents() != "nptl" {
		t.Fatalf("thread events %q, want glibc's", tg.LiveThreadEvents())
	}
	x := newSess(t, tg)
	src := filepath.Join(filepath.Dir(prog), "prog.c")
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{File: src, Line: srcLine(t, src, "stop")}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	if err := tg.Detach(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(done); err == nil && string(b) == "done" {
			return
		}
	}
	t.Fatal("the detached program did not get past its thread")
}

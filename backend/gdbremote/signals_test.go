package gdbremote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

const forkProg = `#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void) {
    for (int i = 0; i < 3; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(3 + i);
        int st;
        waitpid(p, &st, 0);
        printf("child %d exited %d\n", i, WEXITSTATUS(st));
    }
    return 0;
}
`

// A program whose children end gets SIGCHLD; like gdb, polydbg lets it through without
// stopping (it stopped with "signal stopped", a host name for GDB's number 20, before).
func TestQuietSignalsPassedOn(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, forkProg)
	tg, err := LaunchNative(testCtx(t, 30*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	var out strings.Builder
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	for {
		e := x.next(engine.EventOutput, engine.EventStopped, engine.EventExited, engine.EventTerminated)
		if e.Kind == engine.EventOutput {
			out.WriteString(e.Text)
			continue
		}
		if e.Kind != engine.EventExited || e.ExitCode != 0 {
			t.Fatalf("the program ended with %v %+v (code %d); output %q", e.Kind, e.Stop, e.ExitCode, out.String())
		}
		break
	}
	tg.stub.DrainOutput()
	if got := out.String() + tg.stub.Output(); !strings.Contains(got, "child 2 exited 5") {
		t.Errorf("output %q lacks the last child's exit", got)
	}
}

// A signal gdb stops at is named by GDB's numbering (SIGUSR1 is 30 on the wire) and, as gdb
// passes it, delivered when the program resumes: the handler runs. A SIGSEGV delivered the
// same way ends the program, as under gdb.
func TestSignalStopsAndPasses(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, nativeFile(t, "signals.c"))
	tg, err := LaunchNative(testCtx(t, 30*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	if st := x.stopped(); st.Reason != engine.ReasonException || st.Text != "signal SIGUSR1, User defined signal 1" {
		t.Fatalf("first stop %+v, want signal SIGUSR1", st)
	}
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	if st := x.stopped(); st.Reason != engine.ReasonException || st.Text != "signal SIGSEGV, Segmentation fault" {
		t.Fatalf("second stop %+v, want signal SIGSEGV", st)
	}
	if got := x.eval("got"); got != "10" {
		t.Errorf("got = %s: the SIGUSR1 handler did not run", got)
	}
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	e := x.next(engine.EventExited, engine.EventTerminated, engine.EventStopped)
	if e.Kind != engine.EventExited || e.ExitCode != 128+11 {
		t.Fatalf("after SIGSEGV was passed: %v %+v code %d, want the program killed by SIGSEGV", e.Kind, e.Stop, e.ExitCode)
	}
}

func TestSignalNumbers(t *testing.T) {
	for gdb, want := range map[int]string{11: "SIGSEGV", 20: "SIGCHLD", 30: "SIGUSR1", 10: "SIGBUS", 99: "99"} {
		if got := SignalName(gdb); got != want {
			t.Errorf("SignalName(%d) = %s, want %s", gdb, got, want)
		}
	}
	for gdb, host := range map[int]int{11: 11, 30: 10, 20: 17, 10: 7, 15: 15} {
		if got := hostSignal(gdb); got != host {
			t.Errorf("hostSignal(%d) = %d, want %d", gdb, got, host)
		}
	}
}

// nativeFile is the source text of testdata/native/name.
func nativeFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "native", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

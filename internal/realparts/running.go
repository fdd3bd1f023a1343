package realparts

import (
	"bufio"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/ptracescope"
)

// Running is a program of the test's own, started as a user's program runs before a
// debugger attaches to it (gdb -p, DAP's processId).
type Running struct {
	Cmd  *exec.Cmd
	rest chan string // what it prints after its first line, once it has ended
}

// StartReady starts exe and returns once it has printed its first line, ready; it is
// killed at the end of the test if it is still there.
func StartReady(t testing.TB, exe, ready string) *Running {
	t.Helper()
	cmd := exec.Command(exe)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	if line, err := r.ReadString('\n'); err != nil || line != ready+"\n" {
		t.Fatalf("the program said %q, %v; want %q", line, err, ready)
	}
	p := &Running{Cmd: cmd, rest: make(chan string, 1)}
	go func() {
		var b strings.Builder
		r.WriteTo(&b)
		p.rest <- b.String()
	}()
	return p
}

// Pid is the program's process id.
func (p *Running) Pid() int { return p.Cmd.Process.Pid }

// Ended waits for the program's end and returns what it printed after its first line and
// how it ended (nil: exit 0); ok is false if it did not end within a timeout.
func (p *Running) Ended(timeout time.Duration) (rest string, err error, ok bool) {
	select {
	case rest = <-p.rest:
		return rest, p.Cmd.Wait(), true
	case <-time.After(timeout):
		return "", nil, false
	}
}

// EndedNormally fails t unless the program ends by itself, with exit 0, having printed
// want after its first line.
func (p *Running) EndedNormally(t testing.TB, want string) {
	t.Helper()
	rest, err, ok := p.Ended(30 * time.Second)
	switch {
	case !ok:
		t.Errorf("the program did not end after the debugger let it go")
	case err != nil || rest != want:
		t.Errorf("after the debugger, the program ended with %v, printing %q; want exit 0 and %q", err, rest, want)
	}
}

// LoopProg is a C program that runs for a few seconds on its own, a loop of short sleeps
// (line 9 counts), saying "ready" when it has started and "done 3000" at its end: a
// program to attach to.
const LoopProg = `#include <stdio.h>
#include <unistd.h>
int n;
int main(void) {
	printf("ready\n");
	fflush(stdout);
	for (int i = 0; i < 3000; i++) {
		usleep(1000);
		n++;
	}
	printf("done %d\n", n);
	return 0;
}
`

// LoopLine is the line of LoopProg that counts, in its loop.
const LoopLine = 9

// NeedAttach skips t unless gdbserver and gcc are here and this kernel lets a debugger
// attach to a process that is not its child (Yama's ptrace_scope).
func NeedAttach(t testing.TB) {
	t.Helper()
	Need(t, "gdbserver", "gcc")
	if !ptracescope.AttachAllowed() {
		t.Skip("this kernel's Yama ptrace_scope does not let a debugger attach to another process here")
	}
}

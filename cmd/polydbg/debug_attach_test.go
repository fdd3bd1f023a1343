package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// addresses are the hexadecimal addresses of a transcript: two processes of one program
// load it at different places.
var addresses = regexp.MustCompile(`0x[0-9a-f]{6,}`)

// gdb -p: polydbg attaches to a program already running, stops it where it is, sets a
// breakpoint that the loop reaches, shows the stack, deletes it and detaches, as gdb does
// with another run of the same program; each program then runs to its end, its count
// whole (a breakpoint left behind would have killed it with SIGTRAP).
func TestAttachAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.NeedAttach(t)
	dir, exe := buildNative(t, "attach", realparts.LoopProg)
	cmds := []string{"-ex", "break " + strconv.Itoa(realparts.LoopLine), "-ex", "continue", "-ex", "print n > 0", "-ex", "print i < 3000",
		"-ex", "bt", "-ex", "info inferiors", "-ex", "delete", "-ex", "detach"}
	mine := realparts.StartReady(t, exe, "ready")
	ours, err := exec.Command(polydbgBinary(t), append(append(append([]string{"debug", "-batch"}, noLibcDebugInfo...), "-p", strconv.Itoa(mine.Pid())), cmds...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	theirsProc := realparts.StartReady(t, exe, "ready")
	theirs, err := exec.Command("gdb", append([]string{"-nx", "-batch", "-iex", "set debug-file-directory /nonexistent",
		"-p", strconv.Itoa(theirsProc.Pid())}, cmds...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	mine.EndedNormally(t, "done 3000\n")
	theirsProc.EndedNormally(t, "done 3000\n")
	// Where each was found differs from run to run (in usleep, most often): compared from
	// the breakpoint on.
	from := func(out []byte) []byte {
		s := string(out)
		if i := strings.Index(s, "Breakpoint 1 at"); i >= 0 {
			s = s[i:]
		}
		return []byte(addresses.ReplaceAllString(s, "0xADDR"))
	}
	if !strings.Contains(string(ours), " from /") && !strings.Contains(string(ours), " at attach.c:") {
		t.Errorf("polydbg did not show where it found the program:\n%s", ours)
	}
	compareLines(t, "attach", dir, from(ours), from(theirs))
}

// Quitting with the attached program alive detaches from it, as gdb's quit does (its
// question says so, and answers itself without a terminal); so does the end of -batch
// without a detach (engine: closing an attached session lets it go). run cannot start an
// attached program again; kill ends it.
func TestAttachedProgramOutlivesTheDebugger(t *testing.T) {
	realparts.Need(t, "gdb")
	realparts.NeedAttach(t)
	_, exe := buildNative(t, "attach", realparts.LoopProg)
	input := "break 9\ncontinue\nrun\nquit\n"
	mine := realparts.StartReady(t, exe, "ready")
	pid := strconv.Itoa(mine.Pid())
	cmd := exec.Command(polydbgBinary(t), append(append([]string{"debug"}, noLibcDebugInfo...), "-p", pid)...)
	cmd.Stdin = strings.NewReader(input)
	ours, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	mine.EndedNormally(t, "done 3000\n")
	theirsProc := realparts.StartReady(t, exe, "ready")
	tpid := strconv.Itoa(theirsProc.Pid())
	cmd = exec.Command("gdb", "-nx", "-q", "-iex", "set debug-file-directory /nonexistent", "-p", tpid)
	cmd.Stdin = strings.NewReader(strings.Replace(input, "run\n", "", 1)) // gdb's run would start it again
	theirs, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	theirsProc.EndedNormally(t, "done 3000\n")
	want := func(pid string) []string {
		return []string{"Attaching to process " + pid + "\n",
			"A debugging session is active.\n\n\tInferior 1 [process " + pid + "] will be detached.\n\nQuit anyway? (y or n) [answered Y; input not from terminal]\n" +
				"Detaching from program: " + exe + ", process " + pid + "\n[Inferior 1 (process " + pid + ") detached]\n"}
	}
	agree := 0
	for i, w := range want(pid) {
		if !strings.Contains(string(theirs), want(tpid)[i]) {
			t.Fatalf("gdb did not say %q:\n%s", want(tpid)[i], theirs)
		}
		if strings.Contains(string(ours), w) {
			agree++
		} else {
			t.Errorf("polydbg did not say %q, as gdb:\n%s", w, ours)
		}
	}
	t.Logf("%d of 2 passages agree with gdb", agree)
	if !strings.Contains(string(ours), "The program was attached to, not started by polydbg: it cannot be run again") {
		t.Errorf("run on an attached program:\n%s", ours)
	}

	// -batch without detach: the end lets it go.
	again := realparts.StartReady(t, exe, "ready")
	if out, err := exec.Command(polydbgBinary(t), "debug", "-batch", "-p", strconv.Itoa(again.Pid()),
		"-ex", "break attach.c:9", "-ex", "continue").CombinedOutput(); err != nil || !strings.Contains(string(out), "Breakpoint 1, main () at ") {
		t.Fatalf("polydbg: %v\n%s", err, out)
	}
	again.EndedNormally(t, "done 3000\n")

	// kill ends it, as gdb's.
	killed := realparts.StartReady(t, exe, "ready")
	if out, err := exec.Command(polydbgBinary(t), "debug", "-batch", "-p", strconv.Itoa(killed.Pid()),
		"-ex", "kill").CombinedOutput(); err != nil || !strings.Contains(string(out), "killed]") {
		t.Fatalf("polydbg: %v\n%s", err, out)
	}
	if _, err, ok := killed.Ended(30 * time.Second); !ok || err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("after kill the program ended with %v (ended: %v)", err, ok)
	}
}

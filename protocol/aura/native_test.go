package aura

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNativeExitAndOrder: nativeLaunch comes first, the program's lines follow in order
// (stderr passed to stderr), the last partial line is completed before nativeExit, and
// polydbg exits with the program's code. The ELF file is recognised without --native.
func TestNativeExitAndOrder(t *testing.T) {
	exe := nativeProg(t)
	for _, args := range [][]string{{"--native", exe, "out"}, {exe, "out"}} {
		a := start(t, true, nil, args...)
		var launch NativeLaunchEvent
		a.expectInto("nativeLaunch", &launch)
		if launch.Exe != exe || !slices.Equal(launch.Args, []string{"out"}) {
			t.Fatalf("nativeLaunch %+v", launch)
		}
		var exit NativeExitEvent
		a.expectInto("nativeExit", &exit)
		if exit.Code == nil || *exit.Code != 7 || exit.Signal != "" {
			t.Fatalf("nativeExit %+v", exit)
		}
		if code := a.exit(); code != 7 {
			t.Fatalf("exit code %d", code)
		}
		want := []string{"@hello", "@nativeLaunch", "line 1", "line 2", "line 3", "no newline at the end", "@nativeExit"}
		if got := a.sequence(); !slices.Equal(got, want) {
			t.Fatalf("stdout %q, want %q", got, want)
		}
		if a.stderrText() != "warning on stderr\n" {
			t.Fatalf("stderr %q", a.stderrText())
		}
	}
}

func TestNativePlainRun(t *testing.T) {
	a := start(t, false, nil, "--native", nativeProg(t), "out")
	if code := a.exit(); code != 7 {
		t.Fatalf("exit code %d", code)
	}
	a.mu.Lock()
	last := a.lines[len(a.lines)-1].Text
	a.mu.Unlock()
	if got := a.sequence(); len(got) != 4 || got[0] != "line 1" || last != "no newline at the end" {
		t.Fatalf("stdout %q", got)
	}
}

// TestNativePartialLineAndTerminate: a partial line ("prompt: ", written in two pieces)
// is held back while the program sleeps, and written, completed, before the terminated
// and nativeExit events when the program is killed.
func TestNativePartialLineAndTerminate(t *testing.T) {
	a := start(t, true, nil, "--native", nativeProg(t), "partial")
	a.expect("nativeLaunch")
	a.send(`{"cmd":"pause"}`) // not for native runs
	a.waitStderr("ignored pause: native runs support only terminate")
	a.waitStderr("sleeping\n") // after the partial line was written
	a.send(`{"cmd":"terminate"}`)
	var te TerminatedEvent
	a.expectInto("terminated", &te)
	var exit NativeExitEvent
	a.expectInto("nativeExit", &exit)
	if te.Target != "native" || exit.Code != nil || exit.Signal != "SIGTERM" {
		t.Fatalf("terminated %+v, nativeExit %+v", te, exit)
	}
	if code := a.exit(); code != 128+15 {
		t.Fatalf("exit code %d", code)
	}
	want := []string{"@hello", "@nativeLaunch", "prompt: ", "@terminated", "@nativeExit"}
	if got := a.sequence(); !slices.Equal(got, want) {
		t.Fatalf("stdout %q, want %q", got, want)
	}
}

// TestNativeTerminateKillsGrandchild: terminate while the program sleeps ends its whole
// process group, including the child it forked.
func TestNativeTerminateKillsGrandchild(t *testing.T) {
	a := start(t, true, nil, "--native", nativeProg(t), "fork")
	a.waitStdout("ready")
	child := childPid(t, a)
	a.send(`{"cmd":"terminate"}`)
	a.expect("terminated")
	a.expect("nativeExit")
	a.exit()
	gone(t, child)
}

// TestNativeExitKillsGrandchild: a program that exits and leaves a child behind does not
// leave it running.
func TestNativeExitKillsGrandchild(t *testing.T) {
	a := start(t, true, nil, "--native", nativeProg(t), "fork", "exit")
	var exit NativeExitEvent
	a.expectInto("nativeExit", &exit)
	if exit.Code == nil || *exit.Code != 0 {
		t.Fatalf("nativeExit %+v", exit)
	}
	if code := a.exit(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	gone(t, childPid(t, a))
}

// TestNativeTerminateIgnoredSIGTERM: a program that ignores SIGTERM is killed after the
// grace time.
func TestNativeTerminateIgnoredSIGTERM(t *testing.T) {
	a := start(t, true, nil, "--native", nativeProg(t), "ignoreterm")
	a.waitStdout("ready")
	a.send(`{"cmd":"terminate"}`)
	var exit NativeExitEvent
	a.expectInto("nativeExit", &exit)
	if exit.Signal != "SIGKILL" {
		t.Fatalf("nativeExit %+v", exit)
	}
	if code := a.exit(); code != 128+9 {
		t.Fatalf("exit code %d", code)
	}
}

func TestNativeWaitEnableAndLaunchFailure(t *testing.T) {
	a := start(t, true, []string{wait}, "--native", "/nonexistent/prog")
	a.expect("hello")
	a.send(`{"cmd":"terminate"}`) // before enable: nothing was launched
	a.expect("terminated")
	if code := a.exit(); code != ExitTerminated {
		t.Fatalf("exit code %d", code)
	}
	if slices.Contains(a.events(), "nativeLaunch") {
		t.Fatal("launched before enable")
	}

	a = start(t, true, []string{wait}, "--native", "/nonexistent/prog")
	a.send(`{"cmd":"enable"}`)
	var exit NativeExitEvent
	a.expectInto("nativeExit", &exit)
	if exit.Code == nil || *exit.Code != 127 || exit.Error == "" {
		t.Fatalf("nativeExit %+v", exit)
	}
	if code := a.exit(); code != 127 {
		t.Fatalf("exit code %d", code)
	}
}

// childPid reads the "child PID" line the fork mode prints.
func childPid(t *testing.T, a *aura) int {
	t.Helper()
	var pid int
	a.waitFor("the child's pid", func() bool {
		for _, l := range a.lines {
			if s, ok := strings.CutPrefix(l.Text, "child "); ok && l.Event == "" {
				pid, _ = strconv.Atoi(s)
				return true
			}
		}
		return false
	})
	if pid <= 1 {
		t.Fatalf("bad child pid %d", pid)
	}
	return pid
}

// TestNativeSIGKILLLeavesNoGrandchildren: when polydbg itself is killed with SIGKILL (no
// chance to clean up), the children the program forked into its process group die too
// (issue 12, item 5: they used to live on).
func TestNativeSIGKILLLeavesNoGrandchildren(t *testing.T) {
	a := start(t, false, nil, "--native", "sh", "-c", "sleep 301 & echo $!; sleep 302 & echo $!; wait")
	var pids []int
	a.waitFor("the sleeps' pids", func() bool {
		pids = pids[:0]
		for _, l := range a.lines {
			if pid, err := strconv.Atoi(l.Text); err == nil && pid > 1 {
				pids = append(pids, pid)
			}
		}
		return len(pids) == 2
	})
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	a.exit()
	for _, pid := range pids {
		gone(t, pid)
	}
}

package gdbremote

// Signals as gdb handles them by default: the remote protocol numbers signals in GDB's own
// numbering (gdb/signals.def), whatever the host's; the signals gdb neither stops at nor
// prints (a child's exit, timers, window changes) are passed on to the program at once; any
// other signal stops the program and is delivered when it resumes (gdb's "pass"), but for
// SIGTRAP and SIGINT, which are the debugger's own.

import (
	"fmt"
	"strconv"
	"strings"
)

// gdbSignals names GDB's signal numbers.
var gdbSignals = [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT",
	7: "SIGEMT", 8: "SIGFPE", 9: "SIGKILL", 10: "SIGBUS", 11: "SIGSEGV", 12: "SIGSYS", 13: "SIGPIPE",
	14: "SIGALRM", 15: "SIGTERM", 16: "SIGURG", 17: "SIGSTOP", 18: "SIGTSTP", 19: "SIGCONT", 20: "SIGCHLD",
	21: "SIGTTIN", 22: "SIGTTOU", 23: "SIGIO", 24: "SIGXCPU", 25: "SIGXFSZ", 26: "SIGVTALRM", 27: "SIGPROF",
	28: "SIGWINCH", 29: "SIGLOST", 30: "SIGUSR1", 31: "SIGUSR2", 32: "SIGPWR", 33: "SIGPOLL"}

// GDB's numbers of the signals named above that the protocol uses directly.
const (
	sigINT  = 2
	sigTRAP = 5
)

// SignalName is the name of a signal by its GDB number ("SIGSEGV"), or the number.
func SignalName(n int) string {
	if n > 0 && n < len(gdbSignals) && gdbSignals[n] != "" {
		return gdbSignals[n]
	}
	return strconv.Itoa(n)
}

// linuxNumbers are the Linux numbers of GDB's signals where the two differ.
var linuxNumbers = map[int]int{10: 7, 12: 31, 16: 23, 17: 19, 18: 20, 19: 18, 20: 17, 23: 29, 30: 10, 31: 12, 32: 30, 33: 29}

// hostSignal is the Linux number of GDB's signal n.
func hostSignal(n int) int {
	if h, ok := linuxNumbers[n]; ok {
		return h
	}
	return n
}

// quiet reports whether gdb, by default, lets signal n through without stopping:
// SIGALRM, SIGURG, SIGCHLD, SIGIO, SIGVTALRM, SIGPROF, SIGWINCH and SIGPOLL.
func quiet(n int) bool {
	switch n {
	case 14, 16, 20, 23, 26, 27, 28, 33:
		return true
	}
	return false
}

// passed reports whether a signal that stopped the program is delivered when it resumes.
func passed(n int) bool { return n != 0 && n != sigTRAP && n != sigINT }

// pendingSignal is a signal to deliver to a thread with the next resume.
type pendingSignal struct {
	sig    int
	thread string
}

// withSignal is the vCont resume command cmd (what Resume sends) delivering p's signal too:
// continuing ("vCont;c") sends "vCont;C<sig>:<thread>;c"; stepping the thread that got it,
// "vCont;S<sig>:<thread>". ok is false when the signal cannot go with cmd (another thread's
// step, a stub without vCont;C or vCont;S): it then waits for a later resume.
func (c *Client) withSignal(cmd string, p pendingSignal) (string, bool) {
	switch {
	case p.sig == 0 || p.thread == "":
		return cmd, false
	case cmd == "vCont;c" && c.vcont["C"]:
		return fmt.Sprintf("vCont;C%02x:%s;c", p.sig, p.thread), true
	case (cmd == "vCont;s:"+p.thread || strings.HasPrefix(cmd, "vCont;r") && strings.HasSuffix(cmd, ":"+p.thread)) && c.vcont["S"]:
		// a range step delivers it with one instruction: the stepper then steps on
		return fmt.Sprintf("vCont;S%02x:%s", p.sig, p.thread), true
	}
	return cmd, false
}

// passQuiet resumes a program stopped by a quiet signal as it was running, delivering the
// signal (handled), the way gdb lets SIGCHLD through. c.cmu held.
func (c *Client) passQuiet(sr StopReply) (string, bool) {
	if sr.Kind != StopSignal || !quiet(sr.Signal) || sr.Reason != "" {
		return "", false
	}
	return c.withSignal(string(c.lastResume), pendingSignal{sr.Signal, sr.Thread})
}

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

	"github.com/polydbg/polydbg/engine"
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

// SignalPolicy is what a signal does when the program gets it, as gdb's handle sets it:
// stop the program (or let it run on), say so, and deliver it to the program.
type SignalPolicy struct{ Stop, Print, Pass bool }

// defaultSignalPolicy is gdb's: the quiet signals pass unseen, SIGTRAP and SIGINT (the
// debugger's own) stop and are not delivered, any other stops, is told and is delivered.
func defaultSignalPolicy(n int) SignalPolicy {
	switch {
	case quiet(n):
		return SignalPolicy{Pass: true}
	case n == sigTRAP || n == sigINT:
		return SignalPolicy{Stop: true, Print: true}
	}
	return SignalPolicy{Stop: true, Print: true, Pass: true}
}

// SignalNumber is GDB's number of a signal named as gdb names it ("SIGUSR1", "USR1", or
// the number); false for none.
func SignalNumber(name string) (int, bool) {
	if n, err := strconv.Atoi(name); err == nil && n > 0 && n < len(gdbSignals) && gdbSignals[n] != "" {
		return n, true
	}
	name = strings.ToUpper(name)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	for n, s := range gdbSignals {
		if s == name {
			return n, true
		}
	}
	return 0, false
}

// SetSignalPolicy changes what signal n does from now on. SIGTRAP and SIGINT, which the
// debugger uses for breakpoints and interrupts, keep theirs.
func (c *Client) SetSignalPolicy(n int, p SignalPolicy) error {
	if n == sigTRAP || n == sigINT {
		return fmt.Errorf("%s is used by the debugger; its handling is kept", SignalName(n))
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.sigPolicy == nil {
		c.sigPolicy = map[int]SignalPolicy{}
	}
	c.sigPolicy[n] = p
	return nil
}

// signalPolicy is what signal n does. c.cmu held.
func (c *Client) signalPolicy(n int) SignalPolicy {
	if p, ok := c.sigPolicy[n]; ok {
		return p
	}
	return defaultSignalPolicy(n)
}

// SignalPolicyOf is what signal n does now.
func (c *Client) SignalPolicyOf(n int) SignalPolicy {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	return c.signalPolicy(n)
}

// passed reports whether a signal that stopped the program is delivered when it resumes.
// c.cmu held.
func (c *Client) passed(n int) bool { return n != 0 && c.signalPolicy(n).Pass }

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

// passQuiet resumes a program stopped by a signal that does not stop it (gdb's handle
// nostop; by default the quiet ones) as it was running, delivering the signal when it
// passes, the way gdb lets SIGCHLD through, and saying so when it prints. c.cmu held.
func (c *Client) passQuiet(sr StopReply) (string, bool) {
	if sr.Kind != StopSignal || sr.Reason != "" || sr.Signal == 0 {
		return "", false
	}
	p := c.signalPolicy(sr.Signal)
	if p.Stop {
		return "", false
	}
	if p.Print && c.opts.Output != nil {
		c.opts.Output("\nProgram received signal " + engine.SignalText(SignalName(sr.Signal)) + ".\n")
	}
	if !p.Pass {
		return string(c.lastResume), true
	}
	return c.withSignal(string(c.lastResume), pendingSignal{sr.Signal, sr.Thread})
}

// HandleSignal implements engine.SignalHandler: gdb's handle for a signal named as gdb
// names it.
func (t *Target) HandleSignal(name string, h engine.SignalHandling) error {
	n, ok := SignalNumber(name)
	if !ok {
		return fmt.Errorf("Only signals 1-15 are valid as numeric signals.\nUse \"info signals\" for a list of symbolic signals.")
	}
	return t.c.SetSignalPolicy(n, SignalPolicy(h))
}

// SignalHandling implements engine.SignalHandler.
func (t *Target) SignalHandling(name string) (engine.SignalHandling, error) {
	n, ok := SignalNumber(name)
	if !ok {
		return engine.SignalHandling{}, fmt.Errorf("unknown signal %s", name)
	}
	return engine.SignalHandling(t.c.SignalPolicyOf(n)), nil
}

// SignalNames implements engine.SignalHandler: the signals by GDB's numbers.
func (t *Target) SignalNames() []string {
	var names []string
	for _, s := range gdbSignals {
		if s != "" {
			names = append(names, s)
		}
	}
	return names
}

package engine

import "fmt"

// signalDescriptions are gdb's words for the signals a program most often receives.
var signalDescriptions = map[string]string{
	"SIGHUP": "Hangup", "SIGINT": "Interrupt", "SIGQUIT": "Quit", "SIGILL": "Illegal instruction",
	"SIGTRAP": "Trace/breakpoint trap", "SIGABRT": "Aborted", "SIGBUS": "Bus error",
	"SIGFPE": "Arithmetic exception", "SIGKILL": "Killed", "SIGUSR1": "User defined signal 1",
	"SIGSEGV": "Segmentation fault", "SIGUSR2": "User defined signal 2", "SIGPIPE": "Broken pipe",
	"SIGALRM": "Alarm clock", "SIGTERM": "Terminated", "SIGCHLD": "Child status changed",
	"SIGEMT": "Emulation trap", "SIGSYS": "Bad system call", "SIGURG": "Urgent I/O condition",
	"SIGSTOP": "Stopped (signal)", "SIGTSTP": "Stopped (user)", "SIGCONT": "Continued",
	"SIGTTIN": "Stopped (tty input)", "SIGTTOU": "Stopped (tty output)", "SIGIO": "I/O possible",
	"SIGXCPU": "CPU time limit exceeded", "SIGXFSZ": "File size limit exceeded",
	"SIGVTALRM": "Virtual timer expired", "SIGPROF": "Profiling timer expired",
	"SIGWINCH": "Window size changed", "SIGLOST": "Resource lost", "SIGPWR": "Power fail/restart",
	"SIGPOLL": "Pollable event occurred",
}

// SignalDescription is gdb's description of a signal ("Segmentation fault"), "" for one it
// does not describe.
func SignalDescription(sig string) string { return signalDescriptions[sig] }

// SignalText is a signal as gdb names it when it stops a program: "SIGSEGV, Segmentation
// fault" (the name alone for a signal it does not describe).
func SignalText(sig string) string {
	if d, ok := signalDescriptions[sig]; ok {
		return sig + ", " + d
	}
	return sig
}

// SignalHandling is what a signal does when a native program gets it, as gdb's handle
// says: stop the program, print that it came, pass it to the program.
type SignalHandling struct{ Stop, Print, Pass bool }

// SignalHandler is implemented by targets that get signals (native programs).
type SignalHandler interface {
	HandleSignal(name string, h SignalHandling) error
	SignalHandling(name string) (SignalHandling, error)
	SignalNames() []string // every signal, in the target's order
}

// HandleSignal sets what a signal does from now on (gdb's handle).
func (s *Session) HandleSignal(name string, h SignalHandling) error {
	sh, ok := s.t.(SignalHandler)
	if !ok {
		return fmt.Errorf("signals: %w", ErrUnsupported)
	}
	return sh.HandleSignal(name, h)
}

// SignalHandling is what a signal does now.
func (s *Session) SignalHandling(name string) (SignalHandling, error) {
	sh, ok := s.t.(SignalHandler)
	if !ok {
		return SignalHandling{}, fmt.Errorf("signals: %w", ErrUnsupported)
	}
	return sh.SignalHandling(name)
}

// SignalNames lists the target's signals (none when it gets none).
func (s *Session) SignalNames() []string {
	if sh, ok := s.t.(SignalHandler); ok {
		return sh.SignalNames()
	}
	return nil
}

package engine

// signalDescriptions are gdb's words for the signals a program most often receives.
var signalDescriptions = map[string]string{
	"SIGHUP": "Hangup", "SIGINT": "Interrupt", "SIGQUIT": "Quit", "SIGILL": "Illegal instruction",
	"SIGTRAP": "Trace/breakpoint trap", "SIGABRT": "Aborted", "SIGBUS": "Bus error",
	"SIGFPE": "Arithmetic exception", "SIGKILL": "Killed", "SIGUSR1": "User defined signal 1",
	"SIGSEGV": "Segmentation fault", "SIGUSR2": "User defined signal 2", "SIGPIPE": "Broken pipe",
	"SIGALRM": "Alarm clock", "SIGTERM": "Terminated", "SIGCHLD": "Child status changed",
}

// SignalText is a signal as gdb names it when it stops a program: "SIGSEGV, Segmentation
// fault" (the name alone for a signal it does not describe).
func SignalText(sig string) string {
	if d, ok := signalDescriptions[sig]; ok {
		return sig + ", " + d
	}
	return sig
}

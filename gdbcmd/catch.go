package gdbcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdCatch is gdb's catch syscall [NAME|NUMBER]...: a catchpoint that stops the program
// at the entry and the return of those system calls (of every one without any); catch
// signal [SIGNAL...|all], which numbers those signals' stops; catch fork; catch throw,
// rethrow and catch [REGEX], at a C++ program's exceptions (of the types REGEX matches).
func cmdCatch(d *Debugger, args string) bool {
	what, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch what {
	case "syscall", "signal", "fork", "vfork", "exec", "load", "unload", engine.ExceptionThrow, engine.ExceptionRethrow, engine.ExceptionCatch:
	default:
		d.fail("Undefined catch command: \"%s\".  Try \"help catch\". (polydbg catches system calls, signals, forks, execs, library loads and C++ exceptions: catch syscall [NAME|NUMBER]..., catch signal [SIGNAL...|all], catch fork, catch vfork, catch exec, catch load|unload [REGEX], catch throw|rethrow|catch)\n", what)
		return false
	}
	if d.s.State().Ended() { // for the next run, as gdb keeps it
		if err := d.newSession(); err != nil {
			d.fail("%v\n", err)
			return false
		}
	}
	switch what {
	case "signal":
		d.catchSignals(strings.Fields(rest))
		return false
	case engine.ExceptionThrow, engine.ExceptionRethrow, engine.ExceptionCatch:
		match, ok := d.catchRegexp(rest, "invalid type-matching regexp") // catch throw REGEX: of the types it matches
		if !ok {
			return false
		}
		c, err := d.s.CatchExceptionsMatching(what, match)
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		d.noteBreakpointNumber(c.ID)
		d.printf("Catchpoint %d (%s)\n", c.ID, what)
		return false
	case "load", "unload":
		match, ok := d.catchRegexp(rest, "Invalid regexp") // of the libraries whose path it matches
		if !ok {
			return false
		}
		c, err := d.s.CatchLibraries(what == "unload", match)
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		d.noteBreakpointNumber(c.ID)
		if d.libraryMatches == nil {
			d.libraryMatches = map[int]string{}
		}
		d.libraryMatches[c.ID] = strings.TrimSpace(rest)
		d.printf("Catchpoint %d (%s)\n", c.ID, what)
		return false
	case "exec":
		c, err := d.s.CatchExecs()
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		d.noteBreakpointNumber(c.ID)
		d.printf("Catchpoint %d (exec)\n", c.ID)
		return false
	case "fork", "vfork":
		c, err := d.s.CatchForks(what == "vfork")
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		d.noteBreakpointNumber(c.ID)
		d.printf("Catchpoint %d (%s)\n", c.ID, what)
		return false
	}
	c, err := d.s.CatchSyscalls(strings.Fields(rest))
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	d.noteBreakpointNumber(c.ID)
	if c.All {
		d.printf("Catchpoint %d (any syscall)\n", c.ID)
		return false
	}
	calls := make([]string, len(c.Calls))
	for i, n := range c.Calls {
		calls[i] = fmt.Sprintf("'%s' [%d]", callName(c.Names[i], n), n)
	}
	plural := "syscall"
	if len(calls) > 1 {
		plural = "syscalls"
	}
	d.printf("Catchpoint %d (%s %s)\n", c.ID, plural, strings.Join(calls, " "))
	return false
}

// catchRegexp is a catchpoint's REGEX argument, a basic regular expression as gdb reads
// one, in Go's syntax ("" for none); false, said with gdb's words for it, when it is not
// one.
func (d *Debugger) catchRegexp(arg, invalid string) (string, bool) {
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return "", true
	}
	re, err := compileBRE(arg)
	if err != nil {
		d.fail("%s: %v\n", invalid, err)
		return "", false
	}
	return re.String(), true
}

// callName is a system call's name, or its number when the target cannot name it.
func callName(name string, n int) string {
	if name == "" {
		return strconv.Itoa(n)
	}
	return name
}

// catchSignals is gdb's catch signal [SIGNAL...|all].
func (d *Debugger) catchSignals(names []string) {
	all := len(names) == 1 && names[0] == "all"
	if all {
		names = nil
	}
	for _, n := range names {
		if _, err := d.s.SignalHandling(n); err != nil || !strings.HasPrefix(n, "SIG") {
			d.fail("Unknown signal name '%s'.\n", n)
			return
		}
	}
	c, err := d.s.CatchSignals(names, all)
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	d.noteBreakpointNumber(c.ID)
	d.printf("Catchpoint %d (%s)\n", c.ID, signalsCaught(c, false))
}

// signalsCaught says what a signal catchpoint catches, as gdb: "signal SIGUSR1", "signals
// SIGUSR1 SIGUSR2", "standard signals", "any signal"; quoted as info breakpoints has it.
func signalsCaught(c engine.Catchpoint, quoted bool) string {
	q := func(s string) string {
		if quoted {
			return `"` + s + `" `
		}
		return s
	}
	switch {
	case c.AnySignal:
		return map[bool]string{false: "any signal", true: `signal "<any signal>" `}[quoted]
	case len(c.Signals) == 0:
		return map[bool]string{false: "standard signals", true: `signal "<standard signals>" `}[quoted]
	case len(c.Signals) == 1:
		return "signal " + q(c.Signals[0])
	}
	return "signals " + q(strings.Join(c.Signals, " "))
}

// catchpointRows are info breakpoints' rows of the catchpoints.
func (d *Debugger) catchpointRows() []bpRow {
	var rows []bpRow
	for _, c := range d.s.Catchpoints() {
		what := `syscall "<any syscall>" `
		placed := false
		if c.Exception != "" {
			what, placed = "exception "+c.Exception, true
		} else if c.OnSignals {
			what = signalsCaught(c, true)
		} else if c.OnLibrary {
			what = map[bool]string{false: "load of library", true: "unload of library"}[c.Unload]
			if m := d.libraryMatches[c.ID]; m != "" {
				what += " matching " + m
			}
		} else if c.OnExec {
			what = "exec"
			if c.Program != "" {
				what = fmt.Sprintf("exec, program %q ", c.Program)
			}
		} else if c.OnFork {
			what = forkKind(c)
			if c.Child != 0 {
				what = fmt.Sprintf("%s, process %d ", what, c.Child)
			}
		} else if !c.All {
			names := make([]string, len(c.Calls))
			for i, n := range c.Calls {
				names[i] = callName(c.Names[i], n)
			}
			what = fmt.Sprintf(`syscall "%s" `, strings.Join(names, ", "))
			if len(names) > 1 {
				what = fmt.Sprintf(`syscalls "%s" `, strings.Join(names, ", "))
			}
		}
		r := bpRow{id: c.ID, num: strconv.Itoa(c.ID), kind: "catchpoint", disp: "keep", on: "y", what: what, placed: placed}
		if c.Disabled {
			r.on = "n"
		}
		if c.Match != "" && !c.OnLibrary {
			r.notes = append(r.notes, "\tmatching: "+c.Match)
		}
		if c.Hits == 1 {
			r.notes = append(r.notes, "\tcatchpoint already hit 1 time")
		} else if c.Hits > 1 {
			r.notes = append(r.notes, fmt.Sprintf("\tcatchpoint already hit %d times", c.Hits))
		}
		rows = append(rows, r)
	}
	return rows
}

// reportSyscall tells a stop at a caught system call as gdb does: "Catchpoint 1 (call to
// syscall write), " before where the program is.
func (d *Debugger) reportSyscall(st *engine.Stop, hit, where string) {
	call := "call to"
	if st.Syscall == nil {
		st.Syscall = &engine.SyscallStop{}
	}
	if st.Syscall.Returned {
		call = "returned from"
	}
	d.printf("\n%sCatchpoint %d (%s syscall %s), %s\n", hit, st.BreakpointID, call, callName(st.Syscall.Name, st.Syscall.Num), where)
}

// forkKind is what a fork catchpoint catches: "fork" or "vfork".
func forkKind(c engine.Catchpoint) string {
	if c.Vfork {
		return "vfork"
	}
	return "fork"
}

// reportLibraries tells a stop at a change of the loaded libraries as gdb does: a catch
// load's "Catchpoint 1" and the changes, "  Inferior loaded /tmp/libplug.so", before where
// the program is; set stop-on-solib-events's "Stopped due to shared library event:" and the
// changes alone.
func (d *Debugger) reportLibraries(st *engine.Stop, hit string, where func() string) {
	var changes strings.Builder
	for _, c := range engine.LibraryChanges(*st) {
		verb := "loaded"
		if c.Unloaded {
			verb = "unloaded"
		}
		fmt.Fprintf(&changes, "  Inferior %s %s\n", verb, c.Path)
	}
	switch {
	case st.BreakpointID != 0:
		d.printf("\n%sCatchpoint %d\n%s%s\n", hit, st.BreakpointID, changes.String(), where())
	case changes.Len() == 0:
		d.printf("Stopped due to shared library event (no libraries added or removed)\n")
	default:
		d.printf("Stopped due to shared library event:\n%s", changes.String())
	}
}

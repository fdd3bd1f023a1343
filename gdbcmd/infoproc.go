package gdbcmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// infoInferiors is gdb's info inferiors: the one program polydbg debugs, its process while
// it lives, how it is reached, and its file, in gdb's table; after the child of a fork was
// followed, the processes let go before it are there without one, as gdb keeps them.
func (d *Debugger) infoInferiors() {
	desc, conn, exe := "<null>", "", ""
	if d.live() {
		if pid := d.s.ProcessID(); pid > 0 {
			desc = fmt.Sprintf("process %d", pid)
		}
		if c, ok := d.s.Target().(engine.Connection); ok {
			conn = "1 (" + c.Connection() + ")"
		}
	}
	exe = d.executable()
	width := max(20, len(conn))
	d.printf("  %-4s %-17s %-*s %-17s \n", "Num", "Description", width, "Connection", "Executable")
	cur, parent := d.s.Inferior(), 0
	for n := 1; n < cur; n++ {
		file, held := d.s.InferiorFile(n)
		file, _ = filepath.Abs(file)
		if held == 0 {
			d.printf("  %-4d %-17s %-*s %-17s \n", n, "<null>", width, "", file)
			continue
		}
		d.printf("  %-4d %-17s %-*s %-17s \n\tis vfork parent of inferior %d\n", n, fmt.Sprintf("process %d", held), width, conn, file, n+1)
		parent = n
	}
	d.printf("* %-4d %-17s %-*s %-17s \n", cur, desc, width, conn, exe)
	if parent > 0 {
		d.printf("\tis vfork child of inferior %d\n", parent)
	}
}

// procWhat are the answers of info proc WHAT, in gdb's order: the files of /proc they read.
var procWhat = map[string][]string{"": {"cmdline", "cwd", "exe"}, "cmdline": {"cmdline"}, "cwd": {"cwd"},
	"exe": {"exe"}, "mappings": {"maps"}, "status": {"status"}, "stat": {"stat"},
	"all": {"cmdline", "cwd", "exe", "maps", "status", "stat"}}

// infoProc is gdb's info proc [WHAT] [PID] for the debugged process: its command line,
// directory and executable (the default), memory mappings or status, as the system tells
// them. Another process's are not read: a guest's user could otherwise read any process
// polydbg may.
func (d *Debugger) infoProc(args string) {
	fields := strings.Fields(args)
	what := ""
	if len(fields) > 0 {
		if _, err := strconv.Atoi(fields[0]); err != nil {
			what, fields = fields[0], fields[1:]
		}
	}
	files, ok := procWhat[what]
	if !ok {
		d.fail("info proc %s: not supported by polydbg (cmdline, cwd, exe, mappings, status, stat and all are).\n", what)
		return
	}
	pid := 0
	if d.live() {
		pid = d.s.ProcessID()
	}
	switch {
	case len(fields) > 1:
		d.fail("Too many parameters: %s\n", strings.Join(fields, " "))
		return
	case len(fields) == 1 && (pid <= 0 || fields[0] != strconv.Itoa(pid)):
		d.fail("polydbg reads the /proc files of the program it debugs only.\n")
		return
	case pid <= 0:
		d.fail("No current process: you must name one.\n")
		return
	}
	pf, ok := d.s.Target().(engine.ProcFiles)
	texts, errs := make([]string, len(files)), make([]error, len(files))
	for i, name := range files {
		if ok {
			texts[i], errs[i] = pf.ProcFile(name)
		}
		if !ok || errors.Is(errs[i], engine.ErrUnsupported) { // firmware, a program on another machine
			d.fail("Not supported on this target.\n")
			return
		}
	}
	d.printf("process %d\n", pid)
	for i, name := range files {
		text, err := texts[i], errs[i]
		if err != nil {
			d.printf("warning: unable to read '/proc/%d/%s': %s\n", pid, name, explain(err))
			continue
		}
		switch name {
		case "cmdline":
			d.printf("cmdline = '%s'\n", strings.ReplaceAll(strings.TrimRight(text, "\x00"), "\x00", " "))
		case "cwd", "exe":
			d.printf("%s = '%s'\n", name, text)
		case "status":
			d.printf("%s", text)
		case "maps":
			d.printMappings(text)
		case "stat":
			d.printStat(text)
		}
	}
}

// printMappings is /proc/PID/maps as gdb's info proc mappings shows it.
func (d *Debugger) printMappings(maps string) {
	d.printf("Mapped address spaces:\n\n")
	d.printf("%20s %18s %10s %10s  %-5s  %s\n", "Start Addr", "End Addr", "Size", "Offset", "Perms", "objfile")
	for _, line := range strings.Split(maps, "\n") {
		f := strings.Fields(line) // start-end perms offset dev inode [path]
		if len(f) < 5 {
			continue
		}
		lo, hi, _ := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		off, err3 := strconv.ParseUint(f[2], 16, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		path := ""
		if len(f) > 5 {
			path = strings.Join(f[5:], " ")
		}
		d.printf("%20s %18s %10s %10s  %-5s  %s\n", fmt.Sprintf("%#x", start), fmt.Sprintf("%#x", end),
			fmt.Sprintf("%#x", end-start), fmt.Sprintf("%#x", off), f[1], path)
	}
}

// statFields are gdb's words for the fields of /proc/PID/stat it shows, in order from the
// third (after the pid and the command); "x" marks the ones it shows in hex, "u" one it
// shows as unsigned.
var statFields = []struct{ label, how string }{
	{"State", ""}, {"Parent process", ""}, {"Process group", ""}, {"Session id", ""}, {"TTY", ""},
	{"TTY owner process group", "u"}, {"Flags", "x"}, {"Minor faults (no memory page)", ""},
	{"Minor faults, children", ""}, {"Major faults (memory page faults)", ""}, {"Major faults, children", ""},
	{"utime", ""}, {"stime", ""}, {"utime, children", ""}, {"stime, children", ""},
	{"jiffies remaining in current time slice", ""}, {"'nice' value", ""}, {"jiffies until next timeout", ""},
	{"jiffies until next SIGALRM", ""}, {"start time (jiffies since system boot)", ""}, {"Virtual memory size", ""},
	{"Resident set size", ""}, {"rlim", "u"}, {"Start of text", "x"}, {"End of text", "x"}, {"Start of stack", "x"},
}

// printStat is /proc/PID/stat as gdb's info proc stat shows it: each field with its name.
func (d *Debugger) printStat(stat string) {
	open, end := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return
	}
	d.printf("Process: %s\n", strings.TrimSpace(stat[:open]))
	d.printf("Exec file: %s\n", stat[open+1:end])
	for i, v := range strings.Fields(stat[end+1:]) {
		if i >= len(statFields) {
			break
		}
		f := statFields[i]
		switch n, err := strconv.ParseInt(v, 10, 64); {
		case err != nil:
			d.printf("%s: %s\n", f.label, v)
		case f.how == "x":
			d.printf("%s: %#x\n", f.label, uint64(n))
		case f.how == "u":
			d.printf("%s: %d\n", f.label, uint64(n))
		default:
			d.printf("%s: %d\n", f.label, n)
		}
	}
}

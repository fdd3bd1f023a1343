package gdbcmd

import (
	"io"
	"os"
	"strings"
)

// gdb's set logging: the debugger's answers copied to a file (gdb.txt unless set logging
// file says), appended to unless overwrite is on, and shown on the screen too unless
// redirect is on. The program's own output is not logged, as gdb's is not.

// logging is the set logging settings and the file being written.
type logging struct {
	file                         string // "" is gdb.txt
	overwrite, redirect, enabled bool
	open                         *os.File
	screen                       io.Writer // d.out's writer when logging began
}

func (l *logging) name() string {
	if l.file == "" {
		return "gdb.txt"
	}
	return l.file
}

// setLogging is set logging enabled|file|overwrite|redirect|on|off VALUE.
func (d *Debugger) setLogging(args string) {
	what, val, _ := strings.Cut(strings.TrimSpace(args), " ")
	val = strings.TrimSpace(val)
	l := &d.logging
	switch what {
	case "on", "off": // gdb's deprecated alias of set logging enabled
		d.printf("Warning: 'set logging %s', an alias for the command 'set logging enabled', is deprecated.\nUse 'set logging enabled %s'.\n\n", what, what)
		d.enableLogging(what == "on")
	case "enabled":
		on := l.enabled
		if d.setOnOff(&on, val); !d.failed {
			d.enableLogging(on)
		}
	case "file":
		if val == "" {
			d.fail("Argument required (filename to set it to.).\n")
			return
		}
		l.file = val
		d.warnLogging()
	case "overwrite", "redirect":
		on := map[string]*bool{"overwrite": &l.overwrite, "redirect": &l.redirect}[what]
		if d.setOnOff(on, val); !d.failed {
			d.warnLogging()
		}
	default:
		d.fail("Undefined set logging command: \"%s\".  Try \"help set logging\".\n", what)
	}
}

// warnLogging says, as gdb does, that a setting changed while logging waits for logging to
// begin again.
func (d *Debugger) warnLogging() {
	if d.logging.enabled {
		d.printf("warning: Currently logging to %s.  Turn the logging off and on to make the new setting effective.\n", d.logging.name())
	}
}

// enableLogging starts or stops copying the debugger's answers to the log file.
func (d *Debugger) enableLogging(on bool) {
	l := &d.logging
	if on == l.enabled {
		return
	}
	if !on {
		d.out.Swap(l.screen)
		_ = l.open.Close()
		l.open, l.enabled = nil, false
		return
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if l.overwrite {
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(l.name(), flags, 0o644)
	if err != nil {
		d.fail("%s: %v\n", l.name(), err)
		return
	}
	if d.fromUser() {
		d.printf("Copying output to %s.\nCopying debug output to %s.\n", l.name(), l.name())
	}
	l.open, l.enabled = f, true
	l.screen = d.out.Swap(nil)
	if l.redirect {
		d.out.Swap(f)
	} else {
		d.out.Swap(io.MultiWriter(l.screen, f))
	}
}

func (d *Debugger) showLogging() {
	l := &d.logging
	d.printf("logging debugredirect:  off: Debug output will go to both the screen and the log file.\n")
	if l.enabled {
		d.printf("logging enabled:  on: Logging is enabled.\n")
	} else {
		d.printf("logging enabled:  off: Logging is disabled.\n")
	}
	d.printf("logging file:  The current logfile is \"%s\".\n", l.name())
	if l.overwrite {
		d.printf("logging overwrite:  on: Logging overwrites the log file.\n")
	} else {
		d.printf("logging overwrite:  off: Logging appends to the log file.\n")
	}
	if l.redirect {
		d.printf("logging redirect:  on: Output will go only to the log file.\n")
	} else {
		d.printf("logging redirect:  off: Output will go to both the screen and the log file.\n")
	}
}

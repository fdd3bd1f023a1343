package gdbcmd

// gdb's handle and info signals: what a native program's signals do.

import (
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdHandle is gdb's handle SIGNAL [KEYWORD...]: stop/nostop, print/noprint,
// pass/nopass (noignore/ignore); stop implies print, noprint nostop, as in gdb. The
// setting is kept across runs. It shows the signal's row of the table.
func cmdHandle(d *Debugger, args string) bool {
	words := strings.Fields(args)
	if len(words) == 0 {
		d.fail("Argument required (signal to handle and what to do with it).\n")
		return false
	}
	name := words[0]
	h, err := d.s.SignalHandling(name)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	for _, w := range words[1:] {
		switch w {
		case "stop":
			h.Stop, h.Print = true, true
		case "nostop":
			h.Stop = false
		case "print":
			h.Print = true
		case "noprint":
			h.Print, h.Stop = false, false
		case "pass", "noignore":
			h.Pass = true
		case "nopass", "ignore":
			h.Pass = false
		default:
			d.fail("Unrecognized or ambiguous flag word: %q.\n", w)
			return false
		}
	}
	if len(words) > 1 {
		if err := d.s.HandleSignal(name, h); err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		if d.signals == nil {
			d.signals = map[string]engine.SignalHandling{}
		}
		d.signals[name] = h
	}
	if !d.cfg.Batch && !d.quiet { // gdb's handle shows the row when typed, not in a script
		d.signalTable([]string{name})
	}
	return false
}

// infoSignals is gdb's info signals [SIGNAL]: the table of what each signal does.
func (d *Debugger) infoSignals(args string) {
	names := strings.Fields(args)
	if len(names) == 0 {
		if names = d.s.SignalNames(); len(names) == 0 {
			d.fail("%s\n", explain(engine.ErrUnsupported))
			return
		}
	}
	if d.signalTable(names) && len(strings.Fields(args)) == 0 {
		d.printf("\nUse the \"handle\" command to change these tables.\n")
	}
}

// signalTable prints gdb's table of the named signals; false when one is unknown (said).
func (d *Debugger) signalTable(names []string) bool {
	yes := map[bool]string{true: "Yes", false: "No"}
	d.printf("Signal        Stop\tPrint\tPass to program\tDescription\n")
	for _, name := range names {
		h, err := d.s.SignalHandling(name)
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		sig := strings.ToUpper(name)
		if !strings.HasPrefix(sig, "SIG") {
			sig = "SIG" + sig
		}
		d.printf("%-13s %s\t%s\t%s\t\t%s\n", sig, yes[h.Stop], yes[h.Print], yes[h.Pass], engine.SignalDescription(sig))
	}
	return true
}

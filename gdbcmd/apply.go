package gdbcmd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// gdb's frame apply and thread apply: one command run in several frames or threads, each
// under a header, with gdb's flags -q (no headers), -c (an error is said and the next one
// goes on) and -s (a frame or thread whose command fails is left out, silently). Without
// -c or -s an error ends the apply, as gdb's.

// applyFlags are the flags before an apply's command.
type applyFlags struct{ quiet, cont, silent bool }

// cutApplyFlags reads -q, -c, -s (and --, which ends them) off the front of args.
func cutApplyFlags(args string) (applyFlags, string) {
	var f applyFlags
	for {
		word, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
		switch word {
		case "-q":
			f.quiet = true
		case "-c":
			f.cont = true
		case "-s":
			f.silent = true
		case "--":
			return f, strings.TrimSpace(rest)
		default:
			return f, strings.TrimSpace(args)
		}
		args = rest
	}
}

// applyOne runs cmd after header (unless quiet), as the flags say; false when an error
// ends the apply.
func (d *Debugger) applyOne(f applyFlags, header, cmd string) bool {
	if !f.silent {
		if !f.quiet {
			d.printf("%s", header)
		}
		d.failed = false
		d.exec(cmd)
		if d.failed && f.cont {
			d.failed = false
		}
		return !d.failed
	}
	out := d.out // -s: what a failing command says is dropped with its header
	var buf bytes.Buffer
	d.out, d.failed = wire.NewSyncWriter(&buf), false
	d.exec(cmd)
	d.out = out
	if !d.failed {
		if !f.quiet {
			d.printf("%s", header)
		}
		d.printf("%s", buf.Bytes())
	}
	d.failed = false
	return true
}

// frameApply is gdb's frame apply all|N|-N|level L... [FLAGS] COMMAND.
func (d *Debugger) frameApply(args string) {
	frames, err := d.s.Stack()
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	word, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	var levels []int
	switch n, isNum := atoi(word); {
	case word == "all":
		for i := range frames {
			levels = append(levels, i)
		}
	case word == "level":
		var lv []int
		lv, rest = frameLevels(rest)
		if len(lv) == 0 {
			d.fail("Missing or invalid LEVEL... argument\n")
			return
		}
		for _, l := range lv {
			if l < len(frames) {
				levels = append(levels, l)
			}
		}
	case isNum && n > 0:
		for i := 0; i < min(n, len(frames)); i++ {
			levels = append(levels, i)
		}
	case isNum && n < 0:
		for i := max(0, len(frames)+n); i < len(frames); i++ {
			levels = append(levels, i)
		}
	default:
		d.fail("Missing COUNT argument.\n")
		return
	}
	flags, cmd := cutApplyFlags(rest)
	if cmd == "" {
		d.fail("Please specify a command to apply on the selected frames\n")
		return
	}
	selected := d.frame
	defer func() { d.frame = selected }()
	for _, l := range levels {
		d.frame = l
		header := fmt.Sprintf("#%-2d %s\n", frames[l].Index, d.frameLine(frames[l], d.frameMidLine(frames[l])))
		if !d.applyOne(flags, header, cmd) {
			return
		}
	}
}

// frameLevels reads frame apply level's list ("1-2 4") off the front of args.
func frameLevels(args string) ([]int, string) {
	var levels []int
	for {
		word, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
		lo, hi, isRange := strings.Cut(word, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a || b-a > maxRange {
			return levels, strings.TrimSpace(args)
		}
		for l := a; l <= b; l++ {
			levels = append(levels, l)
		}
		args = rest
	}
}

// cmdFaas is gdb's faas COMMAND: frame apply all -s COMMAND.
func cmdFaas(d *Debugger, args string) bool {
	d.frameApply("all -s " + args)
	return false
}

// cmdTaas is gdb's taas COMMAND: thread apply all -s COMMAND.
func cmdTaas(d *Debugger, args string) bool {
	d.threadApply("all -s " + args)
	return false
}

// cmdTfaas is gdb's tfaas COMMAND: in every thread, in every frame, silently.
func cmdTfaas(d *Debugger, args string) bool {
	d.threadApply("all -s -- frame apply all -s " + args)
	return false
}

// threadsApplied are the threads thread apply names: all (the highest number first, as
// gdb orders them) or numbers and ranges ("1 3-4"); the rest of args after them.
func (d *Debugger) threadsApplied(ts []engine.Thread, args string) ([]engine.Thread, string, bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	if word == "all" {
		chosen := make([]engine.Thread, 0, len(ts))
		for i := len(ts) - 1; i >= 0; i-- {
			chosen = append(chosen, ts[i])
		}
		return chosen, rest, true
	}
	nums, rest := frameLevels(args)
	var chosen []engine.Thread
	for _, n := range nums {
		found := false
		for _, t := range ts {
			if t.Num == n {
				chosen, found = append(chosen, t), true
			}
		}
		if !found {
			d.printf("warning: Unknown thread %d\n", n) // gdb goes on with the others
		}
	}
	if len(nums) == 0 {
		d.fail("Please specify a thread ID list\n")
		return nil, "", false
	}
	return chosen, rest, true
}

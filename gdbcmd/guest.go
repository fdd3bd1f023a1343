package gdbcmd

import (
	"bytes"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// A guest debugger: gdb's commands on a session another front end drives and reports
// (DAP's debug console, MCP's gdb tool), which keeps running the program to itself.

// Attach makes a debugger on a session another front end drives (DAP's debug console,
// MCP's gdb tool): its commands inspect the program and set breakpoints, displays and
// values, and the ones that run, replace or end the program, or read files, are refused.
func Attach(s *engine.Session, cfg Config) *Debugger {
	cfg.NewSession = nil
	d := &Debugger{cfg: cfg, out: wire.NewSyncWriter(cfg.Out), s: s, guest: true, context: cfg.Context, limits: gdbPrintLimits}
	d.current.Store(s)
	s.UseHistory(&d.values)
	return d
}

// refused says (and reports whether) a command is not this debugger's to run: a guest's
// run control, or a read-only debugger's write.
func (d *Debugger) refused(name, args string) bool {
	switch {
	case d.guest && hostOnly[name]:
		d.fail("%s: not here; the program is run from the debugger this console belongs to.\n", name)
	case d.guest && name == "set" && strings.HasPrefix(args, "logging"): // it writes the machine's files
		d.fail("set logging: not here; the debugger this console belongs to writes no files for it.\n")
	case d.cfg.ReadOnly && writes(name, args):
		d.fail("%s: refused; this debugger may not change the program's memory or registers, or run its code.\n", name)
	case runsProgram[name] && d.s.PostMortem(): // a core dump's program, in gdb's words
		switch name {
		case "kill", "detach":
			if name == "kill" {
				d.query("Kill the program being debugged? ")
			}
			d.fail("You can't do that without a process to debug.\n")
		case "run", "start", "starti", "restart":
			d.fail("%s: polydbg reads the core dump only; run the program itself with polydbg debug PROG.\n", name)
		default:
			d.fail("The program is not being run.\n")
		}
	default:
		return false
	}
	return true
}

// runsProgram are the commands that need a live program: refused on a core dump's.
var runsProgram = map[string]bool{"run": true, "start": true, "starti": true, "restart": true, "continue": true, "step": true,
	"next": true, "finish": true, "stepi": true, "nexti": true, "until": true, "advance": true, "jump": true,
	"interrupt": true, "kill": true, "detach": true, "return": true, "call": true}

// hostOnly are the commands a guest debugger (Attach) refuses: they run, replace or end
// the program, whose runs its host front end reports, or they read the machine's files or
// run its commands.
var hostOnly = map[string]bool{"run": true, "start": true, "starti": true, "restart": true, "continue": true, "step": true,
	"next": true, "finish": true, "stepi": true, "nexti": true, "until": true, "advance": true, "jump": true,
	"interrupt": true, "kill": true, "detach": true, "gcore": true, "source": true, "shell": true, "pwd": true, "save": true, "quit": true, "commands": true, "define": true, "if": true, "while": true}

// ResumeMode is the engine's way of running the program for a gdb command that a host front
// end runs itself, by its own resume and events (DAP's -exec next): continue, next, step,
// finish and stepi without arguments, by any of their names. false for any other line.
func ResumeMode(line string) (engine.ResumeMode, bool) {
	word, args, _ := strings.Cut(strings.TrimSpace(line), " ")
	c, err := lookup(word)
	if err != nil || strings.TrimSpace(args) != "" {
		return 0, false
	}
	mode, ok := map[string]engine.ResumeMode{"continue": engine.Continue, "next": engine.StepOver, "step": engine.StepInto,
		"finish": engine.StepOut, "stepi": engine.StepInstruction}[c.name]
	return mode, ok
}

// writes reports whether a command changes the program: call, and set with an assignment
// (set var X = V, set X = V, set $REG = V) rather than a setting.
func writes(name, args string) bool {
	if name == "call" || name == "return" {
		return true
	}
	if name == "print" {
		_, expr, err := splitFormat(args)
		_, effect := parseSideEffect(expr)
		return err == nil && effect
	}
	_, _, assigns := cutAssign(strings.TrimPrefix(strings.TrimPrefix(args, "variable "), "var "))
	return name == "set" && (assigns || strings.HasPrefix(args, "$"))
}

// MaxAnswer bounds the text of one command's answer to a Guest.
const MaxAnswer = 64 << 10

// Guest runs gdb's commands, one at a time, for a front end that answers each with its
// text (DAP's -exec, MCP's gdb tool, the web view's console): a guest debugger (Attach) of
// the session it is given, made again when that session changes (a restart), so that the
// value history lives as long as the session. The zero value is ready to use.
type Guest struct {
	ReadOnly bool // refuse set var, set $REG and call (Config.ReadOnly)

	mu  sync.Mutex
	d   *Debugger
	of  *engine.Session
	out bytes.Buffer
}

// debugger is g's debugger of session s; g.mu held.
func (g *Guest) debugger(s *engine.Session) *Debugger {
	if g.d == nil || g.of != s {
		g.d, g.of = Attach(s, Config{Out: &g.out, ReadOnly: g.ReadOnly}), s
	}
	return g.d
}

// Run runs line on session s with frame selected and returns what it printed, clipped to
// MaxAnswer bytes.
func (g *Guest) Run(s *engine.Session, frame int, line string) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	d := g.debugger(s)
	g.out.Reset()
	d.SelectFrame(frame)
	d.Exec(strings.TrimSpace(line), true)
	if g.out.Len() > MaxAnswer {
		return string(g.out.Bytes()[:MaxAnswer]) + "\n(output clipped)\n"
	}
	return g.out.String()
}

// Complete is Debugger.Complete on session s.
func (g *Guest) Complete(s *engine.Session, line string) (head string, cands []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.debugger(s).Complete(line)
}

// Package gdbcmd is gdb's command language over an engine.Session: gdb's command names,
// short forms and output, for any target. The terminal (protocol/cli) reads its commands
// from a user; DAP's debug console (-exec) and MCP's gdb tool run them on a session they
// drive themselves, as gdb's MI runs console commands (-interpreter-exec console).
package gdbcmd

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// Config says what to debug and where to write.
type Config struct {
	Out io.Writer // the debugger's own text and, when it owns the session, the program's output
	// NewSession makes a fresh, unstarted session of the program: at start and for
	// run/restart after the program ended.
	NewSession func() (*engine.Session, error)
	// Color writes source lines with syntax colour (only for a terminal without NO_COLOR).
	Color bool
	// Context shows source, stack, locals and registers after each stop (set context on|off).
	Context bool
	// Attached says the program is there already, halted (firmware in QEMU or behind a GDB
	// stub): continue starts it, as gdb's continue does after target remote.
	Attached bool
	// Attach says the program is a running process that NewSession attaches to (gdb -p
	// PID): the session starts at once with the process stopped where it was found, quit
	// and the end of the session detach from it, and run cannot start it again.
	Attach bool
	// ReadOnly refuses the commands that change the program's memory or registers or run
	// its code: set var, set $REG, call, return (a guest of a server not allowed to write).
	ReadOnly bool
	// Batch is gdb's -batch: the session ends after its commands (a few messages differ).
	Batch bool
	// Marks makes list mark the selected frame's line ('>') and the lines with a
	// breakpoint ('*') in a column before the line numbers (a terminal's); without, list
	// prints lines as gdb does ("12\tcode"), for scripts and tools that read gdb's.
	Marks bool
	// Confirm asks the user a yes-or-no question typed at a terminal (gdb's query: kill, run
	// again, quit with the program alive) and returns the answer. Nil when the commands do
	// not come from a terminal: as gdb, kill, return and quit then say the question and
	// answer yes themselves, and run does not ask.
	Confirm func(question string) bool
	// Program is the absolute path of the program run, for gdb's "Starting program: PATH
	// ARGS" before a run ("" says none: a Kite program, firmware).
	Program string
	// Args are the program's arguments at start; NewSessionFor, when set, makes a fresh
	// session of the program started another way (run ARGS, set args, set environment).
	// Without it the arguments and environment are fixed.
	Args          []string
	NewSessionFor func(run Run) (*engine.Session, error)
}

// sourceLine is where a file read by source (or -x) is.
type sourceLine struct {
	file string
	line int
}

// fail says an error as gdb's error() does, and marks the command failed: a file read by
// source, a command list, a user command or a block it is part of stops there, as gdb's
// do. In a file, gdb's "FILE:LINE: Error in sourced command file:" comes first (for each
// file, when one sourced another).
func (d *Debugger) fail(format string, args ...any) {
	for _, at := range d.sourcing { // a file sourced by another: each, the outermost first
		if !d.failed {
			d.printf("%s:%d: Error in sourced command file:\n", at.file, at.line)
		}
	}
	d.failed = true
	d.printf(format, args...)
}

// Failed reports whether the last command run said an error (gdb -batch's exit status).
func (d *Debugger) Failed() bool { return d.failed }

// query asks question as gdb's query does (kill), answering yes itself without a terminal.
func (d *Debugger) query(question string) bool {
	if d.settings.noConfirm { // set confirm off: yes, unasked
		return true
	}
	if d.cfg.Confirm == nil {
		d.printf("%s(y or n) [answered Y; input not from terminal]\n", question)
		return true
	}
	return d.cfg.Confirm(question + "(y or n) ")
}

// Debugger is one gdb command session.
type Debugger struct {
	cfg    Config
	out    *wire.SyncWriter // the debugger's writes, serialised with the program output it forwards
	s      *engine.Session
	output *output              // prints the session's program output as it comes (nil when guest)
	held   *engine.Subscription // output's, held while a command runs (hold, release)
	// guest says the session is another front end's (Attach): it runs the program, and
	// the commands that would run or replace it, or read files, are refused.
	guest bool
	// current is d.s for the Ctrl-C handler, which runs on another goroutine; pendingPause
	// is a Ctrl-C that came since the last prompt, perhaps before the program was resumed.
	current            atomic.Pointer[engine.Session]
	pendingPause       atomic.Bool
	frame              int
	history            []string
	lastCmd            string
	listAt             int                              // next line for a bare "list"
	listFirst          int                              // the first line the last list showed (for list -)
	listFile           string                           // the file the last list showed, or the stop's
	lastListed         int                              // where search goes on from (gdb's last_line_listed)
	lastSearch         string                           // search's last regular expression
	values             engine.ValueHistory              // gdb's $1, $2...
	context            bool                             // set context on|off
	pretty             bool                             // set print pretty on|off
	limits             engine.PrintLimits               // set print elements|repeats N
	examined           examineState                     // x's last format, unit and the address after it
	listLines          int                              // set listsize N
	stopThread         uint64                           // the thread of the last stop, or the one selected when the program was resumed
	cmds               commandLists                     // breakpoints' command lists (cmdlists.go)
	quiet              bool                             // running a command list: gdb's from_tty off (no "Continuing.")
	temporary          map[int]bool                     // tbreak's breakpoints, for gdb's words at their hit
	byCount            map[int]bool                     // breakpoints enabled with enable count N: their count is listed
	bareBreaks         map[int]bool                     // set by break without a location: listed without their function, as gdb's
	locationText       map[int]string                   // where a breakpoint was asked to be, as typed (save breakpoints)
	momentary          int                              // advance's breakpoint, while it runs: its hit is told as a plain stop
	insnDisplays       map[int]int                      // display/i: the display's number, how many instructions
	lastFrame          stopFrame                        // the frame of the last stop reported
	midLine            bool                             // that stop is in the middle of a line (after finish)
	pcDigits           int                              // hex digits of the target's pc, once known
	sourceDepth        int                              // files being read by source, one inside another
	sourcing           []sourceLine                     // the line each of them is at
	failed             bool                             // the command being run said an error (fail)
	signals            map[string]engine.SignalHandling // handle's settings, kept across runs
	libraryMatches     map[int]string                   // catch load's and unload's expressions, as given
	threadNames        map[uint64]string                // thread name's names, by thread id
	displayOff         map[int]bool                     // the displays disable display turned off
	displayScope       map[int]string                   // the function whose locals a display reads (displayScopeOf)
	displayTyped       map[int]string                   // a display's expression as typed, where the engine's binds a name (displayScopeOf)
	frameArgs          string                           // set print frame-arguments ("": scalars)
	frameInfo          string                           // set print frame-info ("": auto)
	atFirstInstruction bool                             // starti's stop is to be told
	startup            runSettings                      // how the next run starts the program (run.go)
	ranOnce            bool                             // the program has been run: addresses are the loaded ones from then on
	settings           settings                         // confirm, pagination, height, width, verbose, disassembly-flavor (settings.go)
	srcPath            engine.SourcePath                // directory and set substitute-path (srcpath.go)
	lastSource         string                           // the file whose lines were last shown or said missing (noSource)
	lastSourceMissing  bool
	skips              []skipEntry // functions and files step passes over (skip.go)
	skipsMade          int         // the skips made, deleted ones too: the next one's number
	logging            logging     // set logging (logging.go)
}

// examineState is what x remembers between runs of it, as gdb's.
type examineState struct {
	format byte
	unit   int
	count  int
	next   uint64 // the address after the last unit shown
	valid  bool
}

// gdbPrintLimits are gdb's defaults of print elements and print repeats.
var gdbPrintLimits = engine.PrintLimits{Elements: 200, Repeats: 10}

// stopFrame tells one frame from another between stops, as gdb's frame ids do for a step:
// its function and how deep it is.
type stopFrame struct {
	fn    string
	depth int
}

// New starts a debugger that owns its sessions: it makes the first with cfg.NewSession,
// runs the program and prints its output.
func New(cfg Config) (*Debugger, error) {
	d := &Debugger{cfg: cfg, out: wire.NewSyncWriter(cfg.Out), context: cfg.Context, limits: gdbPrintLimits}
	if err := d.newSession(); err != nil {
		return nil, err
	}
	for _, w := range d.s.LoadWarnings() { // as gdb says them when it reads the program
		d.printf("%s\n", w)
	}
	switch {
	case cfg.Attach:
		d.attach()
	case d.s.PostMortem():
		d.openCore()
	}
	return d, nil
}

// Close ends the session the debugger owns (New); a guest's session is left as it is.
func (d *Debugger) Close() {
	if !d.guest {
		d.s.Close()
	}
}

// Exec runs one command line; an empty line repeats the last command, as gdb's. typed
// says the line was typed (it then joins the history command's list). It reports whether
// the command was quit.
func (d *Debugger) Exec(line string, typed bool) (quit bool) {
	if taken, quit := d.readingCommands(line); taken {
		return quit
	}
	if line == "" {
		line = d.lastCmd // an empty line repeats the last command, as in gdb
		if line == "" {
			return false
		}
	} else if typed {
		d.history = append(d.history, line)
	}
	d.lastCmd = line
	d.failed = false
	d.hold()
	defer d.release()
	return d.exec(line) || d.runStopCommands()
}

// Live reports whether the program has started and not ended.
func (d *Debugger) Live() bool { return d.live() }

// SelectFrame selects frame n of the stopped program, as frame N does, without a word.
func (d *Debugger) SelectFrame(n int) { d.frame = max(0, n) }

// Writer is where the debugger writes, in order with the program output it forwards: a
// terminal writes its prompts there.
func (d *Debugger) Writer() io.Writer { return d.out }

// Prompted says the user is being asked for the next command: a Ctrl-C from now on is
// for the command to come, not one that was pending.
func (d *Debugger) Prompted() { d.pendingPause.Store(false) }

// Printf writes the debugger's text (what the terminal says about its input).
func (d *Debugger) Printf(format string, args ...any) { d.printf(format, args...) }

func (d *Debugger) printf(format string, args ...any) { fmt.Fprintf(d.out, format, args...) }

// say prints what gdb tells a person at a terminal and not a script run with -batch
// ("Continuing.", "Run till exit from ...").
func (d *Debugger) say(format string, args ...any) {
	if !d.cfg.Batch && !d.quiet {
		d.printf(format, args...)
	}
}

// hold keeps the output printer asleep while a command runs: a step's events are taken
// by the command itself (waitFrom), with no thread woken for them. A command that waits
// for the program to run releases it first, so that output prints as it comes.
func (d *Debugger) hold() {
	if d.output != nil {
		d.held = d.output.sub
		d.held.Hold()
	}
}

func (d *Debugger) release() {
	if d.held != nil {
		d.held.Release()
		d.held = nil
	}
}

// newSession replaces the session by a fresh one with the old one's breakpoints (same
// numbers, as gdb keeps them across runs).
func (d *Debugger) newSession() error {
	s, err := d.makeSession()
	if err != nil {
		return err
	}
	if d.s != nil {
		placed := map[int]bool{}
		for _, bp := range d.s.Breakpoints() {
			placed[bp.ID] = bp.Verified
		}
		for _, bp := range s.RestoreBreakpoints(d.s.Breakpoints()) {
			if bp.Message != "" && !bp.Verified && placed[bp.ID] && !bp.Pending { // (one an exec left without a place says nothing again; a library's waits for it quietly)
				d.printf("warning: breakpoint %d: %s\n", bp.ID, bp.Message)
			}
		}
		s.NumberBreakpointsAfter(d.s.LastBreakpointID())
		if err := s.RestoreCatchpoints(d.s.Catchpoints()); err != nil {
			d.printf("warning: catchpoints: %v\n", err)
		}
		s.RestoreWatches(d.s.Watches()) // the displays, under the same numbers
		for name, h := range d.signals {
			_ = s.HandleSignal(name, h)
		}
		d.s.Close()
	}
	d.s, d.frame, d.stopThread, d.lastFrame = s, 0, 0, stopFrame{}
	s.SetPrintLimits(d.limits) // set print elements and repeats hold across runs
	s.UseHistory(&d.values)    // $1.x: the values kept whole
	if d.settings.solibStops != 0 {
		_ = s.StopOnLibraryEvents(true)
	}

	s.SetSourcePath(d.srcPath)
	s.FollowForkChild(d.settings.followFork == "child")
	if d.settings.debugDirs != nil {
		s.SetDebugDirs(d.debugDirs())
	}
	d.applySkips()
	d.current.Store(s)
	d.output = startOutput(d.out, d.cfg.Out, s)
	return nil
}

// reportStop tells a stop as gdb does: what stopped the program, then the frame line
// ("fact (n=2) at t.c:12") when the stop is in another frame than the last one or at a
// breakpoint, then the source line.
func (d *Debugger) reportStop(st *engine.Stop) {
	d.runHook("hook", "stop") // gdb's hook-stop: before the stop is told
	loc := st.Location
	depth, _ := d.s.Depth()
	d.midLine = d.s.MidStatement(loc)
	if d.midLine && st.Reason == engine.ReasonBreakpoint { // as gdb: a line's or function's breakpoint is
		_, byAddress := d.s.InstructionBreakpointAt(loc.PC) // at its start (an inlined copy's too)
		d.midLine = byAddress
	}
	here := stopFrame{loc.Func, depth}
	newFrame := here != d.lastFrame
	d.lastFrame = here
	if st.Reason == engine.ReasonCallReturned { // a called function returned: gdb stops silently
		d.listFrom(loc.File, loc.Line)
		return
	}
	where := func() string { // the innermost frame's line, told only when it is shown
		if frames, err := d.s.Stack(); err == nil && len(frames) > 0 {
			return d.frameLine(frames[0], d.midLine)
		}
		return d.frameLine(engine.Frame{Func: loc.Func, Location: loc}, d.midLine)
	}
	hit := "" // gdb names the thread of a stop once the program has had more than one
	switching := false
	if st.ThreadID != 0 {
		prev := d.stopThread
		if prev == 0 {
			prev = uint64(d.s.ProcessID()) // the program's first thread, where it was run
		}
		label := d.s.ThreadLabel(st.ThreadID) // numbered first, as gdb numbers a thread when it sees it
		// (a first stop after a fork's child was followed is in another process than the one run)
		switching = prev != 0 && st.ThreadID != prev || d.stopThread == 0 && d.s.Inferior() > 1
		several := d.s.ThreadsNumbered() > 1
		th := engine.Thread{ID: st.ThreadID}
		if switching || several {
			th = d.thread(st.ThreadID) // its name and handle
		}
		if switching { // as gdb: the stop is not in the thread that was resumed
			name := threadName(th)
			if pid := d.s.ProcessID(); th.Handle == 0 && pid > 1 && th.ID == uint64(pid) {
				name = fmt.Sprintf("process %d", pid) // gdb's name of a process's only thread before its C library runs
			}
			d.printf("[Switching to %s]\n", name)
		}
		d.stopThread = st.ThreadID
		if several {
			hit = fmt.Sprintf("Thread %s hit ", label)
			if th.Name != "" && !strings.HasPrefix(th.Name, "thread ") {
				hit = fmt.Sprintf("Thread %s %q hit ", label, th.Name)
			}
		}
	}
	if (st.Reason == engine.ReasonBreakpoint || st.Reason == engine.ReasonData) && d.stopCommands(st.BreakpointID) {
		d.listFrom(loc.File, loc.Line) // silent: the stop is not told, its list says what it wants
		return
	}
	switch st.Reason {
	case engine.ReasonBreakpoint:
		if d.momentary != 0 && d.momentary == st.BreakpointID { // advance got there: gdb says only where
			d.printf("%s\n", where())
			break
		}
		kind := "Breakpoint"
		if d.temporary[st.BreakpointID] {
			kind = "Temporary breakpoint"
			delete(d.temporary, st.BreakpointID)
		}
		if n, of := d.s.BreakpointSiteOf(st.BreakpointID, loc.PC); of > 1 { // gdb names the place among several: 1.2
			d.printf("\n%s%s %d.%d, %s\n", hit, kind, st.BreakpointID, n, where())
		} else {
			d.printf("\n%s%s %d, %s\n", hit, kind, st.BreakpointID, where())
		}
		if st.Text != "" {
			d.printf("%s\n", st.Text)
		}
	case engine.ReasonException:
		if st.Signal != "" && st.BreakpointID != 0 { // caught: catch signal
			d.printf("\n%sCatchpoint %d (signal %s), %s\n", hit, st.BreakpointID, st.Signal, where())
			break
		}
		if st.BreakpointID != 0 { // caught: catch throw, "exception thrown"
			d.printf("\n%sCatchpoint %d (%s), %s\n", hit, st.BreakpointID, st.Text, where())
			break
		}
		if st.Signal != "" { // a native program's signal, in gdb's words
			who := "Program"
			if hit != "" {
				who = strings.TrimSuffix(hit, " hit ")
			}
			d.printf("\n%s received signal %s.\n%s\n", who, engine.SignalText(st.Signal), where())
			break
		}
		d.printf("\nRuntime error: %s\n  in %s\n", st.Text, where())
	case engine.ReasonData:
		d.reportWatch(st, hit)
		d.printf("%s\n", where())
	case engine.ReasonSyscall:
		d.reportSyscall(st, hit, where())
	case engine.ReasonFork:
		child, how := 0, "forked"
		if st.Fork != nil {
			child = st.Fork.Child
			if st.Fork.Vfork {
				how = "vforked"
			}
		}
		d.printf("\n%sCatchpoint %d (%s process %d), %s\n", hit, st.BreakpointID, how, child, where())
	case engine.ReasonExec:
		d.printf("\n%sCatchpoint %d (exec'd %s), %s\n", hit, st.BreakpointID, st.Text, where())
	case engine.ReasonLibrary:
		d.reportLibraries(st, hit, where)
	case engine.ReasonPause:
		if d.indexedPCs() { // a Kite program has no signals
			d.printf("\nPaused in %s\n", where())
			break
		}
		who := "Program" // as gdb: the interrupt is a SIGINT the program received, Ctrl-C's too
		if hit != "" {
			who = strings.TrimSuffix(hit, " hit ")
		}
		d.printf("\n%s received signal %s.\n%s\n", who, engine.SignalText("SIGINT"), where())
	case engine.ReasonEntry:
		if d.atFirstInstruction { // starti, as gdb says it
			d.atFirstInstruction = false
			d.printf("\nProgram stopped.\n%s\n", where())
			break
		}
		d.printf("Stopped at entry, %s\n", where())
	case engine.ReasonFrame:
		d.printf("Frame boundary, %s\n", where())
	default: // a step: the frame line only when it stepped into another frame (another thread's)
		if newFrame || switching || loc.Line == 0 {
			d.printf("%s\n", where())
		} else if d.midLine && !d.indexedPCs() && !d.context && loc.Line > 0 {
			d.printf("%s\t", d.pcText(loc.PC)) // as gdb: the line, after the pc inside it
		}
	}
	if d.context {
		d.showContext(loc)
	} else {
		d.showLine(loc.File, loc.Line)
	}
	d.listFrom(loc.File, loc.Line) // list then shows the lines around it, as gdb
	d.showDisplays(0)
}

// showDisplays prints the displays (the engine's watches; all, or only the one numbered
// only) as taken at the current stop, as gdb does: "n: /x expr = value".
func (d *Debugger) showDisplays(only int) {
	values, err := d.s.WatchValues(d.s.LastHalt().Seq)
	if err != nil { // not stopped
		return
	}
	fn := d.lastFrame.fn
	if d.frame != 0 { // display in a frame selected: its values there, as gdb's
		values, fn = d.displayValuesIn(values)
	}
	for _, w := range values {
		spec := d.displaySpec(w.Watch)
		n, insns := d.insnDisplays[w.ID]
		scope := d.displayScope[w.ID]
		switch {
		case only != 0 && w.ID != only, only == 0 && d.displayOff[w.ID]:
		case scope != "" && (scope != fn || strings.HasPrefix(w.Err, "No symbol ")): // out of its block: not shown, as gdb's
		case insns && w.Err == "": // display/i: x/i at the expression's address
			d.printf("%d: x/%s\n", w.ID, strings.TrimPrefix(spec, "/"))
			if addr, ok := engine.IntegerOf(w.Value.Value); ok {
				d.examineInstructions(uint64(addr), n)
			}
		case w.Err != "":
			d.printf("%d: %s = <error: %s>\n", w.ID, spec, w.Err)
		default:
			d.printf("%d: %s = %s\n", w.ID, spec, d.layout(w.Value.Value))
		}
	}
}

// displayValuesIn is the displays' values read again in the selected frame, and that
// frame's function.
func (d *Debugger) displayValuesIn(values []engine.WatchValue) ([]engine.WatchValue, string) {
	fn, ok := d.selectedFunc()
	if !ok {
		return values, d.lastFrame.fn
	}
	out := slices.Clone(values)
	for i, w := range out {
		v, err := d.s.Evaluate(d.frame, w.Expr, engine.EvalMode{Pure: true})
		out[i].Err = ""
		if err != nil {
			out[i].Err = explain(err)
			continue
		}
		v.Value = d.s.FormatValue(v, w.Format)
		out[i].Value = v
	}
	return out, fn
}

// displaySpec is a display as typed: "[/F ]EXPR".
func (d *Debugger) displaySpec(w engine.Watch) string {
	if n, ok := d.insnDisplays[w.ID]; ok {
		if n == 1 {
			return "/i " + w.Expr
		}
		return fmt.Sprintf("/%di %s", n, w.Expr)
	}
	expr := w.Expr
	if typed, ok := d.displayTyped[w.ID]; ok {
		expr = typed
	}
	if w.Format != 0 {
		return "/" + string(w.Format) + " " + expr
	}
	return expr
}

// instructionFormat reads display's "/i EXPR" or "/Ni EXPR" (N instructions).
func instructionFormat(args string) (int, string, bool) {
	spec, expr, ok := strings.Cut(strings.TrimPrefix(args, "/"), " ")
	if !strings.HasPrefix(args, "/") || !ok || !strings.HasSuffix(spec, "i") {
		return 0, "", false
	}
	n := 1
	if digits := strings.TrimSuffix(spec, "i"); digits != "" {
		v, ok := atoi(digits)
		if !ok || v <= 0 {
			return 0, "", false
		}
		n = v
	}
	return n, strings.TrimSpace(expr), strings.TrimSpace(expr) != ""
}

// explain turns engine errors into the messages a gdb user expects.
func explain(err error) string {
	switch {
	case errors.Is(err, engine.ErrNotStarted):
		return "The program is not being run. Use \"run\" or \"start\"."
	case errors.Is(err, engine.ErrRunning):
		return "The program is running. Use \"interrupt\" (or Ctrl-C) first."
	case errors.Is(err, engine.ErrUnsupported):
		return "Not available on this target (" + err.Error() + "): it has no machine registers or memory."
	case errors.Is(err, engine.ErrEnded):
		return "The program is not being run (it has ended). Use \"run\" to start it again."
	}
	return err.Error()
}

// MaxLine is the longest command line read; a longer one is skipped with a message.
const MaxLine = 1 << 20

func atoi(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil
}

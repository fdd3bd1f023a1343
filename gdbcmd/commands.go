package gdbcmd

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/engine"
)

type cmdFunc func(d *Debugger, args string) (quit bool)

type cmdDef struct {
	name    string
	aliases []string
	help    string
	fn      cmdFunc
}

var cmdTable []cmdDef

func init() {
	cmdTable = []cmdDef{
		{"break", []string{"b", "br"}, "break LOCATION [if COND]  set a breakpoint at FILE:LINE, LINE, FUNCTION or *PC", cmdBreak},
		{"rbreak", nil, "rbreak REGEX  set a breakpoint on every function whose name matches REGEX", cmdRbreak},
		{"tbreak", []string{"tb"}, "tbreak LOCATION [if COND]  set a breakpoint deleted when first hit", cmdTbreak},
		{"delete", []string{"d"}, "delete [N...]  delete breakpoints (all without arguments)", cmdDelete},
		{"clear", nil, "clear [LOCATION]  delete the breakpoints at a place (the selected frame's line without one)", cmdClear},
		{"watch", nil, "watch EXPR  stop when the program writes what EXPR names (a hardware watchpoint)", watchCmd(engine.DataWrite)},
		{"rwatch", nil, "rwatch EXPR  stop when the program reads what EXPR names", watchCmd(engine.DataRead)},
		{"awatch", nil, "awatch EXPR  stop when the program reads or writes what EXPR names", watchCmd(engine.DataReadWrite)},
		{"jump", []string{"j"}, "jump LINE  go on at another line of the current function (skipping or repeating code)", cmdJump},
		{"advance", nil, "advance LOCATION  run until LOCATION (FILE:LINE, LINE or FUNCTION) is reached", cmdAdvance},
		{"until", []string{"u"}, "until [LOCATION]  next, but not back into a loop: run until a line past this one (with LOCATION: advance)", cmdUntil},
		{"condition", nil, "condition N [COND]  set or remove breakpoint N's condition", cmdCondition},
		{"enable", nil, "enable [once|count N|delete] [N...]  enable breakpoints (all without arguments); once: for one stop, count N: for N stops, delete: deleted after its next stop", enableCmd(true)},
		{"disable", []string{"disa"}, "disable [N...]  disable breakpoints: kept, but not stopped at (all without arguments)", enableCmd(false)},
		{"ignore", nil, "ignore N COUNT  pass breakpoint N the next COUNT times it is reached", cmdIgnore},
		{"if", nil, "if COND ... [else ...] end  run the lines when COND is not zero (else the others)", cmdBlock("if")},
		{"while", nil, "while COND ... end  run the lines as long as COND is not zero (loop_break, loop_continue)", cmdBlock("while")},
		{"define", nil, "define NAME  the lines up to \"end\" become command NAME ($arg0, $arg1... and $argc its arguments)", cmdDefine},
		{"commands", nil, "commands [N...]  lines up to \"end\" run each time breakpoint N stops the program (\"silent\" first: no stop report)", cmdCommands},
		{"run", []string{"r"}, "run [ARGS]  start the program (again, if it ran before), with ARGS as its arguments from now on", cmdRun},
		{"start", nil, "start [ARGS]  start the program and stop at its first statement (main's)", cmdStart},
		{"restart", nil, "restart  start the program again from the beginning", cmdRun},
		{"continue", []string{"c", "cont"}, "continue [N]  run until a breakpoint or the end (N: ignore this breakpoint N-1 more times)", cmdContinue},
		{"step", []string{"s"}, "step  run to the next statement, entering calls", stepCmd(engine.StepInto)},
		{"next", []string{"n"}, "next  run to the next statement, stepping over calls", stepCmd(engine.StepOver)},
		{"finish", []string{"fin"}, "finish  run until the selected frame's function returns, and print the value it returned as $N", cmdFinish},
		{"return", nil, "return [EXPR]  make the selected frame's function return now, with EXPR as its value (the rest of it is not run)", cmdReturn},
		{"stepi", []string{"si"}, "stepi  execute one instruction", stepCmd(engine.StepInstruction)},
		{"nexti", []string{"ni"}, "nexti  execute one instruction, a call with all it runs", cmdNexti},
		{"interrupt", nil, "interrupt  pause the running program", cmdInterrupt},
		{"kill", []string{"k"}, "kill  terminate the program", cmdKill},
		{"gcore", []string{"generate-core-file"}, "gcore [FILE]  write the stopped program as a core dump (core.PID), for polydbg PROG CORE or gdb", cmdGcore},
		{"detach", nil, "detach  let the program go on without the debugger (its breakpoints taken out)", cmdDetach},
		{"print", []string{"p", "inspect"}, "print[/FMT] [EXPR]  evaluate in the current frame; the value becomes $N (FMT: x d u o t c)", cmdPrint},
		{"ptype", nil, "ptype EXPR  the type of an expression, with the fields of a struct", cmdPtype},
		{"whatis", nil, "whatis EXPR  the type of an expression", cmdWhatis},
		{"call", nil, "call EXPR  evaluate an expression that may call functions", cmdCall},
		{"document", nil, "document NAME  the lines up to \"end\" become user command NAME's help", cmdDocument},
		{"with", []string{"w"}, "with SETTING [VALUE] -- COMMAND  run COMMAND with a print, listsize, context or quiet setting changed for it", cmdWith},
		{"output", nil, "output[/FMT] EXPR  print the value of EXPR alone (no $N, no newline)", cmdOutput},
		{"printf", nil, "printf \"FORMAT\", ARGS...  print values with C's conversions (%d %x %s %f %c %p...)", cmdPrintf},
		{"dprintf", nil, "dprintf LOCATION,\"FORMAT\",ARGS...  at LOCATION, print as printf does and go on", cmdDprintf},
		{"catch", nil, "catch syscall [NAME|NUMBER]...  stop at the entry and the return of these system calls (every one without any)", cmdCatch},
		{"faas", nil, "faas COMMAND  run COMMAND in every frame, leaving out those where it fails (frame apply all -s)", cmdFaas},
		{"taas", nil, "taas COMMAND  run COMMAND in every thread, leaving out those where it fails (thread apply all -s)", cmdTaas},
		{"tfaas", nil, "tfaas COMMAND  run COMMAND in every frame of every thread, leaving out those where it fails", cmdTfaas},
		{"save", nil, "save breakpoints FILE  write the breakpoints as the commands that set them again (source FILE)", cmdSave},
		{"directory", []string{"dir"}, "directory [DIR...]  look for source files in these directories first (empty the list without any)", cmdDirectory},
		{"skip", nil, "skip [function NAME|file FILE|-fu NAME|-fi FILE|-gfi GLOB|-rfu REGEX]  let step pass over a function or a file's functions; skip delete|enable|disable [N...]", cmdSkip},
		{"echo", nil, "echo TEXT  print TEXT (C escapes: \\n for a newline)", cmdEcho},
		{"shell", []string{"!"}, "shell COMMAND  run COMMAND with the shell (also !COMMAND); its exit code is $_shell_exitcode", cmdShell},
		{"pwd", nil, "pwd  the working directory, where the program starts", cmdPwd},
		{"display", nil, "display[/FMT] [EXPR]  print EXPR at every stop (list them without EXPR)", cmdDisplay},
		{"undisplay", nil, "undisplay N  stop displaying expression N", cmdUndisplay},
		{"info", []string{"i"}, "info args|locals|globals|registers|breakpoints|display|frame|program|threads", cmdInfo},
		{"disassemble", []string{"disas"}, "disassemble [FUNCTION|*ADDR]  the instructions of a function (the selected frame's without argument)", cmdDisassemble},
		{"x", nil, "x/NFU ADDR  examine memory: N units (b, h, w, g) in format x, d, u or c at ADDR, $REG or &VAR", cmdExamine},
		{"set", nil, "set var X = VALUE | set $REG = VALUE | set args ARGS | set environment NAME VALUE | set context on|off | set listsize N", cmdSetVar},
		{"unset", nil, "unset environment [NAME]  take a variable (all without NAME) out of the environment of the next run", cmdUnset},
		{"show", nil, "show values|args|environment|context|listsize  the value history, or a setting", cmdShow},
		{"backtrace", []string{"bt", "where"}, "backtrace  show the call stack", cmdBacktrace},
		{"thread", []string{"t"}, "thread [N]  select thread N (show the current one without N); info threads lists them", cmdThread},
		{"frame", []string{"f"}, "frame [N]  select frame N (show the current one without N)", cmdFrame},
		{"up", nil, "up  select the caller's frame", cmdUp},
		{"down", nil, "down  select the callee's frame", cmdDown},
		{"forward-search", []string{"search", "fo"}, "forward-search REGEX  the next source line that matches (after the last listed)", cmdForwardSearch},
		{"reverse-search", []string{"rev"}, "reverse-search REGEX  the previous source line that matches", cmdReverseSearch},
		{"list", []string{"l"}, "list [LINE|FUNCTION]  show source lines ('>' the current line, '*' a breakpoint)", cmdList},
		{"handle", nil, "handle SIGNAL [stop|nostop] [print|noprint] [pass|nopass]  what a signal does", cmdHandle},
		{"source", nil, "source FILE  run the commands in FILE, one a line (# begins a comment)", cmdSource},
		{"history", nil, "history  show the commands typed so far", cmdHistory},
		{"help", []string{"h"}, "help  list the commands", cmdHelp},
		{"quit", []string{"q", "exit"}, "quit  end the session", cmdQuit},
	}
}

// byName indexes cmdTable by each command's name and aliases (made once, at the first
// lookup): a command typed in full is found without a scan.
var (
	byNameOnce sync.Once
	byName     map[string]*cmdDef
)

// lookup finds a command by name, alias or unambiguous prefix.
func lookup(word string) (*cmdDef, error) {
	byNameOnce.Do(func() {
		byName = map[string]*cmdDef{}
		for i := range cmdTable {
			c := &cmdTable[i]
			for _, a := range c.aliases {
				if _, taken := byName[a]; !taken {
					byName[a] = c
				}
			}
		}
		for i := range cmdTable { // a name wins over another command's alias
			byName[cmdTable[i].name] = &cmdTable[i]
		}
	})
	if c, ok := byName[word]; ok {
		return c, nil
	}
	var matches []*cmdDef
	for i := range cmdTable {
		c := &cmdTable[i]
		if strings.HasPrefix(c.name, word) {
			matches = append(matches, c)
		}
	}
	switch len(matches) {
	case 0:
		return nil, fmt.Errorf("Undefined command: %q. Try \"help\".", word)
	case 1:
		return matches[0], nil
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = m.name
	}
	return nil, fmt.Errorf("Ambiguous command %q: %s.", word, strings.Join(names, ", "))
}

func (d *Debugger) exec(line string) bool {
	if taken, quit := d.readingCommands(line); taken {
		return quit
	}
	word, args, _ := strings.Cut(line, " ")
	if rest, ok := strings.CutPrefix(line, "!"); ok { // !ls: gdb's shell
		word, args = "shell", rest
	}
	if i := strings.IndexByte(word, '/'); i > 0 { // x/8xb ADDR: the format belongs to the arguments
		word, args = word[:i], word[i:]+" "+args
	}
	c, err := lookup(word)
	if found, quit := d.runUser(word, args); found && (err != nil || c.name != word) {
		return quit // a user command, unless a built-in has that very name
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	if noRepeat[c.name] {
		d.lastCmd = ""
	}
	if d.refused(c.name, strings.TrimSpace(args)) {
		return false
	}
	if numbered[c.name] && strings.Contains(args, "$bpnum") { // the last breakpoint set, as gdb's
		if v, ok := d.values.Convenience("bpnum"); ok {
			args = strings.ReplaceAll(args, "$bpnum", v.Value)
		}
	}
	if d.runHook("hook", c.name) {
		return true
	}
	quit := c.fn(d, strings.TrimSpace(args))
	return quit || d.runHook("hookpost", c.name)
}

// numbered are the commands that take breakpoint numbers, where $bpnum stands for the
// last breakpoint set (save breakpoints writes it).
var numbered = map[string]bool{"condition": true, "ignore": true, "enable": true, "disable": true, "delete": true,
	"commands": true, "info": true}

// noteBreakpointNumber makes n gdb's $bpnum: the number of the last breakpoint set.
func (d *Debugger) noteBreakpointNumber(n int) {
	d.values.SetConvenience("bpnum", engine.Variable{Name: "$bpnum", Value: strconv.Itoa(n), Type: "int"})
}

// noRepeat are the commands an empty line does not run again, as gdb's dont_repeat: an
// Enter pressed once too often must not restart the program or delete breakpoints.
var noRepeat = map[string]bool{"run": true, "start": true, "restart": true, "kill": true, "delete": true, "clear": true, "jump": true}

// parseLocation turns FILE:LINE, LINE, FUNCTION or *PC into a breakpoint spec.
func (d *Debugger) parseLocation(arg string) (engine.BreakpointSpec, error) {
	loc, cond, _ := strings.Cut(arg, " if ")
	loc = strings.TrimSpace(loc)
	spec := engine.BreakpointSpec{Condition: strings.TrimSpace(cond)}
	switch {
	case loc == "":
		return spec, fmt.Errorf("Argument required (a location: FILE:LINE, LINE, FUNCTION or *PC).")
	case strings.HasPrefix(loc, "*"):
		pc, err := d.s.Address(d.frame, loc[1:]) // *0x401136, or *$pc when stopped
		if err != nil {
			return spec, fmt.Errorf("Invalid address %q.", loc[1:])
		}
		spec.Kind, spec.PC = engine.InstructionBreakpoint, pc
	case (loc[0] == '+' || loc[0] == '-') && len(loc) > 1: // lines after or before the selected frame's
		n, ok := atoi(loc[1:])
		here, stopped := d.here()
		if !ok || !stopped {
			return spec, fmt.Errorf("No line %s from here (a relative line needs a stopped program).", loc)
		}
		if loc[0] == '-' {
			n = -n
		}
		spec.Kind, spec.File, spec.Line = engine.LineBreakpoint, here.File, max(1, here.Line+n)
	default:
		if i := strings.LastIndexByte(loc, ':'); i > 0 {
			if n, ok := atoi(loc[i+1:]); ok {
				spec.Kind, spec.File, spec.Line = engine.LineBreakpoint, loc[:i], n
				return spec, nil
			}
			// FILE:FUNCTION: the function, which must be in that file
			file, fn := loc[:i], loc[i+1:]
			if names, ok := d.s.Target().(engine.Names); ok && !slices.ContainsFunc(names.SourceFiles(), func(f string) bool { return engine.SourceFileIs(f, file) }) {
				return spec, fmt.Errorf("No source file named %s.", file)
			}
			if l, err := d.s.Target().ResolveFunction(fn); err != nil || !engine.SourceFileIs(l.File, file) {
				return spec, fmt.Errorf("Function %q not defined in %q.", fn, file)
			}
			spec.Kind, spec.Function = engine.FunctionBreakpoint, fn
			return spec, nil
		}
		if n, ok := atoi(loc); ok { // a line of the current file, or of main's before the program stops
			spec.Kind, spec.Line = engine.LineBreakpoint, n
			if st := d.s.LastStop(); st != nil && st.Location.File != "" {
				spec.File = st.Location.File
			} else { // (a stop in a library without lines too, as gdb)
				spec.File = d.defaultFile()
			}
			return spec, nil
		}
		spec.Kind, spec.Function = engine.FunctionBreakpoint, loc
	}
	return spec, nil
}

func cmdBreak(d *Debugger, args string) bool { d.setBreak(args, "Breakpoint", nil); return false }

func cmdTbreak(d *Debugger, args string) bool {
	d.setBreak(args, "Temporary breakpoint", func(spec *engine.BreakpointSpec) { spec.Temporary = true })
	return false
}

// setBreak sets a breakpoint at the location args names, adjust given the spec first, and
// says so as gdb does ("Breakpoint 1 at ...", kind being its first words).
func (d *Debugger) setBreak(args, kind string, adjust func(*engine.BreakpointSpec)) {
	if d.s.State().Ended() { // for the next run, as gdb keeps it: that run's session, made now
		if err := d.newSession(); err != nil {
			d.fail("No breakpoint set: %v\n", err)
			return
		}
	}
	spec, err := d.parseLocation(args)
	bare := err != nil && strings.TrimSpace(strings.SplitN(args, " if ", 2)[0]) == ""
	if bare { // gdb's break without a location: the selected frame's pc
		here, stopped := d.here()
		if !stopped || !here.HasPC {
			d.fail("No default breakpoint address now.\n")
			return
		}
		spec.Kind, spec.PC, err = engine.InstructionBreakpoint, here.PC, nil
	}
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	if adjust != nil {
		adjust(&spec)
	}
	bp, err := d.s.SetBreakpoint(spec)
	if nf := (engine.NoFunctionError{}); errors.As(err, &nf) && spec.Kind == engine.FunctionBreakpoint {
		// gdb's words, not an error that ends a script; polydbg makes no breakpoint pending,
		// so the question (a native program's) has gdb's default answer.
		d.printf("Function \"%s\" not defined.\n", nf.Name)
		if d.cfg.Confirm == nil && !d.indexedPCs() {
			d.printf("Make breakpoint pending on future shared library load? (y or [n]) [answered N; input not from terminal]\n")
		}
		return
	}
	if err != nil {
		d.fail("No breakpoint set: %v\n", err)
		return
	}
	if spec.Temporary {
		if d.temporary == nil {
			d.temporary = map[int]bool{}
		}
		d.temporary[bp.ID] = true
	}
	d.noteBreakpointNumber(bp.ID)
	if !bare { // as typed, for save breakpoints
		if d.locationText == nil {
			d.locationText = map[int]string{}
		}
		d.locationText[bp.ID] = strings.TrimSpace(strings.SplitN(args, " if ", 2)[0])
	}
	if bare {
		if d.bareBreaks == nil {
			d.bareBreaks = map[int]bool{}
		}
		d.bareBreaks[bp.ID] = true
	}
	l := bp.Location // said as gdb says it: "Breakpoint 1 at 0x1144: file t.c, line 12."
	addr := fmt.Sprintf("%#x", d.fileAddress(l.PC))
	if d.indexedPCs() {
		addr = fmt.Sprintf("pc %d", l.PC)
	}
	if d.fromUser() {
		d.noteOthersAt(bp, addr)
	}
	switch sites, _ := d.s.BreakpointSites(bp.ID); {
	case len(sites) > 1: // inlined copies
		d.printf("%s %d at %s: %s. (%d locations)\n", kind, bp.ID, addr, l.Func, len(sites))
	case l.File != "":
		d.printf("%s %d at %s: file %s, line %d.\n", kind, bp.ID, addr, d.fileName(l.File), l.Line)
	default:
		d.printf("%s %d at %s\n", kind, bp.ID, addr)
	}
}

// noteOthersAt says which breakpoints were already at the place bp was set at, as gdb
// does to a person: "Note: breakpoints 1 (disabled) and 2 also set at pc 0x1144."
func (d *Debugger) noteOthersAt(bp engine.Breakpoint, addr string) {
	addr = strings.TrimPrefix(addr, "pc ") // a Kite program's "pc 12"
	var others []string
	for _, b := range d.s.Breakpoints() {
		if b.ID == bp.ID || !b.Verified || !b.Location.HasPC || b.Location.PC != bp.Location.PC {
			continue
		}
		o := strconv.Itoa(b.ID)
		if b.Spec.Disabled {
			o += " (disabled)"
		}
		others = append(others, o)
	}
	switch len(others) {
	case 0:
	case 1:
		d.printf("Note: breakpoint %s also set at pc %s.\n", others[0], addr)
	default:
		d.printf("Note: breakpoints %s and %s also set at pc %s.\n", strings.Join(others[:len(others)-1], ", "), others[len(others)-1], addr)
	}
}

// describe prints a location; pcs in hex unless the target numbers its instructions.
func (d *Debugger) describe(l engine.Location) string {
	s := fmt.Sprintf("%s:%d", l.File, l.Line)
	if l.Func != "" {
		s = l.Func + " " + s
	}
	if l.HasPC {
		if ix, ok := d.s.Target().(engine.IndexedPCs); ok && ix.PCsAreIndexes() {
			s = fmt.Sprintf("pc %d: %s", l.PC, s)
		} else {
			s = fmt.Sprintf("%#x: %s", l.PC, s)
		}
	}
	return s
}

func cmdDelete(d *Debugger, args string) bool {
	if rest, ok := strings.CutPrefix(args, "display"); ok && (rest == "" || rest[0] == ' ') {
		d.deleteDisplays(rest)
		return false
	}
	if args == "" {
		some := len(d.s.Breakpoints())+len(d.s.DataBreakpoints())+len(d.s.Catchpoints()) > 0
		if some && d.fromUser() && !d.query("Delete all breakpoints? ") { // gdb asks a person only
			return false
		}
		d.s.ClearBreakpoints()
		for _, c := range d.s.Catchpoints() {
			_ = d.s.RemoveCatchpoint(c.ID)
		}
		if len(d.s.DataBreakpoints()) > 0 {
			_, _ = d.s.SetDataBreakpoints(nil)
		}
		return false
	}
	ids, err := breakpointNumbers(args)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	for _, n := range ids {
		if d.s.Unwatch(n) || d.s.RemoveCatchpoint(n) == nil {
			continue
		}
		if err := d.s.RemoveBreakpoint(n); err != nil {
			d.fail("No breakpoint number %d.\n", n)
		}
	}
	return false
}

func cmdCondition(d *Debugger, args string) bool {
	num, cond, _ := strings.Cut(args, " ")
	n, ok := atoi(num)
	if !ok {
		d.fail("Argument required (breakpoint number).\n")
		return false
	}
	found, err := d.s.SetWatchCondition(n, cond) // a watchpoint's
	if !found {
		err = d.s.SetCondition(n, strings.TrimSpace(cond))
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	if strings.TrimSpace(cond) == "" && d.fromUser() {
		d.printf("%s %d now unconditional.\n", map[bool]string{false: "Breakpoint", true: "Watchpoint"}[found], n)
	}
	return false
}

// enableCmd is gdb's enable and disable: of the breakpoints numbered, or all of them;
// enable once, enable count N and enable delete besides.
func enableCmd(on bool) cmdFunc {
	return func(d *Debugger, args string) bool {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(args), "display"); ok && (rest == "" || rest[0] == ' ') {
			d.enableDisplays(on, rest)
			return false
		}
		args = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(args), "breakpoints"))
		var how func(id int) error // enable once, count, delete; nil for a plain enable
		if on {
			if how = d.enableHow(&args); how == nil && d.failed {
				return false
			}
		}
		ids, err := breakpointNumbers(args)
		if err != nil {
			d.fail("%v\n", err)
			return false
		}
		if len(ids) == 0 {
			if how != nil {
				d.fail("Argument required (one or more breakpoint numbers).\n")
				return false
			}
			for _, b := range d.s.Breakpoints() {
				ids = append(ids, b.ID)
			}
			for _, c := range d.s.Catchpoints() {
				ids = append(ids, c.ID)
			}
		}
		for _, n := range ids {
			if how == nil && d.s.EnableCatchpoint(n, on) == nil {
				continue
			}
			err := d.s.EnableBreakpoint(n, on)
			if how != nil {
				err = how(n)
			}
			if err != nil {
				d.fail("%v\n", err)
			}
		}
		return false
	}
}

// enableHow reads the word after enable, once, count N or delete, off args: what enabling
// a breakpoint then does. nil for a plain enable, or after a bad count (d.failed).
func (d *Debugger) enableHow(args *string) func(id int) error {
	word, rest, _ := strings.Cut(*args, " ")
	switch word {
	case "once":
		*args = rest
		return func(id int) error { return d.s.EnableFor(id, 1) }
	case "delete":
		*args = rest
		return func(id int) error {
			if d.temporary == nil {
				d.temporary = map[int]bool{}
			}
			d.temporary[id] = true
			return d.s.EnableTemporary(id)
		}
	case "count":
		num, rest, _ := strings.Cut(strings.TrimSpace(rest), " ")
		n, ok := atoi(num)
		if !ok {
			d.fail("Argument required (hit count).\n")
			return nil
		}
		*args = rest
		return func(id int) error {
			return d.s.EnableFor(id, max(n, 1)) // gdb's 0 stops once too
		}
	}
	return nil
}

// maxRange bounds the numbers one range of breakpoints names ("delete 1-1000").
const maxRange = 10000

// breakpointNumbers reads gdb's list of breakpoint numbers: "2 4-6 9".
func breakpointNumbers(args string) ([]int, error) {
	var ids []int
	for _, f := range strings.Fields(args) {
		lo, hi, isRange := strings.Cut(f, "-")
		a, okA := atoi(lo)
		b, okB := a, okA
		if isRange {
			b, okB = atoi(hi)
		}
		switch {
		case !okA || !okB || a < 0:
			return nil, fmt.Errorf("Bad breakpoint number '%s'", f)
		case b < a:
			return nil, fmt.Errorf("inverted range")
		case b-a > maxRange:
			return nil, fmt.Errorf("The range %s names more than %d breakpoints.", f, maxRange)
		}
		for n := a; n <= b; n++ {
			ids = append(ids, n)
		}
	}
	return ids, nil
}

// cmdIgnore is gdb's ignore N COUNT.
func cmdIgnore(d *Debugger, args string) bool {
	f := strings.Fields(args)
	if len(f) != 2 {
		d.fail("Argument required (a breakpoint number and a count).\n")
		return false
	}
	n, ok1 := atoi(f[0])
	count, ok2 := atoi(f[1])
	if !ok1 || !ok2 || count < 0 {
		d.fail("Bad arguments: ignore N COUNT.\n")
		return false
	}
	if err := d.s.IgnoreBreakpoint(n, count); err != nil {
		d.fail("%v\n", err)
		return false
	}
	switch count { // to a person at a terminal: gdb -batch says none of it
	case 0:
		d.say("Will stop next time breakpoint %d is reached.\n", n)
	case 1:
		d.say("Will ignore next crossing of breakpoint %d.\n", n)
	default:
		d.say("Will ignore next %d crossings of breakpoint %d.\n", count, n)
	}
	return false
}

// cmdInterrupt pauses a running program; on one that does not run it does nothing, as in
// gdb (it waited for a stop that would never come).
func cmdInterrupt(d *Debugger, _ string) bool {
	if d.s.State() != engine.Running {
		if st := d.s.State(); st == engine.Initialized || st.Ended() {
			d.fail("The program is not being run.\n")
		}
		return false
	}
	d.runAndReport(d.s.Pause)
	return false
}

func cmdKill(d *Debugger, _ string) bool {
	if st := d.s.State(); st == engine.Initialized || st.Ended() {
		d.fail("The program is not being run.\n")
		return false
	}
	if !d.query("Kill the program being debugged? ") {
		d.fail("Not confirmed.\n")
		return false
	}
	d.runAndReport(d.s.Terminate)
	return false
}

func cmdDisplay(d *Debugger, args string) bool {
	if args == "" {
		d.showDisplays(0)
		return false
	}
	if n, expr, ok := instructionFormat(args); ok { // display/i $pc: instructions at each stop
		if d.insnDisplays == nil {
			d.insnDisplays = map[int]int{}
		}
		id := d.s.AddWatchFormat(expr, 0).ID
		d.insnDisplays[id] = n
		d.showNewDisplay(id)
		return false
	}
	format, expr, err := splitFormat(args)
	if err == nil {
		expr, err = d.values.Substitute(expr)
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	d.showNewDisplay(d.s.AddWatchFormat(expr, format).ID)
	return false
}

// showNewDisplay shows a display as it is made, to a person at a terminal (gdb -batch
// shows it at the next stop only).
func (d *Debugger) showNewDisplay(id int) {
	if !d.cfg.Batch {
		d.showDisplays(id)
	}
}

func cmdUndisplay(d *Debugger, args string) bool { d.deleteDisplays(args); return false }

func cmdInfo(d *Debugger, args string) bool {
	what, _, _ := strings.Cut(args, " ")
	switch {
	case what == "":
		d.printf("info args|locals|globals|registers|breakpoints|display|frame|line|program|threads|signals|symbol|sharedlibrary|functions|types|inferiors|proc|address|scope\n")
	case strings.HasPrefix("locals", what):
		d.showLocals(false)
	case strings.HasPrefix("args", what):
		d.showLocals(true)
	case strings.HasPrefix("globals", what):
		d.showScope("Globals")
	case strings.HasPrefix("variables", what):
		d.infoVariables(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case what == "all-registers":
		d.infoRegisters([]string{"all"})
	case strings.HasPrefix("registers", what) && len(what) >= 2, what == "r":
		d.infoRegisters(strings.Fields(args)[1:])
	case len(what) >= 2 && strings.HasPrefix("address", what):
		d.infoAddress(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 2 && strings.HasPrefix("scope", what):
		d.infoScope(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 3 && strings.HasPrefix("inferiors", what):
		d.infoInferiors()
	case what == "skip":
		d.infoSkip(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case what == "auxv":
		d.infoAuxv()
	case what == "proc":
		d.infoProc(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 2 && strings.HasPrefix("types", what):
		d.infoTypes(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 2 && strings.HasPrefix("functions", what):
		d.infoFunctions(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case what == "symbol":
		d.infoSymbol(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 2 && strings.HasPrefix("sharedlibrary", what):
		d.infoSharedLibrary()
	case strings.HasPrefix("breakpoints", what):
		d.infoBreakpoints(strings.TrimPrefix(args, what))
	case len(what) >= 2 && strings.HasPrefix("watchpoints", what):
		d.breakpointTable(false, strings.TrimPrefix(args, what))
	case strings.HasPrefix("display", what):
		ws := d.s.Watches()
		if len(ws) == 0 {
			d.printf("There are no auto-display expressions now.\n")
			break
		}
		d.printf("Auto-display expressions now in effect:\nNum Enb Expression\n")
		for _, w := range ws {
			d.printf("%d:   %s  %s\n", w.ID, map[bool]string{false: "y", true: "n"}[d.displayOff[w.ID]], d.displaySpec(w))
		}
	case strings.HasPrefix("frame", what):
		d.infoFrame(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 3 && strings.HasPrefix("source", what):
		d.infoSource()
	case strings.HasPrefix("threads", what) && len(what) >= 2:
		cmdInfoThreads(d)
	case what == "line":
		d.infoLine(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case len(what) >= 3 && strings.HasPrefix("signals", what), what == "handle":
		d.infoSignals(strings.TrimSpace(strings.TrimPrefix(args, what)))
	case strings.HasPrefix("program", what):
		d.infoProgram()
	default:
		d.fail("Undefined info command: %q.\n", what)
	}
	return false
}

// infoProgram is gdb's info program: whether the program runs, and why it stopped.
func (d *Debugger) infoProgram() {
	st := d.s.LastStop()
	switch state := d.s.State(); {
	case state == engine.Initialized || state.Ended():
		d.printf("The program being debugged is not being run.\n")
		return
	case state != engine.Stopped || st == nil:
		d.printf("The program being debugged is %s.\n", state)
		return
	}
	if th := d.thread(d.s.SelectedThread()); th.Handle != 0 && d.s.ProcessID() > 0 {
		d.printf("\tUsing the running image of child %s.\n", threadName(th))
	}
	if d.indexedPCs() {
		d.printf("Program stopped at pc %d.\n", st.Location.PC)
	} else {
		d.printf("Program stopped at %#x.\n", st.Location.PC)
	}
	switch st.Reason {
	case engine.ReasonStep:
		d.printf("It stopped after being stepped.\n")
	case engine.ReasonBreakpoint:
		if slices.ContainsFunc(d.s.Breakpoints(), func(b engine.Breakpoint) bool { return b.ID == st.BreakpointID }) {
			d.printf("It stopped at breakpoint %d.\n", st.BreakpointID)
		} else {
			d.printf("It stopped at a breakpoint that has since been deleted.\n")
		}
	default:
		d.printf("It stopped (%s): %s.\n", st.Reason, d.describe(st.Location))
	}
}

// scopeVariables reads the selected frame's scope by name; ok is false when there is none
// (or it cannot be read: the reason is printed).
func (d *Debugger) scopeVariables(name string) (vars []engine.Variable, ok bool) {
	scopes, err := d.s.Scopes(d.frame)
	if err != nil {
		d.fail("%s\n", explain(err))
		return nil, false
	}
	for _, sc := range scopes {
		if sc.Name == name {
			vars, err := d.s.Variables(sc.Ref)
			if err != nil {
				d.fail("%s\n", explain(err))
				return nil, false
			}
			return vars, true
		}
	}
	d.printf("No %s in this frame.\n", strings.ToLower(name))
	return nil, false
}

func (d *Debugger) showScope(name string) {
	vars, ok := d.scopeVariables(name)
	if ok && len(vars) == 0 {
		d.printf("No %s.\n", strings.ToLower(name))
	}
	for _, v := range vars {
		d.printf("%s = %s\n", v.Name, v.Value)
	}
}

func cmdHistory(d *Debugger, _ string) bool {
	for i, h := range d.history {
		d.printf("%5d  %s\n", i+1, h)
	}
	return false
}

func cmdHelp(d *Debugger, args string) bool {
	if name := strings.TrimSpace(args); name != "" {
		d.helpOn(name)
		return false
	}
	rows := make([]string, 0, len(cmdTable))
	for _, c := range cmdTable {
		alias := ""
		if len(c.aliases) > 0 {
			alias = " (" + strings.Join(c.aliases, ", ") + ")"
		}
		rows = append(rows, fmt.Sprintf("  %-40s%s", c.help, alias))
	}
	sort.Strings(rows)
	d.printf("Commands:\n%s\nAn empty line repeats the last command.\n", strings.Join(rows, "\n"))
	return false
}

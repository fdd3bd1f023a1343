package gdbcmd

import (
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
		{"disable", []string{"dis", "disa"}, "disable [N...]  disable breakpoints: kept, but not stopped at (all without arguments)", enableCmd(false)},
		{"ignore", nil, "ignore N COUNT  pass breakpoint N the next COUNT times it is reached", cmdIgnore},
		{"if", nil, "if COND ... [else ...] end  run the lines when COND is not zero (else the others)", cmdBlock("if")},
		{"while", nil, "while COND ... end  run the lines as long as COND is not zero (loop_break, loop_continue)", cmdBlock("while")},
		{"define", nil, "define NAME  the lines up to \"end\" become command NAME ($arg0, $arg1... and $argc its arguments)", cmdDefine},
		{"commands", nil, "commands [N...]  lines up to \"end\" run each time breakpoint N stops the program (\"silent\" first: no stop report)", cmdCommands},
		{"run", []string{"r"}, "run [ARGS]  start the program (again, if it ran before), with ARGS as its arguments from now on", cmdRun},
		{"start", nil, "start [ARGS]  start the program and stop at its first statement (main's)", cmdStart},
		{"starti", nil, "starti [ARGS]  start the program and stop at its very first instruction", cmdStarti},
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
var noRepeat = map[string]bool{"run": true, "start": true, "starti": true, "restart": true, "kill": true, "delete": true, "clear": true, "jump": true}

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
	case what == "vtbl":
		d.infoVtbl(strings.TrimSpace(strings.TrimPrefix(args, what)))
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
			note := ""
			if d.outOfScope(w) {
				note = " (cannot be evaluated in the current context)"
			}
			d.printf("%d:   %s  %s%s\n", w.ID, map[bool]string{false: "y", true: "n"}[d.displayOff[w.ID]], d.displaySpec(w), note)
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

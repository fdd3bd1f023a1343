package gdbcmd

// Command lists read up to "end": a breakpoint's, gdb's "commands N ... end" (lines run each
// time breakpoint N stops the program, after its stop is reported; "silent" first: not
// reported; a line that runs the program on ends the list, and the stop it comes to runs
// that breakpoint's list in turn), and a user command's, gdb's "define NAME ... end" (run
// by its name, with $arg0... and $argc). Lists are read line by line through Exec, from a
// terminal (with gdb's ">" prompt), a pipe, -x FILE or source.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

type commandLists struct {
	byID     map[int][]string    // a breakpoint's lines
	user     map[string][]string // a user command's lines, by its name
	reading  []int               // the breakpoints a list being read is for
	defining string              // the user command a list being read is for
	block    string              // the if or while line a block being read (typed as a command) begins with
	nested   int                 // the if and while blocks open inside the list being read
	lines    []string            // the lines read so far
	pending  []string            // the lines to run for the stop just reported
	calls    int                 // user commands running inside one another
	// documenting is the user command a document being read is for; docs are the
	// documentation read, by command; inHook the hooks running.
	documenting string
	docs        map[string][]string
	inHook      map[string]bool
}

// isReading says a list is being read.
func (c *commandLists) isReading() bool {
	return c.reading != nil || c.defining != "" || c.block != "" || c.documenting != ""
}

// cmdCommands is gdb's commands [N...]: the lines up to "end" become the list of the
// breakpoints named (the last one made without a number); an empty list removes theirs.
func cmdCommands(d *Debugger, args string) bool {
	ids, err := breakpointNumbers(args)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	known := d.breakpointIDs()
	if len(ids) == 0 {
		if len(known) == 0 {
			d.fail("No breakpoints specified.\n")
			return false
		}
		ids = []int{slices.Max(known)}
	}
	for _, id := range ids {
		if !slices.Contains(known, id) {
			d.fail("No breakpoint number %d.\n", id)
			return false
		}
	}
	if d.cfg.Confirm != nil { // typed at a terminal: gdb says what it waits for
		names := make([]string, len(ids))
		for i, id := range ids {
			names[i] = strconv.Itoa(id)
		}
		d.printf("Type commands for breakpoint(s) %s, one per line.\nEnd with a line saying just \"end\".\n", strings.Join(names, " "))
	}
	d.cmds.reading, d.cmds.lines = ids, nil
	return false
}

// readingCommands takes line into the list being read, if one is: "end" ends it (an if
// or while block's own end is read as a line of it). A block typed as a command runs when
// its end is read; quit says it ended the session.
func (d *Debugger) readingCommands(line string) (taken, quit bool) {
	if !d.cmds.isReading() {
		return false, false
	}
	line = strings.TrimSpace(line)
	switch {
	case d.cmds.documenting != "" && line == "end": // a document's lines are text: no blocks in it
		if d.cmds.docs == nil {
			d.cmds.docs = map[string][]string{}
		}
		d.cmds.docs[d.cmds.documenting] = slices.Clone(d.cmds.lines)
		d.cmds.documenting, d.cmds.lines = "", nil
	case d.cmds.documenting != "":
		d.cmds.lines = append(d.cmds.lines, line)
	case blockHead(line):
		d.cmds.nested++
		d.cmds.lines = append(d.cmds.lines, line)
	case line == "end" && d.cmds.nested > 0:
		d.cmds.nested--
		d.cmds.lines = append(d.cmds.lines, line)
	case line == "end" && d.cmds.block != "":
		lines := append(append([]string{d.cmds.block}, d.cmds.lines...), "end")
		d.cmds.block, d.cmds.lines = "", nil
		return true, d.runLines(lines, nil, false) == flowQuit
	case line == "end" && d.cmds.defining != "":
		if d.cmds.user == nil {
			d.cmds.user = map[string][]string{}
		}
		d.cmds.user[d.cmds.defining] = slices.Clone(d.cmds.lines)
		d.cmds.defining, d.cmds.lines = "", nil
	case line == "end":
		if d.cmds.byID == nil {
			d.cmds.byID = map[int][]string{}
		}
		for _, id := range d.cmds.reading {
			if len(d.cmds.lines) == 0 {
				delete(d.cmds.byID, id)
			} else {
				d.cmds.byID[id] = slices.Clone(d.cmds.lines)
			}
		}
		d.cmds.reading, d.cmds.lines = nil, nil
	case line != "" && !strings.HasPrefix(line, "#"):
		d.cmds.lines = append(d.cmds.lines, line)
	}
	return true, false
}

// Prompt is the prompt for the next line: gdb's ">" while a command list is being read,
// else prompt.
func (d *Debugger) Prompt(prompt string) string {
	if d.cmds.isReading() {
		return ">"
	}
	return prompt
}

// breakpointIDs are the numbers of the breakpoints and watchpoints there are.
func (d *Debugger) breakpointIDs() []int {
	var ids []int
	for _, b := range d.s.Breakpoints() {
		ids = append(ids, b.ID)
	}
	for _, w := range d.s.DataBreakpoints() {
		ids = append(ids, w.ID)
	}
	return ids
}

// stopCommands takes the list of the breakpoint that made a stop to run after its report,
// and says whether the report is to be silent.
func (d *Debugger) stopCommands(bp int) (silent bool) {
	lines := d.cmds.byID[bp]
	if len(lines) > 0 && lines[0] == "silent" {
		silent, lines = true, lines[1:]
	}
	d.cmds.pending = lines
	return silent
}

// resumers are the commands after which the rest of a breakpoint's list is not run.
var resumers = map[string]bool{"run": true, "start": true, "starti": true, "restart": true, "continue": true, "step": true,
	"next": true, "finish": true, "stepi": true, "nexti": true, "until": true, "advance": true, "jump": true, "kill": true}

// runStopCommands runs the lists of the stops reported, as gdb: quietly (no "Continuing."),
// up to a line that runs the program on, whose stop may bring the next list.
func (d *Debugger) runStopCommands() (quit bool) {
	for len(d.cmds.pending) > 0 {
		lines := d.cmds.pending
		d.cmds.pending = nil
		d.quiet = true
		f := d.runLines(lines, nil, true)
		d.quiet = false
		if f == flowQuit {
			return true
		}
	}
	return false
}

// commandNotes are a breakpoint's list as info breakpoints shows it under its row.
func (d *Debugger) commandNotes(id int) []string {
	var notes []string
	for _, l := range d.cmds.byID[id] {
		notes = append(notes, fmt.Sprintf("        %s", l))
	}
	return notes
}

// maxUserDepth bounds user commands running inside one another (one that runs itself).
const maxUserDepth = 64

// cmdDefine is gdb's define NAME: the lines up to "end" become command NAME.
func cmdDefine(d *Debugger, args string) bool {
	name := strings.TrimSpace(args)
	switch {
	case name == "":
		d.fail("Argument required (name of command to define).\n")
		return false
	case strings.ContainsAny(name, " \t$"):
		d.fail("Invalid command name %q.\n", name)
		return false
	}
	if c, err := lookup(name); err == nil && c.name == name {
		d.fail("%q is a built-in command: it cannot be redefined here.\n", name)
		return false
	}
	if _, ok := d.cmds.user[name]; ok && !d.query(fmt.Sprintf("Redefine command %q? ", name)) {
		d.fail("Command %q not redefined.\n", name)
		return false
	}
	if d.cfg.Confirm != nil {
		d.printf("Type commands for definition of %q.\nEnd with a line saying just \"end\".\n", name)
	}
	d.cmds.defining, d.cmds.lines = name, nil
	return false
}

// runUser runs user command name with its arguments, if there is one: each line with
// $argc and $arg0... replaced by them, as gdb's.
func (d *Debugger) runUser(name, args string) (found, quit bool) {
	lines, ok := d.cmds.user[name]
	if !ok {
		return false, false
	}
	if d.cmds.calls >= maxUserDepth {
		d.fail("Max user call depth exceeded -- command aborted.\n")
		return true, false
	}
	argv := strings.Fields(args)
	pairs := []string{"$argc", strconv.Itoa(len(argv))}
	for i := len(argv) - 1; i >= 0; i-- { // $arg10 before $arg1
		pairs = append(pairs, fmt.Sprintf("$arg%d", i), argv[i])
	}
	subst := strings.NewReplacer(pairs...)
	d.cmds.calls++
	defer func() { d.cmds.calls-- }()
	return true, d.runLines(lines, subst.Replace, false) == flowQuit
}

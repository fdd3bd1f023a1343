package gdbcmd

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/highlight"
)

// The source view: list with the current line and breakpoints marked, syntax colour on a
// terminal, and the context display (source, stack, locals, registers) after each stop.

const defaultListSize = 10

// The escape codes of the current line's and breakpoints' marks and of the context
// display's rules, written only when Config.Color is set (a terminal without NO_COLOR).
const (
	ansiMark = "\x1b[1;33m" // bold yellow
	ansiRule = "\x1b[34m"   // blue
)

// colour returns a source line with syntax colour when colour is on.
func (d *Debugger) colour(file, line string) string {
	if !d.cfg.Color {
		return line
	}
	return highlight.Line(file, line)
}

func (d *Debugger) listSize() int {
	if d.listLines > 0 {
		return d.listLines
	}
	return defaultListSize
}

func (d *Debugger) showLine(file string, line int) {
	if text, ok := d.s.SourceLine(file, line); ok {
		d.sourceShown(file)
		d.printf("%d\t%s\n", line, d.colour(file, text))
	} else if file != "" && line > 0 && !d.indexedPCs() && d.s.SourceFile(file) == "" {
		d.noSource(file, line) // as gdb: the program's source is not where it says
	}
}

func (d *Debugger) source(file string) []string {
	lines, _ := d.s.Source(file) // none when it cannot be read: listings then say nothing
	return lines
}

// here is the selected frame's location, if the program is stopped.
func (d *Debugger) here() (engine.Location, bool) {
	if d.s.State() != engine.Stopped {
		return engine.Location{}, false
	}
	frames, err := d.s.Stack()
	if err != nil || d.frame >= len(frames) {
		return engine.Location{}, false
	}
	return frames[d.frame].Location, true
}

// printSource prints lines from..to of file with the marks: '>' the selected frame's line,
// '*' a line with a breakpoint; as gdb's list without marks.
func (d *Debugger) printSource(file string, from, to int, marks bool) {
	src := d.source(file)
	if len(src) > 0 {
		d.sourceShown(file)
	}
	if !marks {
		for i := from; i <= to && i <= len(src); i++ {
			d.printf("%d\t%s\n", i, d.colour(file, src[i-1]))
		}
		return
	}
	cur := 0
	if loc, ok := d.here(); ok && sameFile(loc.File, file) {
		cur = loc.Line
	}
	bps := map[int]bool{}
	for _, b := range d.s.Breakpoints() {
		if sameFile(b.Location.File, file) {
			bps[b.Location.Line] = true
		}
	}
	for i := from; i <= to && i <= len(src); i++ {
		mark := []byte("  ")
		if bps[i] {
			mark[0] = '*'
		}
		if i == cur {
			mark[1] = '>'
		}
		m := string(mark)
		if d.cfg.Color && m != "  " {
			m = ansiMark + m + highlight.Reset
		}
		d.printf("%s%4d\t%s\n", m, i, d.colour(file, src[i-1]))
	}
}

func sameFile(a, b string) bool {
	return a == b || a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b)
}

func cmdList(d *Debugger, args string) bool {
	file := d.listFile // the file listed last (gdb's current source file)
	if loc, ok := d.here(); ok && file == "" {
		file = loc.File
	} else if st := d.s.LastStop(); st != nil && file == "" {
		file = st.Location.File
	}
	for _, b := range d.s.Breakpoints() {
		if file == "" {
			file = b.Location.File
		}
	}
	size := d.listSize()
	last := 0 // the last line of a range FIRST,LAST
	if first, rest, isRange := strings.Cut(args, ","); isRange {
		first, rest = strings.TrimSpace(first), strings.TrimSpace(rest)
		a := 0
		if first != "" { // list 3,6  list down,+2  list t.c:main,20
			f, n, err := d.listLine(first, file)
			if err != nil {
				d.fail("%v\n", err)
				return false
			}
			file, a = f, n
		}
		b := 0
		if n, ok := atoi(strings.TrimPrefix(rest, "+")); ok && strings.HasPrefix(rest, "+") && first != "" {
			b = a + n // FIRST,+N: N lines after FIRST
		} else if rest != "" {
			f, n, err := d.listLine(rest, file)
			if err != nil {
				d.fail("%v\n", err)
				return false
			}
			file, b = f, n
		}
		switch {
		case a > 0 && b >= a: // list 3,6
			d.listAt, last = a, b
		case a > 0 && b > 0: // list 6,3: nothing, as gdb
			return false
		case a > 0 && rest == "": // list 3, : from line 3
			d.listAt = a
		case b > 0 && first == "": // list ,6 : the lines ending at 6
			d.listAt, last = max(1, b-size+1), b
		default:
			d.fail("Bad line range %q.\n", args)
			return false
		}
		args = ""
	}
	switch {
	case args == "":
	case args == "-": // the lines before the last listed
		if d.listFirst <= 1 {
			d.fail("Already at the start of %s.\n", file)
			return false
		}
		d.listAt, last = max(1, d.listFirst-size), d.listFirst-1
	case d.listOverloads(args, size):
		return false
	default: // lines around one: LINE, FILE:LINE, FUNCTION, FILE:FUNCTION
		f, n, err := d.listLine(args, file)
		if err == errNoLines {
			return false
		}
		if err != nil {
			d.fail("%v\n", err)
			return false
		}
		file, d.listAt = f, max(1, n-size/2)
	}
	if file == "" {
		file = d.defaultFile()
	}
	src := d.source(file)
	if len(src) == 0 && file != "" && !d.indexedPCs() && d.s.SourceFile(file) == "" {
		d.noSource(file, max(1, d.listAt)) // gdb's words for a file that is not there
		return false
	}
	if len(src) == 0 {
		d.fail("No source file.\n")
		return false
	}
	if d.listAt == 0 {
		d.listAt = 1
	}
	if d.listAt > len(src) {
		d.printf("Line number %d out of range; %s has %d lines.\n", d.listAt, d.fileName(file), len(src))
		return false
	}
	end := min(len(src), d.listAt+size-1)
	if last > 0 {
		end = min(len(src), last)
	}
	d.printSource(file, d.listAt, end, d.cfg.Marks)
	d.listFile, d.listFirst, d.listAt = file, d.listAt, end+1
	d.lastListed = d.listFirst // where a search goes on from, as gdb's (its first line, not its last)
	return false
}

// listOverloads lists, as gdb does for a name several functions share (C++'s overloads,
// a method of several classes), each one's lines under its own header: file: "c.cpp",
// line number: 21, symbol: "geo::add(int, int)". False when the name is not such a name.
func (d *Debugger) listOverloads(name string, size int) bool {
	fp, ok := d.s.Target().(engine.FunctionPlaces)
	if !ok || singleColon(name) >= 0 || strings.ContainsAny(name, "*,") {
		return false
	}
	var places []engine.FunctionPlace
	for _, p := range fp.FunctionPlaces(name) { // instances of a template on one line are one place
		if !slices.ContainsFunc(places, func(q engine.FunctionPlace) bool { return q.File == p.File && q.Line == p.Line }) {
			places = append(places, p)
		}
	}
	if len(places) < 2 {
		return false
	}
	for _, p := range places {
		d.printf("file: %q, line number: %d, symbol: %q\n", d.fileName(p.File), p.Line, p.Signature)
		first := max(1, p.Line-size/2)
		end := min(len(d.source(p.File)), first+size-1)
		d.printSource(p.File, first, end, d.cfg.Marks)
		d.listFile, d.listFirst, d.listAt = p.File, first, end+1
	}
	return true
}

// listLine is the line one argument of list names, in file unless it says another: LINE,
// FILE:LINE, FUNCTION (the line it starts at) or FILE:FUNCTION.
// errNoLines is listLine's answer for a function that has no lines to list.
var errNoLines = errors.New("no lines")

func (d *Debugger) listLine(arg, file string) (string, int, error) {
	if expr, ok := strings.CutPrefix(arg, "*"); ok { // list *ADDR: the lines around the code at ADDR
		a, err := d.s.Address(d.frame, strings.TrimSpace(expr))
		if err != nil {
			return "", 0, err
		}
		a = d.loadedAddress(a)
		loc, err := d.s.ResolvePC(a)
		if err != nil || loc.File == "" {
			return "", 0, fmt.Errorf("No line number information available for address %#x", d.fileAddress(a))
		}
		d.printf("%#x is in %s (%s:%d).\n", d.fileAddress(a), loc.Func, d.fileName(loc.File), loc.Line)
		return loc.File, loc.Line, nil
	}
	where, what, hasFile := arg, "", false
	if i := singleColon(arg); i >= 0 { // (geo::add is a function: C++'s scopes)
		where, what, hasFile = arg[:i], arg[i+1:], true
	}
	if !hasFile {
		if n, ok := atoi(arg); ok {
			return file, max(1, n), nil
		}
		loc, err := d.functionStart(arg)
		if err != nil {
			return "", 0, fmt.Errorf("Function %q not defined.", arg)
		}
		if loc.File == "" {
			return "", 0, errNoLines // a function without debug information: gdb lists nothing
		}
		return loc.File, loc.Line, nil
	}
	full := d.sourcePath(where)
	if full == "" {
		return "", 0, fmt.Errorf("No source file named %s.", where)
	}
	if n, ok := atoi(what); ok {
		return full, max(1, n), nil
	}
	if loc, err := d.functionStart(arg); err == nil && engine.SourceFileIs(loc.File, where) { // a target that finds FILE:FUNCTION itself
		return loc.File, loc.Line, nil
	}
	if loc, err := d.functionStart(what); err == nil && engine.SourceFileIs(loc.File, where) {
		return loc.File, loc.Line, nil
	}
	return "", 0, fmt.Errorf("Function %q not defined in %q.", what, where)
}

// functionStart is where function name begins as gdb's list and info line take it: the
// line of its first instruction (its declaration's), not the one after its prologue.
func (d *Debugger) functionStart(name string) (engine.Location, error) {
	resolve := d.s.Target().ResolveFunction
	if fl, ok := d.s.Target().(engine.FunctionLocator); ok {
		resolve = fl.FunctionLocation
	}
	loc, err := resolve(name)
	if err != nil || d.indexedPCs() {
		return loc, err
	}
	expr := name
	if i := singleColon(name); i > 0 { // b.c:helper: 'b.c'::helper
		expr = "'" + name[:i] + "'::" + name[i+1:]
	}
	if pc, err := d.s.Address(d.frame, expr); err == nil {
		if lc, err := d.s.LineCodeAt(pc); err == nil && lc.Line > 0 && sameFile(lc.File, loc.File) {
			loc.Line, loc.PC = lc.Line, pc
		}
	}
	return loc, nil
}

// sourcePath is the full path of the program's source file a user names ("loop.c"), "" for
// none the program has.
func (d *Debugger) sourcePath(name string) string {
	if n, ok := d.s.Target().(engine.Names); ok {
		for _, f := range n.SourceFiles() {
			if filepath.IsAbs(f) && engine.SourceFileIs(f, name) {
				return f
			}
		}
	}
	if loc, err := d.s.Target().ResolveLine(name, 1); err == nil { // a target that lists none
		return loc.File
	}
	return ""
}

// listFrom makes the next bare list show the lines around line of file, as gdb's does
// after a stop or a frame selection.
func (d *Debugger) listFrom(file string, line int) {
	d.listFile, d.listFirst, d.listAt = file, 0, max(1, line-d.listSize()/2)
	d.lastListed = 0 // a search then starts at the file's first line, as gdb's
}

// defaultFile is the program's main file: the file of its first statement, or of main.
func (d *Debugger) defaultFile() string {
	if loc, err := d.s.Target().ResolveLine("", 1); err == nil {
		return loc.File
	}
	if loc, err := d.s.Target().ResolveFunction("main"); err == nil { // gdb's default: main's file
		return loc.File
	}
	return ""
}

// showContext is the display after a stop when `set context on`: the source around the
// line, the stack, the frame's variables and, on machine targets, the registers.
func (d *Debugger) showContext(loc engine.Location) {
	d.rule("source")
	if src := d.source(loc.File); len(src) > 0 && loc.Line > 0 {
		d.printSource(loc.File, max(1, loc.Line-4), min(len(src), loc.Line+4), true)
	} else if loc.HasPC {
		d.printf("%#x in %s (no source)\n", loc.PC, loc.Func)
	}
	d.rule("stack")
	if frames, err := d.s.Stack(); err == nil {
		for i, f := range frames {
			if i == 8 {
				d.printf("... %d more\n", len(frames)-i)
				break
			}
			d.printf("#%-3d %s at %s:%d\n", f.Index, f.Func, filepath.Base(f.Location.File), f.Location.Line)
		}
	}
	d.rule("variables")
	if scopes, err := d.s.Scopes(d.frame); err == nil {
		for _, sc := range scopes {
			if sc.Name == "Globals" || sc.Name == "Registers" {
				continue
			}
			if vars, err := d.s.Variables(sc.Ref); err == nil {
				for _, v := range vars {
					d.printf("%s = %s\n", v.Name, engine.ClipValue(v.Value, 120))
				}
			}
		}
	}
	if regs, err := d.s.Registers(); err == nil && len(regs) > 0 {
		regs = generalRegisters(regs)
		d.rule("registers")
		for i, r := range regs {
			cell := fmt.Sprintf("%-6s %#x", r.Name, r.Value)
			if i%4 == 3 || i == len(regs)-1 {
				d.printf("%s\n", cell)
			} else {
				d.printf("%-27s", cell)
			}
		}
	}
	d.rule("")
}

func (d *Debugger) rule(title string) {
	line := "──"
	if title != "" {
		line += " " + title + " "
	}
	line += strings.Repeat("─", max(4, 60-len([]rune(line))))
	if d.cfg.Color {
		line = ansiRule + line + highlight.Reset
	}
	d.printf("%s\n", line)
}

// generalRegisters are the registers up to the pc and the status register after it, as a
// target description lists them (rax..r15, rip, eflags; r0..r12, sp, lr, pc, xpsr): the
// floating-point and vector registers that follow are left to info registers.
func generalRegisters(regs []engine.Register) []engine.Register {
	for i, r := range regs {
		if r.Name != "pc" && r.Name != "rip" && r.Name != "eip" {
			continue
		}
		if i+1 < len(regs) && (strings.Contains(regs[i+1].Name, "flags") || strings.Contains(regs[i+1].Name, "psr")) {
			i++
		}
		return regs[:i+1]
	}
	return regs
}

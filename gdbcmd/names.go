package gdbcmd

// Commands over the program's names: gdb's rbreak, info functions and info types.

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// functionsMatching are the program's functions whose names match the regular expression
// (all of them for ""), sorted; ok is false (and the reason said) when there are none to
// ask or the expression is bad.
func (d *Debugger) functionsMatching(expr string) ([]string, bool) {
	re, err := compileBRE(expr)
	if err != nil {
		d.fail("Invalid regexp: %v\n", err)
		return nil, false
	}
	n, ok := d.s.Target().(engine.Names)
	if !ok {
		d.fail("This target does not list its functions.\n")
		return nil, false
	}
	var out []string
	for _, f := range n.FunctionNames() {
		if re.MatchString(f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// cmdRbreak is gdb's rbreak REGEX: a breakpoint on every function whose name matches,
// each followed by its declaration as gdb prints it: the program's functions with debug
// information first, then those without (a loaded library's too), by address.
func cmdRbreak(d *Debugger, args string) bool {
	expr := strings.TrimSpace(args)
	fns, ok := d.functionsMatching(expr)
	if !ok {
		return false
	}
	declarer, _ := d.s.Target().(engine.FunctionDeclarer)
	st, withTables := d.s.Target().(engine.SymbolTables)
	for _, f := range fns {
		var decl engine.FunctionDecl
		described := false
		if declarer != nil {
			decl, described = declarer.FunctionDecl(f)
		}
		if withTables && !described {
			continue // one without debug information: among the symbols' below
		}
		d.setBreak(f, "Breakpoint", nil)
		if described && !d.failed {
			d.printf("%s\n", decl.Text)
		}
	}
	re, err := compileBRE(expr)
	if !withTables || err != nil {
		return false
	}
	seen := map[string]bool{}
	for _, s := range st.NondebugSymbols() {
		if s.Data || seen[s.Name] || strings.HasSuffix(s.Name, "@plt") || !re.MatchString(s.Name) {
			continue
		}
		seen[s.Name] = true
		d.failed = false
		d.setBreak(s.Name, "Breakpoint", nil)
		if !d.failed {
			d.printf("<function, no debug info> %s;\n", s.Name)
		}
	}
	return false
}

// symbolQuery is what info functions and info variables were asked: gdb's -q (no header),
// -n (no non-debugging symbols), then the regular expression.
type symbolQuery struct {
	quiet, nondebugOff bool
	expr               string
}

// parseSymbolQuery reads gdb's options before the expression; -t (a type's expression) is
// refused, saying so. An unknown option is part of the expression, as gdb reads it.
func parseSymbolQuery(args string) (symbolQuery, error) {
	var q symbolQuery
	rest := strings.TrimSpace(args)
	for {
		word, tail, _ := strings.Cut(rest, " ")
		switch word {
		case "-q":
			q.quiet = true
		case "-n":
			q.nondebugOff = true
		case "-t":
			return q, errors.New("polydbg does not take -t (a type's regular expression) in info functions and info variables")
		case "--":
			q.expr = strings.TrimSpace(tail)
			return q, nil
		default:
			q.expr = rest
			return q, nil
		}
		rest = strings.TrimSpace(tail)
	}
}

// symbolQuery reads the arguments of info functions and info variables, and compiles the
// expression; false when it has said what is wrong.
func (d *Debugger) symbolQuery(args string) (symbolQuery, *regexp.Regexp, bool) {
	q, err := parseSymbolQuery(args)
	if err != nil {
		d.fail("%v\n", err)
		return q, nil, false
	}
	re, err := compileBRE(q.expr)
	if err != nil {
		d.fail("Invalid regexp: %v\n", err)
		return q, nil, false
	}
	return q, re, true
}

// symbolsHeader is the line info functions and info variables start with (none with -q).
func (d *Debugger) symbolsHeader(q symbolQuery, what string) {
	switch {
	case q.quiet:
	case q.expr == "":
		d.printf("All defined %s:\n", what)
	default:
		d.printf("All %s matching regular expression \"%s\":\n", what, q.expr)
	}
}

// nondebugSymbols prints gdb's "Non-debugging symbols:" of the program and its loaded
// libraries: code or data, whose names match re, at the addresses gdb shows.
func (d *Debugger) nondebugSymbols(q symbolQuery, re *regexp.Regexp, data bool, fallback []string) {
	lines := fallback
	if st, ok := d.s.Target().(engine.SymbolTables); ok {
		lines = nil
		for _, s := range st.NondebugSymbols() {
			if s.Data == data && re.MatchString(s.Name) {
				lines = append(lines, fmt.Sprintf("0x%016x  %s", d.fileAddress(s.Addr), s.Name))
			}
		}
	}
	switch {
	case len(lines) == 0 || q.nondebugOff:
	case q.quiet: // gdb's -q leaves out this header too
		d.printf("%s\n", strings.Join(lines, "\n"))
	default:
		d.printf("\nNon-debugging symbols:\n%s\n", strings.Join(lines, "\n"))
	}
}

// infoFunctions is gdb's info functions [-q] [-n] [REGEX]: the functions with a name that
// matches, by source file, with the line each starts at; then those without debug
// information.
func (d *Debugger) infoFunctions(args string) {
	q, re, ok := d.symbolQuery(args)
	if !ok {
		return
	}
	fns, ok := d.functionsMatching(q.expr)
	if !ok {
		return
	}
	d.symbolsHeader(q, "functions")
	declarer, _ := d.s.Target().(engine.FunctionDeclarer)
	byFile := map[string][]string{}
	var files, nodebug []string
	for _, f := range fns {
		var decl engine.FunctionDecl
		if declarer != nil {
			decl, _ = declarer.FunctionDecl(f)
		}
		if decl.Text == "" { // the target's own words: where its code is, its name
			if loc, err := d.s.Target().ResolveFunction(f); err == nil && loc.File != "" {
				decl = engine.FunctionDecl{Text: f, File: loc.File, Line: loc.Line}
			}
		}
		if decl.File == "" {
			nodebug = append(nodebug, d.nodebugSymbol(f))
			continue
		}
		file := d.fileName(decl.File)
		if _, seen := byFile[file]; !seen {
			files = append(files, file)
		}
		byFile[file] = append(byFile[file], declLine(decl.Line, decl.Text))
	}
	slices.Sort(files)
	for _, file := range files {
		d.printf("\nFile %s:\n%s\n", file, strings.Join(byFile[file], "\n"))
	}
	d.nondebugSymbols(q, re, false, nodebug)
}

// infoVariables is gdb's info variables [-q] [-n] [REGEX]: the global and static variables
// with a name that matches, by source file (in each, the globals by name, then the
// statics); then the data symbols without debug information.
func (d *Debugger) infoVariables(args string) {
	q, re, ok := d.symbolQuery(args)
	if !ok {
		return
	}
	declarer, isDeclarer := d.s.Target().(engine.VariableDeclarer)
	if !isDeclarer {
		d.showScope("Globals") // a target without declarations: its globals' values
		return
	}
	d.symbolsHeader(q, "variables")
	var vs []engine.VariableDecl
	for _, v := range declarer.VariableDecls() {
		if re.MatchString(v.Name) {
			v.File = d.fileName(v.File)
			vs = append(vs, v)
		}
	}
	slices.SortFunc(vs, func(a, b engine.VariableDecl) int {
		static := func(v engine.VariableDecl) int {
			if v.Static {
				return 1
			}
			return 0
		}
		return cmp.Or(strings.Compare(a.File, b.File), static(a)-static(b), strings.Compare(a.Name, b.Name))
	})
	vs = slices.CompactFunc(vs, func(a, b engine.VariableDecl) bool { return a.File == b.File && a.Name == b.Name && a.Text == b.Text })
	for i, v := range vs {
		if i == 0 || v.File != vs[i-1].File {
			d.printf("\nFile %s:\n", v.File)
		}
		d.printf("%s\n", declLine(v.Line, v.Text))
	}
	d.nondebugSymbols(q, re, true, nil)
}

// declLine is a declaration as gdb lists it, after its line ("12:\tint n;"; a tab alone
// when its line is not known, as for a function of assembly).
func declLine(line int, text string) string {
	if line == 0 {
		return "\t" + text
	}
	return fmt.Sprintf("%d:\t%s", line, text)
}

// infoTypes is gdb's info types [REGEXP]: the program's named types whose names match, by
// the file that declares them (a base type under its unit's), sorted by name, each with
// its declaration's line.
func (d *Debugger) infoTypes(expr string) {
	re, err := compileBRE(expr)
	if err != nil {
		d.fail("Invalid regexp: %v\n", err)
		return
	}
	declarer, ok := d.s.Target().(engine.TypeDeclarer)
	if !ok {
		d.fail("This target does not list its types.\n")
		return
	}
	if expr == "" {
		d.printf("All defined types:\n")
	} else {
		d.printf("All types matching regular expression \"%s\":\n", expr)
	}
	type entry struct{ file, name, line string }
	var es []entry
	for _, t := range declarer.TypeDecls() {
		if !re.MatchString(t.Name) {
			continue
		}
		line := "\t" + t.Text
		if t.Line > 0 {
			line = strconv.Itoa(t.Line) + ":" + line
		}
		es = append(es, entry{d.fileName(t.File), t.Name, line})
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Or(strings.Compare(a.file, b.file), strings.Compare(a.name, b.name), strings.Compare(a.line, b.line))
	})
	es = slices.Compact(es) // a header's type, declared again by every unit that includes it
	for i, e := range es {
		if i == 0 || e.file != es[i-1].file {
			d.printf("\nFile %s:\n", e.file)
		}
		d.printf("%s\n", e.line)
	}
}

// nodebugSymbol is a function without debug information as info functions lists it: its
// address, when it has one, and its name.
func (d *Debugger) nodebugSymbol(name string) string {
	if a, err := d.s.Address(d.frame, "&"+name); err == nil {
		return fmt.Sprintf("0x%016x  %s", a, name)
	}
	return name
}

package gdbcmd

// Commands over the program's names: gdb's rbreak, info functions and info types.

import (
	"cmp"
	"fmt"
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

// cmdRbreak is gdb's rbreak REGEX: a breakpoint on every function whose name matches.
func cmdRbreak(d *Debugger, args string) bool {
	fns, ok := d.functionsMatching(strings.TrimSpace(args))
	if !ok {
		return false
	}
	for _, f := range fns {
		d.setBreak(f, "Breakpoint", nil)
	}
	return false
}

// infoFunctions is gdb's info functions [REGEX]: the functions with a name that matches,
// by source file, with the line each starts at.
func (d *Debugger) infoFunctions(expr string) {
	fns, ok := d.functionsMatching(expr)
	if !ok {
		return
	}
	if expr == "" {
		d.printf("All defined functions:\n")
	} else {
		d.printf("All functions matching regular expression \"%s\":\n", expr)
	}
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
		byFile[file] = append(byFile[file], fmt.Sprintf("%d:\t%s", decl.Line, decl.Text))
	}
	slices.Sort(files)
	for _, file := range files {
		d.printf("\nFile %s:\n%s\n", file, strings.Join(byFile[file], "\n"))
	}
	if len(nodebug) > 0 {
		d.printf("\nNon-debugging symbols:\n%s\n", strings.Join(nodebug, "\n"))
	}
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

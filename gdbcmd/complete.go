package gdbcmd

import (
	"sort"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// Tab completion: command names, subcommands, function and file names where a location
// goes, variable names and fields where an expression goes, and $registers.

// subcommands of the commands that take a fixed word first.
var subcommands = map[string][]string{
	"info": {"address", "args", "breakpoints", "display", "frame", "functions", "globals", "inferiors", "line", "locals", "proc", "program", "registers",
		"scope", "sharedlibrary", "signals", "source", "symbol", "threads", "types", "variables"},
	"set": {"args", "confirm", "context", "disassembly-flavor", "environment", "height", "listsize", "pagination", "print",
		"verbose", "width"},
	"show": {"args", "confirm", "context", "disassembly-flavor", "environment", "height", "listsize", "pagination", "print",
		"values", "verbose", "width"},
}

// Complete returns the unchanged start of line and the candidates for the word at its end.
func (d *Debugger) Complete(line string) (head string, cands []string) {
	word, rest, spaced := strings.Cut(strings.TrimLeft(line, " "), " ")
	lead := line[:len(line)-len(strings.TrimLeft(line, " "))]
	if !spaced {
		if i := strings.IndexByte(word, '/'); i > 0 { // print/x: nothing to complete yet
			return line, nil
		}
		return lead, withSpace(d.commandNames(word))
	}
	name := word
	if i := strings.IndexByte(word, '/'); i > 0 {
		name = word[:i]
	}
	c, err := lookup(name)
	if err != nil {
		return line, nil
	}
	head = line[:len(line)-len(rest)]
	switch c.name {
	case "help":
		return head, d.commandNames(rest)
	case "info", "show":
		sub, more, ok := strings.Cut(rest, " ")
		if !ok {
			return head, withSpace(prefixed(subcommands[c.name], sub))
		}
		if strings.HasPrefix("registers", sub) && len(sub) >= 1 && c.name == "info" && d.s != nil {
			tok := lastField(more) // a register name, without its '$'
			cands, _, _ := d.s.CompleteExpression(d.frame, "$"+tok)
			for i := range cands {
				cands[i] = strings.TrimPrefix(cands[i], "$")
			}
			return line[:len(line)-len(tok)], cands
		}
		return line, nil
	case "set":
		if strings.HasPrefix(rest, "$") && d.s != nil {
			cands, _, _ := d.s.CompleteExpression(d.frame, rest)
			return head, cands
		}
		sub, _, ok := strings.Cut(rest, " ")
		if !ok {
			return head, withSpace(prefixed(subcommands["set"], sub))
		}
		return line, nil
	case "break", "tbreak", "list":
		return head, d.completeLocation(rest)
	case "print", "call", "display", "ptype", "whatis", "x":
		if d.s == nil {
			return line, nil
		}
		cands, n, _ := d.s.CompleteExpression(d.frame, rest)
		return line[:len(line)-n], cands
	}
	return line, nil
}

func (d *Debugger) commandNames(prefix string) []string {
	var out []string
	for _, c := range cmdTable {
		if strings.HasPrefix(c.name, prefix) {
			out = append(out, c.name)
		}
	}
	sort.Strings(out)
	return out
}

// completeLocation offers functions, and files followed by ':' (break FILE:LINE).
func (d *Debugger) completeLocation(prefix string) []string {
	n, ok := d.s.Target().(engine.Names)
	if !ok || strings.HasPrefix(prefix, "*") || strings.Contains(prefix, ":") {
		return nil
	}
	out := prefixed(n.FunctionNames(), prefix)
	for _, f := range prefixed(n.SourceFiles(), prefix) {
		out = append(out, f+":")
	}
	return unique(out)
}

func lastField(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		return s[i+1:]
	}
	return s
}

func prefixed(list []string, prefix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func withSpace(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s + " "
	}
	return out
}

func unique(list []string) []string {
	sort.Strings(list)
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

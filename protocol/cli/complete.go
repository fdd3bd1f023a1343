package cli

import (
	"regexp"
	"sort"
	"strings"
)

// Tab completion: command names, subcommands, function and file names where a location
// goes, variable names and fields where an expression goes, and $registers.

// subcommands of the commands that take a fixed word first.
var subcommands = map[string][]string{
	"info": {"args", "breakpoints", "display", "frame", "globals", "locals", "program", "registers", "threads", "variables"},
	"set":  {"context", "listsize"},
	"show": {"context", "listsize", "values"},
}

// complete returns the unchanged start of line and the candidates for the word at its end.
func (d *Debugger) complete(line string) (head string, cands []string) {
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
		if strings.HasPrefix("registers", sub) && len(sub) >= 1 && c.name == "info" {
			h, cs := d.completeRegisters(lastField(more), false)
			return line[:len(line)-len(lastField(more))] + h, cs
		}
		return line, nil
	case "set":
		if strings.HasPrefix(rest, "$") {
			return head, d.registerWords(rest)
		}
		sub, _, ok := strings.Cut(rest, " ")
		if !ok {
			return head, withSpace(prefixed(subcommands["set"], sub))
		}
		return line, nil
	case "break", "tbreak", "list":
		return head, d.completeLocation(rest)
	case "print", "call", "display", "ptype", "whatis", "x":
		if m := indexTail.FindStringSubmatch(rest); m != nil { // m["ke<Tab>: a map key or list index
			return line[:len(line)-len(m[2])], d.children(m[1], m[2], true)
		}
		tok := exprTail(rest)
		if tok == "" && rest != "" && isIdentByte(rest[len(rest)-1]) { // inside a number
			return line, nil
		}
		h, cs := d.completeExpr(tok)
		return line[:len(line)-len(tok)] + h, cs
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
	if d.cfg.Names == nil || strings.HasPrefix(prefix, "*") || strings.Contains(prefix, ":") {
		return nil
	}
	funcs, files := d.cfg.Names(d.s.Target())
	out := prefixed(funcs, prefix)
	for _, f := range prefixed(files, prefix) {
		out = append(out, f+":")
	}
	return unique(out)
}

// completeExpr completes the identifier path at the end of an expression: a variable of
// the selected frame (or a global), a field or element of one (a.b), or a $register.
func (d *Debugger) completeExpr(tok string) (head string, cands []string) {
	if strings.HasPrefix(tok, "$") {
		return d.completeRegisters(tok, true)
	}
	if i := strings.LastIndexByte(tok, '.'); i > 0 {
		return tok[:i+1], d.children(tok[:i], tok[i+1:], false)
	}
	return "", unique(prefixed(d.variableNames(), tok))
}

// indexTail is an expression ending inside brackets: base[partial-key.
var indexTail = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\[[^\[\]]*\]|\.\w+)*)\[([^\[\]]*)$`)

// children completes the fields (a.b) or the keys and indexes (a[k]) of the value of base.
func (d *Debugger) children(base, prefix string, index bool) []string {
	v, err := d.eval(base, true)
	if err != nil || v.Ref == 0 {
		return nil
	}
	kids, err := d.s.Variables(v.Ref)
	if err != nil {
		return nil
	}
	var names []string
	for _, k := range kids {
		switch {
		case index:
			names = append(names, k.Name+"]")
		case identifier.MatchString(k.Name):
			names = append(names, k.Name)
		}
	}
	return unique(prefixed(names, prefix))
}

var identifier = regexp.MustCompile(`^[A-Za-z_]\w*$`)

// variableNames lists the names in the selected frame's scopes (locals first), and the
// functions, which expressions may call.
func (d *Debugger) variableNames() []string {
	var out []string
	if scopes, err := d.s.Scopes(d.frame); err == nil {
		for _, sc := range scopes {
			if sc.Name == "Registers" {
				continue
			}
			vars, err := d.s.Variables(sc.Ref)
			if err != nil {
				continue
			}
			for _, v := range vars {
				out = append(out, v.Name)
			}
		}
	}
	if d.cfg.Names != nil {
		funcs, _ := d.cfg.Names(d.s.Target())
		out = append(out, funcs...)
	}
	return out
}

// completeRegisters completes a register name, with its '$' when dollar is set.
func (d *Debugger) completeRegisters(tok string, dollar bool) (string, []string) {
	if dollar {
		return "", d.registerWords(tok)
	}
	regs, err := d.s.Registers()
	if err != nil {
		return "", nil
	}
	var names []string
	for _, r := range regs {
		names = append(names, r.Name)
	}
	return "", prefixed(names, tok)
}

func (d *Debugger) registerWords(tok string) []string {
	regs, err := d.s.Registers()
	if err != nil {
		return nil
	}
	var names []string
	for _, r := range regs {
		names = append(names, "$"+r.Name)
	}
	return prefixed(names, tok)
}

// exprTail is the path being typed at the end of an expression: a name followed by
// fields and indexes (pt.x, s["beta"][0], $rip), or "" after an operator.
func exprTail(s string) string {
	return pathTail.FindString(s)
}

var pathTail = regexp.MustCompile(`[A-Za-z_$][\w$]*(?:\[[^\[\]]*\]|\.\w*)*$`)

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

package engine

// Completion of an expression being typed, for every front end that offers it (the
// terminal's Tab, DAP's completions request): variables and functions, fields, map keys
// and list indexes, registers.

import (
	"regexp"
	"slices"
	"strings"
)

// CompleteExpression offers what can end text, an expression being typed in frame: a
// variable of the frame (locals first, then globals) or a function, a field of a value
// (pt.x), a key or index of one (m["k or xs[), or a $register. The candidates replace the
// last `replace` bytes of text (the partial name, field or key); a key or index candidate
// ends with its closing ']'. None is offered inside a number or a string.
func (s *Session) CompleteExpression(frame int, text string) (cands []string, replace int, err error) {
	if err := s.checkStopped("complete"); err != nil {
		return nil, 0, err
	}
	if m := indexTail.FindStringSubmatch(text); m != nil { // s["be: a key or an index
		return s.children(frame, m[1], m[2], true), len(m[2]), nil
	}
	tok := pathTail.FindString(text)
	if tok == "" {
		return nil, 0, nil
	}
	if start := len(text) - len(tok); start > 0 && isNameByte(text[start-1]) { // inside a number: 12
		return nil, 0, nil
	}
	switch {
	case strings.HasPrefix(tok, "$"):
		var names []string
		if regs, err := s.Registers(); err == nil {
			for _, r := range regs {
				names = append(names, "$"+r.Name)
			}
		}
		return withPrefix(names, tok), len(tok), nil
	case strings.LastIndexByte(tok, '.') > 0:
		i := strings.LastIndexByte(tok, '.')
		return s.children(frame, tok[:i], tok[i+1:], false), len(tok) - i - 1, nil
	}
	return withPrefix(s.visibleNames(frame), tok), len(tok), nil
}

// maxChildCompletions bounds the fields, keys or indexes of one value that are offered.
const maxChildCompletions = 1000

var (
	// indexTail is an expression ending inside brackets: base[partial-key.
	indexTail = regexp.MustCompile(`([A-Za-z_$][\w$]*(?:\[[^\[\]]*\]|\.\w+)*)\[([^\[\]]*)$`)
	// pathTail is the path being typed at the end of an expression: a name followed by
	// fields and indexes (pt.x, s["beta"][0], $rip).
	pathTail   = regexp.MustCompile(`[A-Za-z_$][\w$]*(?:\[[^\[\]]*\]|\.\w*)*$`)
	identifier = regexp.MustCompile(`^[A-Za-z_]\w*$`)
)

// children completes the fields (a.b) or the keys and indexes (a[k]) of base's value.
func (s *Session) children(frame int, base, prefix string, index bool) []string {
	v, err := s.Evaluate(frame, base, EvalMode{Pure: true})
	if err != nil || v.Ref == 0 {
		return nil
	}
	kids, err := s.VariablesPage(v.Ref, 0, maxChildCompletions) // a million-element list stays cheap
	if err != nil {
		return nil
	}
	var names []string
	for _, k := range kids {
		switch {
		case index && strings.HasPrefix(k.Name, prefix): // in the value's own order
			names = append(names, k.Name+"]")
		case !index && identifier.MatchString(k.Name):
			names = append(names, k.Name)
		}
	}
	if index {
		return names
	}
	return withPrefix(names, prefix)
}

// visibleNames are the variables of frame's scopes but its registers, and the functions
// an expression may call.
func (s *Session) visibleNames(frame int) []string {
	var out []string
	if scopes, err := s.Scopes(frame); err == nil {
		for _, sc := range scopes {
			if sc.Name == "Registers" {
				continue
			}
			if vars, err := s.Variables(sc.Ref); err == nil {
				for _, v := range vars {
					out = append(out, v.Name)
				}
			}
		}
	}
	if n, ok := s.t.(Names); ok {
		out = append(out, n.FunctionNames()...)
	}
	return out
}

// withPrefix is the sorted, distinct strings of list that begin with prefix.
func withPrefix(list []string, prefix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

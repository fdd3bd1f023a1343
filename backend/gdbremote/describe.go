package gdbremote

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// DescribeSymbol implements engine.SymbolDescriber: a variable of the frame's scope (its
// innermost block's first), else a global, a function, or a symbol of the program without
// debug information.
func (t *Target) DescribeSymbol(frame int, name string) (shown, where string, err error) {
	if t.started() {
		if fr, err := t.frame(frame); err == nil {
			params, locals, _ := t.sym.FrameVarsOf(fr)
			vars := append(slices.Clone(params), locals...)
			for i := len(vars) - 1; i >= 0; i-- { // the innermost block's come last
				if vars[i].Name == name {
					return "", t.sym.DescribeLocation(vars[i]), nil
				}
			}
		}
	}
	if v, ok := t.sym.Global(name); ok {
		return "", t.sym.DescribeLocation(v), nil
	}
	if fn, ok := t.sym.LastOverload(name); ok {
		return t.sym.Signature(fn), fmt.Sprintf("a function at address %#x", fn.Start()), nil
	}
	if addr, ok := t.anySymbol(name); ok { // the program's or a library's
		if _, _, declared := t.sym.ExternType(name); declared { // extern int counter; as gdb reads it
			return "", fmt.Sprintf("static storage at address %#x", addr), nil
		}
		return "", fmt.Sprintf("at %#x in a file compiled without debugging", addr), nil
	}
	return "", "", fmt.Errorf("No symbol %q in current context.", name)
}

// ScopeFunction is where the scope of the function name starts for info scope: gdb takes
// the last of a C++ function's overloads.
func (t *Target) ScopeFunction(name string) (engine.Location, error) {
	fn, ok := t.sym.LastOverload(name)
	if !ok {
		return t.ResolveFunction(name) // one without debug information: a scope without variables
	}
	return t.location(fn.Start()), nil
}

// DescribeScope implements engine.SymbolDescriber.
func (t *Target) DescribeScope(pc uint64) ([]engine.ScopeSymbol, error) {
	params, locals, err := t.sym.FrameVars(pc)
	if err != nil {
		return nil, err
	}
	var out []engine.ScopeSymbol
	add := func(v *elfsym.Var) {
		where := t.sym.DescribeLocation(v)
		if strings.HasPrefix(where, "static storage") { // info scope's words, not info address's
			where = "in " + where
		}
		out = append(out, engine.ScopeSymbol{Name: v.Name, Where: where, Size: max(v.Size(), 0)})
	}
	// The innermost block first, as gdb walks blocks outwards; a block's own in their order.
	byDepth := slices.Clone(locals)
	slices.SortStableFunc(byDepth, func(a, b *elfsym.Var) int { return b.Depth - a.Depth })
	for _, v := range byDepth {
		if v.Depth > 0 {
			add(v)
		}
	}
	for _, v := range params {
		add(v)
	}
	for _, v := range byDepth {
		if v.Depth == 0 {
			add(v)
		}
	}
	return out, nil
}

// ArgEntryValues implements engine.EntryValuer.
func (t *Target) ArgEntryValues(frame int) map[string]string {
	fr, err := t.frame(frame)
	if err != nil {
		return nil
	}
	params, _, _ := t.sym.FrameVarsOf(fr)
	out := map[string]string{}
	for _, p := range params {
		if v, ok := t.sym.ParamEntryValue(fr, p, cachedMem{t}); ok {
			out[p.Name] = v.Text
		}
	}
	return out
}

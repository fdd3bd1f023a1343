package kitevm

import (
	"strconv"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/vm"
)

// VariablesPage implements engine.VariablePager: a list's or map's children from start on,
// without making the others, so that a million-item list opens at once.
func (t *Target) VariablesPage(r, start, count int) ([]engine.Variable, error) {
	var out []engine.Variable
	var bad error
	err := t.do(func() {
		if r <= 0 || r > len(t.refs) {
			bad = engine.ErrNoVariable
			return
		}
		rf := t.refs[r-1]
		if rf.kind != refValue {
			out = nil // scopes are small: page the full list below
			return
		}
		end := func(i int) bool { return count > 0 && i >= start+count }
		switch v := rf.val; v.Kind() {
		case vm.ListKind:
			items := engine.Page(v.List().Items, start, count)
			out = make([]engine.Variable, 0, len(items))
			for i, x := range items {
				out = append(out, t.variable(strconv.Itoa(start+i), x))
			}
		case vm.MapKind:
			i := 0
			v.Map().Range(func(k, x vm.Value) bool {
				if end(i) {
					return false
				}
				if i >= start {
					out = append(out, t.variable(k.Repr(), x))
				}
				i++
				return true
			})
		default:
			out = engine.Page(t.children(v), start, count)
		}
		if out == nil {
			out = []engine.Variable{}
		}
	})
	if err == nil {
		err = bad
	}
	if err == nil && out == nil { // a scope
		all, err := t.Variables(r)
		return engine.Page(all, start, count), err
	}
	return out, err
}

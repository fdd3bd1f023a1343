package kitevm

import (
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/vm"
)

// VariablesPage implements engine.VariablePager: a list's or map's children from start on,
// without making the others, so that a million-item list opens at once. One trip to the VM
// goroutine, as Variables.
func (t *Target) VariablesPage(r, start, count int) ([]engine.Variable, error) {
	var out []engine.Variable
	var bad error
	err := t.do(func() {
		if r <= 0 || r > len(t.refs) {
			bad = engine.ErrNoVariable
			return
		}
		rf := t.refs[r-1]
		if rf.kind != refValue { // scopes are small: made whole, then paged
			out = engine.Page(t.list(rf), start, count)
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
	})
	if err == nil {
		err = bad
	}
	return out, err
}

// previewItems is how many children a container's value text shows: the text of a
// million-item list costs no more than that of a hundred-item one, so listing a scope that
// holds one does not slow every step down (its children are paged, see VariablesPage).
const previewItems = 100

// preview is v's text as Repr shows it, with only the first previewItems children of a
// list or map.
func preview(v vm.Value) string {
	switch v.Kind() {
	case vm.ListKind:
		items := v.List().Items
		if len(items) <= previewItems {
			break
		}
		s := vm.ListOf(items[:previewItems]).Repr()
		return s[:len(s)-1] + ", ... " + strconv.Itoa(len(items)-previewItems) + " more]"
	case vm.MapKind:
		m := v.Map()
		if m.Len() <= previewItems {
			break
		}
		var b strings.Builder
		b.WriteByte('{')
		n := 0
		m.Range(func(k, x vm.Value) bool {
			if n > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k.Repr() + ": " + x.Repr())
			n++
			return n < previewItems
		})
		b.WriteString(", ... " + strconv.Itoa(m.Len()-previewItems) + " more}")
		return b.String()
	}
	return v.Repr()
}

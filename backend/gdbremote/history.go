package gdbremote

// A front end's value history ($1, $, $v) as operands: the values Evaluate gives are kept
// whole (engine.Variable.Kept), and an expression that names one reads it back as it was.

import (
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// keptWhole reports whether a history keeps v whole (Variable.Kept): a struct, union or
// array, whose text cannot be read back as an expression (a number's or a pointer's can).
func keptWhole(v elfsym.Value) bool {
	return v.Typed() && (v.Kind == "struct" || v.Kind == "union" || v.Kind == "array" ||
		v.Kind == "pointer" && !strings.HasPrefix(v.Text, "0x")) // (print address off: no address to read back)
}

// UseHistory implements engine.HistoryUser: the values Evaluate gives are kept whole
// (Variable.Kept), and an expression reads them back by the names h knows them by.
func (t *Target) UseHistory(h *engine.ValueHistory) { t.history.Store(h) }

// historyValue is the value a front end's history keeps whole under ref ($5, $v), as read
// when it was recorded (gdb's history holds contents, not a place to read again).
func (t *Target) historyValue(ref string) (elfsym.Value, bool) {
	h := t.history.Load()
	if h == nil {
		return elfsym.Value{}, false
	}
	o, ok := h.Kept(ref)
	if !ok {
		return elfsym.Value{}, false
	}
	v, ok := o.(*elfsym.Value)
	if !ok {
		return elfsym.Value{}, false
	}
	out := *v
	out.Name = ref
	return out, true
}

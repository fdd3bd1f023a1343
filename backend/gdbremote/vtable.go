package gdbremote

// Target: a C++ object's virtual function table, as gdb's info vtbl shows it.

import (
	"errors"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// Vtable implements engine.VtableReader: the vtable the object expr is or points to
// uses (its class's by its static type, its entries as the vtable pointer finds them).
func (t *Target) Vtable(frame int, expr string) (engine.Vtable, error) {
	if err := t.needStopped(); err != nil {
		return engine.Vtable{}, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Vtable{}, err
	}
	ev := &evaluator{t: t, fr: fr, pure: true}
	v, err := ev.arith(strings.TrimSpace(expr))
	if err != nil {
		return engine.Vtable{}, err
	}
	v = v.Referred()
	if v.Kind == "pointer" {
		if v, err = child(v, "*"); err != nil {
			return engine.Vtable{}, err
		}
	}
	st, ok := t.sym.HasVtable(v)
	if !ok || !v.InMemory {
		return engine.Vtable{}, errors.New("This object does not have a virtual function table") // gdb's words
	}
	ptr := t.sym.Arch.PtrSize
	mem := cachedMem{t}
	w, err := mem.ReadMemory(v.Addr, ptr)
	if err != nil {
		return engine.Vtable{}, err
	}
	vt := engine.Vtable{Class: st.StructName, Addr: Uint(w, t.order), Object: v.Addr}
	n := t.sym.VtableSize(st)
	slots, err := mem.ReadMemory(vt.Addr, n*ptr)
	if err != nil {
		return engine.Vtable{}, err
	}
	for i := range n {
		fn := Uint(slots[i*ptr:(i+1)*ptr], t.order)
		e := engine.VtableEntry{Addr: fn}
		if sym, ok := t.sym.SymbolAt(fn); ok {
			e.Name = cxxname.Symbol(sym)
		}
		vt.Entries = append(vt.Entries, e)
	}
	return vt, nil
}

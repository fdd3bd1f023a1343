package gdbremote

// Target: C++ objects, their virtual function tables (gdb's info vtbl) and the classes
// their vtables say they are (set print object); the functions an overloaded name stands
// for (list).

import (
	"errors"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// DynamicClass implements engine.DynamicClasses: the C++ object expr is, or points to, as
// its vtable pointer says.
func (t *Target) DynamicClass(frame int, expr string) (engine.DynamicObject, error) {
	v, err := t.objectOf(frame, expr)
	if err != nil {
		return engine.DynamicObject{}, err
	}
	class, top := t.sym.DynamicClass(v.obj, cachedMem{t})
	return engine.DynamicObject{Class: class, Pointer: v.pointer, Top: top}, nil
}

// object is a C++ object an expression is or points to.
type object struct {
	obj     elfsym.Value
	pointer bool
}

// objectOf evaluates expr in the frame (nothing of the program runs) to the object it is
// or points to.
func (t *Target) objectOf(frame int, expr string) (object, error) {
	if err := t.needStopped(); err != nil {
		return object{}, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return object{}, err
	}
	v, err := (&evaluator{t: t, fr: fr, pure: true}).arith(strings.TrimSpace(expr))
	if err != nil {
		return object{}, err
	}
	o := object{obj: v.Referred()}
	if o.obj.Kind == "pointer" {
		if o.obj, err = child(o.obj, "*"); err != nil {
			return object{}, err
		}
		o.pointer = true
	}
	return o, nil
}

// Vtable implements engine.VtableReader: the vtable the object expr is or points to
// uses (its class's by its static type, its entries as the vtable pointer finds them).
func (t *Target) Vtable(frame int, expr string) (engine.Vtable, error) {
	o, err := t.objectOf(frame, expr)
	if err != nil {
		return engine.Vtable{}, err
	}
	v := o.obj
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

// FunctionPlaces implements engine.FunctionPlaces: each function a name matches, where its
// code begins.
func (t *Target) FunctionPlaces(name string) []engine.FunctionPlace {
	var out []engine.FunctionPlace
	for _, fn := range t.sym.FuncsNamed(name) {
		l, ok := t.sym.PCToLine(fn.Start())
		if !ok {
			continue
		}
		out = append(out, engine.FunctionPlace{Signature: t.sym.Signature(fn), File: l.File, Line: l.Line})
	}
	return out
}

package elfsym

// C++ method calls: which classes' member functions a call obj.f(...) may run, as gdb
// chooses: the object's dynamic class (named by the vtable its vtable pointer points into:
// "vtable for geo::Square") for a virtual function, then its own class and its bases.

import (
	"debug/dwarf"
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// MethodClasses are the classes, most derived first, whose member functions a call on the
// C++ object v may run; nil for a value that is not a class object.
func (f *File) MethodClasses(v Value, mem Memory) []string {
	st, ok := resolve(v.typ).(*dwarf.StructType)
	if !ok || !isCXX(st) {
		return nil
	}
	var out []string
	if dyn, _ := f.dynamicClass(st, v, mem); dyn != "" && dyn != st.StructName {
		out = append(out, dyn)
	}
	var walk func(st *dwarf.StructType)
	walk = func(st *dwarf.StructType) {
		out = append(out, st.StructName)
		if cl := f.ClassOf(st); cl != nil {
			for _, b := range cl.Bases {
				walk(b.Type)
			}
		}
	}
	walk(st)
	return out
}

// DynamicClass is the class the C++ object v really is, as its vtable pointer says
// (a geo::Shape that is a geo::Square), and top, what to add to v's address for the
// whole object's (negative for a base that is not the first); "" for an object without one.
func (f *File) DynamicClass(v Value, mem Memory) (class string, top int64) {
	st, ok := f.HasVtable(v)
	if !ok {
		return "", 0
	}
	if dyn, top := f.dynamicClass(st, v.Referred(), mem); dyn != "" {
		return dyn, top
	}
	return st.StructName, 0
}

// dynamicClass is the class whose vtable the object's vtable pointer (its first word, when
// it or a base at offset 0 has one) points into, with the offset to the whole object's
// start the vtable holds two words before where the pointer points (the Itanium C++ ABI's
// offset-to-top); "" when it has none.
func (f *File) dynamicClass(st *dwarf.StructType, v Value, mem Memory) (class string, top int64) {
	if !f.hasVptr(st) || !v.InMemory || mem == nil {
		return "", 0
	}
	ptr := f.Arch.PtrSize
	w, err := mem.ReadMemory(v.Addr, ptr)
	if err != nil {
		return "", 0
	}
	vptr := uintFrom(w, f.Arch)
	sym, ok := f.SymbolAt(vptr)
	if !ok {
		return "", 0
	}
	name, _, _ := strings.Cut(cxxname.Symbol(sym), "+")
	class, ok = strings.CutPrefix(name, "vtable for ")
	if !ok {
		return "", 0
	}
	if w, err := mem.ReadMemory(vptr-2*uint64(ptr), ptr); err == nil {
		top = signExtend(uintFrom(w, f.Arch), ptr)
	}
	return class, top
}

// hasVptr reports whether st, or the base class at its start, has a vtable pointer.
func (f *File) hasVptr(st *dwarf.StructType) bool {
	for range 16 {
		for _, fld := range st.Field {
			if fld.ByteOffset == 0 && strings.HasPrefix(fld.Name, "_vptr.") {
				return true
			}
		}
		cl := f.ClassOf(st)
		if cl == nil || len(cl.Bases) == 0 || cl.Bases[0].Offset != 0 {
			return false
		}
		st = cl.Bases[0].Type
	}
	return false
}

// VtableSize is how many entries the vtable of the class st has, as gdb counts them: one
// past the last slot a virtual function of it or of its bases names (DW_AT_vtable_elem_location).
func (f *File) VtableSize(st *dwarf.StructType) int {
	n := 0
	f.virtualMethods(st, func(_ *dwarf.Entry, slot int) bool {
		n = max(n, slot+1)
		return true
	})
	if cl := f.ClassOf(st); cl != nil {
		for _, b := range cl.Bases {
			if b.Offset == 0 { // the primary base shares the vtable
				n = max(n, f.VtableSize(b.Type))
			}
		}
	}
	return n
}

// HasVtable reports whether the value is a C++ object with a vtable pointer, and its class.
func (f *File) HasVtable(v Value) (*dwarf.StructType, bool) {
	st, ok := resolve(v.Referred().typ).(*dwarf.StructType)
	return st, ok && isCXX(st) && f.hasVptr(st)
}

// DeclaredMethod is the method name of the class of the C++ object v (or of a base) as
// the class declares it, for a method whose code this file lacks but a loaded object
// defines, found by where its linkage name is: std::string's size() is libstdc++'s own
// (explicitly instantiated there). A function value of its declared type (this first);
// ok is false when no declaration so named has a linkage name where finds an address,
// declared says there is one all the same (its code inlined wherever it is used).
func (f *File) DeclaredMethod(v Value, name string, where func(linkage string) (uint64, bool)) (fv Value, ok, declared bool) {
	st, isClass := resolve(v.Referred().typ).(*dwarf.StructType)
	if !isClass {
		return Value{}, false, false
	}
	for range 16 { // the class, then its first bases
		fv, ok, d := f.declaredIn(st, name, where)
		if ok {
			return fv, true, true
		}
		declared = declared || d
		cl := f.ClassOf(st)
		if cl == nil || len(cl.Bases) == 0 {
			break
		}
		st = cl.Bases[0].Type
	}
	return Value{}, false, declared
}

// declaredIn is DeclaredMethod in the class st alone: of its declarations of name with a
// linkage name where finds, the first whose this is not const (gdb's choice for an object
// that is not: std::string's at() that gives a char &), else the first.
func (f *File) declaredIn(st *dwarf.StructType, name string, where func(string) (uint64, bool)) (first Value, found, declared bool) {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return Value{}, false, false
	}
	r := f.DWARF.Reader()
	r.Seek(d.(cxxDecl).off)
	if e, err := r.Next(); err != nil || e == nil || !e.Children {
		return Value{}, false, false
	}
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			return first, found, declared || found
		}
		n, _ := kid.Val(dwarf.AttrName).(string)
		link, _ := kid.Val(dwarf.AttrLinkageName).(string)
		if kid.Tag != dwarf.TagSubprogram || n != name || link == "" {
			if kid.Children {
				r.SkipChildren()
			}
			continue
		}
		declared = true
		addr, defined := where(link)
		ft, _ := f.funcType(kid, r)
		if !defined {
			continue
		}
		sig := funcTypeName(ft)
		fv := Value{Name: st.StructName + "::" + name, Type: sig, Kind: "func", Addr: addr, InMemory: true,
			Text: fmt.Sprintf("{%s} %#x <%s>", sig, addr, cxxname.Symbol(link)), typ: ft}
		if !constThis(ft) {
			return fv, true, true
		}
		if !found {
			first, found = fv, true
		}
	}
}

// constThis reports whether the method of type ft (this first) is a const one.
func constThis(ft *dwarf.FuncType) bool {
	if len(ft.ParamType) == 0 {
		return false
	}
	pt, ok := ft.ParamType[0].(*dwarf.PtrType)
	if !ok {
		return false
	}
	q, ok := pt.Type.(*dwarf.QualType)
	return ok && q.Qual == "const"
}

// virtualMethods calls visit with each virtual method class st declares itself, and its
// slot in the vtable, until visit returns false.
func (f *File) virtualMethods(st *dwarf.StructType, visit func(e *dwarf.Entry, slot int) bool) {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return
	}
	r := f.DWARF.Reader()
	r.Seek(d.(cxxDecl).off)
	if e, err := r.Next(); err != nil || e == nil || !e.Children {
		return
	}
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			return
		}
		if loc, ok := kid.Val(dwarf.AttrVtableElemLoc).([]byte); ok && len(loc) > 1 && loc[0] == 0x10 { // DW_OP_constu
			if !visit(kid, int((&cfiReader{b: loc[1:]}).uleb())) {
				return
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
}

// WholeObject is the C++ object v, a class object or a base inside one, read whole as the
// class its vtable says (gdb's print object: the members of base->member are looked up in
// it); false when v has no vtable or already is of that class.
func (f *File) WholeObject(v Value, mem Memory) (Value, bool) {
	st, ok := f.HasVtable(v)
	if !ok || !v.InMemory {
		return v, false
	}
	class, top := f.dynamicClass(st, v, mem)
	if class == "" || class == st.StructName && top == 0 {
		return v, false
	}
	t, err := f.ParseType(class)
	if err != nil || t.Size() <= 0 {
		return v, false
	}
	whole, err := f.readAt(v.Name, t, uint64(int64(v.Addr)+top), int(t.Size()), mem)
	return whole, err == nil
}

package elfsym

// C++ pointers to members, as the Itanium C++ ABI lays them out and gdb shows them: one to
// a data member is its offset in the object (-1 for none: NULL, else &Outer::b), one to a
// member function a function pointer and an adjustment of this, the pointer odd for a
// virtual function (1 + its vtable slot's offset: &virtual Outer::vget() const).

import (
	"debug/dwarf"
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// MemberPtrType is a pointer to a member of Class: to a data member of type Type, or to a
// member function when Type is a function type (its first parameter this).
type MemberPtrType struct {
	dwarf.CommonType
	Class dwarf.Type
	Type  dwarf.Type
}

func (t *MemberPtrType) String() string { return TypeName(t) }

// Method reports whether t points to a member function.
func (t *MemberPtrType) Method() bool {
	_, ok := t.Type.(*dwarf.FuncType)
	return ok
}

// className is the name of the class t points into.
func (t *MemberPtrType) className() string {
	if st, ok := resolve(t.Class).(*dwarf.StructType); ok {
		return st.StructName
	}
	return TypeName(t.Class)
}

// memberPtrType is the type of the DW_TAG_ptr_to_member_type entry e, whose member is of
// type member: as large as the ABI makes one (a word, two for a member function).
func (f *File) memberPtrType(e *dwarf.Entry, member dwarf.Type) *MemberPtrType {
	mp := &MemberPtrType{Type: member}
	if to, ok := e.Val(dwarf.AttrContainingType).(dwarf.Offset); ok {
		if ct, err := f.DWARF.Type(to); err == nil {
			mp.Class = f.fixCXXType(to, ct)
		}
	}
	mp.ByteSize = int64(f.Arch.PtrSize)
	if ft, ok := member.(*dwarf.FuncType); ok {
		mp.ByteSize *= 2
		mp.Type = thisConstPointer(ft)
	}
	return mp
}

// thisConstPointer is the type of a member function ft with this a const pointer, as gdb
// spells it: (Outer * const, int).
func thisConstPointer(ft *dwarf.FuncType) *dwarf.FuncType {
	if len(ft.ParamType) == 0 {
		return ft
	}
	pt, ok := ft.ParamType[0].(*dwarf.PtrType)
	if !ok {
		return ft
	}
	this := *ft
	this.ParamType = append([]dwarf.Type{&dwarf.QualType{Qual: "const", Type: pt}}, ft.ParamType[1:]...)
	return &this
}

// memberPtrText is the text of b, a pointer to a member of type t, as gdb prints it.
func (f *File) memberPtrText(t *MemberPtrType, b []byte) string {
	ptr := f.Arch.PtrSize
	if len(b) < ptr {
		return fmt.Sprintf("%x", b)
	}
	word := uintFrom(b[:ptr], f.Arch)
	st, _ := resolve(t.Class).(*dwarf.StructType)
	if !t.Method() {
		off := signExtend(word, ptr)
		if off == -1 {
			return "NULL"
		}
		if st != nil {
			if class, name, ok := f.fieldAtOffset(st, off, 16); ok {
				return "&" + class + "::" + name
			}
		}
		return fmt.Sprintf("%d", off)
	}
	switch {
	case word == 0:
		return "NULL"
	case word&1 == 1 && st != nil: // virtual: the slot's offset in the vtable, plus one
		if name, ok := f.virtualMethodName(st, int(word-1)/ptr); ok {
			return "&virtual " + name
		}
		return fmt.Sprintf("&virtual table offset %d", word-1)
	}
	text := fmt.Sprintf("%#x", word)
	if sym, ok := f.SymbolAt(word); ok {
		text += " <" + cxxname.Symbol(sym) + ">"
	}
	return text
}

// fieldAtOffset finds the data member at byte offset off of class st, or of a base class
// at a fixed offset: the name of the class that declares it and its own.
func (f *File) fieldAtOffset(st *dwarf.StructType, off int64, depth int) (class, name string, ok bool) {
	for _, fld := range st.Field {
		if fld.ByteOffset == off && fld.Name != "" && !strings.HasPrefix(fld.Name, "_vptr.") {
			return st.StructName, fld.Name, true
		}
	}
	if cl := f.ClassOf(st); cl != nil && depth > 0 {
		for _, b := range cl.Bases {
			if b.Offset >= 0 && off >= b.Offset && off < b.Offset+b.Type.Size() {
				if class, name, ok := f.fieldAtOffset(b.Type, off-b.Offset, depth-1); ok {
					return class, name, true
				}
			}
		}
	}
	return "", "", false
}

// virtualMethodName is the method of class st (or of its primary base) in vtable slot,
// named as the demangler names its code (Outer::vget() const).
func (f *File) virtualMethodName(st *dwarf.StructType, slot int) (string, bool) {
	var name string
	f.virtualMethods(st, func(e *dwarf.Entry, s int) bool {
		if s != slot {
			return true
		}
		n, _ := e.Val(dwarf.AttrName).(string)
		if fns := f.FuncsNamed(st.StructName + "::" + n); len(fns) > 0 {
			name = cxxname.Symbol(f.Signature(fns[0]))
		} else if link, ok := e.Val(dwarf.AttrLinkageName).(string); ok {
			name = cxxname.Symbol(link)
		}
		return false
	})
	if name == "" {
		if cl := f.ClassOf(st); cl != nil && len(cl.Bases) > 0 && cl.Bases[0].Offset == 0 {
			return f.virtualMethodName(cl.Bases[0].Type, slot)
		}
	}
	return name, name != ""
}

// MemberOf is obj.*mp of a pointer to a data member: the member of the object obj mp
// points to, read from memory.
func (f *File) MemberOf(obj, mp Value, mem Memory) (Value, error) {
	t, ok := resolve(mp.typ).(*MemberPtrType)
	if !ok || t.Method() {
		return Value{}, fmt.Errorf("not a pointer to a data member")
	}
	off := signExtend(uintFrom(mp.Bytes, f.Arch), len(mp.Bytes))
	if off == -1 {
		return Value{}, fmt.Errorf("Attempted dereference of null pointer-to-member") // gdb's words
	}
	if !obj.InMemory {
		return Value{}, fmt.Errorf("Attempt to take address of value not located in memory.")
	}
	out, err := f.readAt("", t.Type, uint64(int64(obj.Addr)+off), int(t.Type.Size()), mem)
	out.Name = obj.Name + ".*" + mp.Name
	return out, err
}

// MethodOf is obj.*mp of a pointer to a member function: the function it calls and this,
// adjusted as the pointer says (through the object's vtable for a virtual one).
func (f *File) MethodOf(obj, mp Value, mem Memory) (fn uint64, this uint64, err error) {
	t, ok := resolve(mp.typ).(*MemberPtrType)
	ptr := f.Arch.PtrSize
	if !ok || !t.Method() || len(mp.Bytes) < 2*ptr {
		return 0, 0, fmt.Errorf("not a pointer to a member function")
	}
	if !obj.InMemory {
		return 0, 0, fmt.Errorf("Attempt to take address of value not located in memory.")
	}
	word, adj := uintFrom(mp.Bytes[:ptr], f.Arch), uintFrom(mp.Bytes[ptr:2*ptr], f.Arch)
	if word == 0 {
		return 0, 0, fmt.Errorf("Attempted dereference of null pointer-to-member")
	}
	this = obj.Addr + adj
	if word&1 == 0 {
		return word, this, nil
	}
	vptr, err := mem.ReadMemory(this, ptr)
	if err != nil {
		return 0, 0, err
	}
	slot, err := mem.ReadMemory(uintFrom(vptr, f.Arch)+word-1, ptr)
	if err != nil {
		return 0, 0, err
	}
	return uintFrom(slot, f.Arch), this, nil
}

// MemberPointer is &CLASS::member, a pointer to a member of the class named class: to a
// data member (its offset), or to a member function (its code, or its vtable slot for a
// virtual one); false when the class has no such member.
func (f *File) MemberPointer(class, member string) (Value, bool) {
	t, err := f.ParseType(class)
	if err != nil {
		return Value{}, false
	}
	st, ok := resolve(t).(*dwarf.StructType)
	if !ok {
		return Value{}, false
	}
	ptr := f.Arch.PtrSize
	name := "&" + class + "::" + member
	for _, fld := range st.Field {
		if fld.Name == member && fld.BitSize == 0 {
			mp := &MemberPtrType{Class: st, Type: fld.Type}
			mp.ByteSize = int64(ptr)
			out := f.FormatValue(mp, f.wordBytes(uint64(fld.ByteOffset), ptr), 0, false, nil, 0)
			out.Name = name
			return out, true
		}
	}
	fv, ok := f.FuncValue(class + "::" + member)
	ft, typed := fv.FuncType()
	if !ok || !typed || !fv.TakesThis() {
		return Value{}, false
	}
	word := fv.Addr
	f.virtualMethods(st, func(e *dwarf.Entry, slot int) bool {
		if n, _ := e.Val(dwarf.AttrName).(string); n == member {
			word = uint64(1 + slot*ptr)
			return false
		}
		return true
	})
	mp := &MemberPtrType{Class: st, Type: thisConstPointer(ft)}
	mp.ByteSize = int64(2 * ptr)
	out := f.FormatValue(mp, append(f.wordBytes(word, ptr), make([]byte, ptr)...), 0, false, nil, 0)
	out.Name = name
	return out, true
}

// isField reports whether class names a class with a data member member.
func (f *File) isField(class, member string) bool {
	t, err := f.ParseType(class)
	if err != nil {
		return false
	}
	st, ok := resolve(t).(*dwarf.StructType)
	if !ok {
		return false
	}
	for _, fld := range st.Field {
		if fld.Name == member {
			return true
		}
	}
	return false
}

// IsClass reports whether name names a class, struct or union type.
func (f *File) IsClass(name string) bool {
	t, err := f.ParseType(name)
	if err != nil {
		return false
	}
	_, ok := resolve(t).(*dwarf.StructType)
	return ok
}

// FuncValueOfCode is the function whose code begins at addr, as FuncValue gives it.
func (f *File) FuncValueOfCode(addr uint64) (Value, bool) {
	fn := f.FuncAt(addr)
	if fn == nil {
		return Value{}, false
	}
	o := f.fileOf(fn)
	if fn.Low+o.Bias != addr {
		return Value{}, false
	}
	v, _, _, ok := o.valueOfFunc(fn, fn.Name)
	return v, ok
}

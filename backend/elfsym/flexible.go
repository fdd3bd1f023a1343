package elfsym

import "debug/dwarf"

// restoreFlexible gives the flexible array members (int data[]) of the structs that t, read
// at off, reaches their unknown bound back. debug/dwarf counts a struct member that takes
// no room as an array of 0, which names int data[] int data[0]; gdb keeps the two apart
// (char tag[0] is a GNU zero-length array). It also gives C11's _Atomic types, which
// debug/dwarf leaves unsupported, their qualified type (_Atomic int). Once per entry, under
// f.lazy. C++'s types get theirs from fixCXXType, which takes each member's type as its
// entry has it.
func (f *File) restoreFlexible(off dwarf.Offset, t dwarf.Type) {
	if f.flexDone[off] {
		return
	}
	if f.flexDone == nil {
		f.flexDone = map[dwarf.Offset]bool{}
	}
	if !needsRestoring(t, map[dwarf.Type]bool{}) {
		f.flexDone[off] = true
		return
	}
	f.restoreFlexibleAt(off)
}

// needsRestoring reports whether t is or leads to a struct with a member that is an
// array of 0 elements (the ones debug/dwarf may have counted so), or to a type debug/dwarf
// does not support (_Atomic).
func needsRestoring(t dwarf.Type, seen map[dwarf.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch tt := t.(type) {
	case *dwarf.PtrType:
		return needsRestoring(tt.Type, seen)
	case *dwarf.TypedefType:
		return needsRestoring(tt.Type, seen)
	case *dwarf.QualType:
		return needsRestoring(tt.Type, seen)
	case *dwarf.ArrayType:
		return needsRestoring(tt.Type, seen)
	case *dwarf.StructType:
		for _, fld := range tt.Field {
			if at, ok := fld.Type.(*dwarf.ArrayType); ok && at.Count == 0 || needsRestoring(fld.Type, seen) {
				return true
			}
		}
	case *dwarf.UnsupportedType:
		return true
	}
	return false
}

// atomicAt is the _Atomic type whose entry is at off, as a qualified type (the same one
// each time); nil for any other entry.
func (f *File) atomicAt(off dwarf.Offset) dwarf.Type {
	if q, ok := f.atomics[off]; ok {
		return q
	}
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil || e.Tag != dwarf.TagAtomicType {
		return nil
	}
	to, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
	if !ok {
		return nil
	}
	in, err := f.DWARF.Type(to)
	if err != nil {
		return nil
	}
	f.restoreFlexibleAt(to)
	if u, ok := in.(*dwarf.UnsupportedType); ok && u.Tag == dwarf.TagAtomicType {
		return nil
	}
	q := atomicOf(in)
	if f.atomics == nil {
		f.atomics = map[dwarf.Offset]dwarf.Type{}
	}
	f.atomics[off] = q
	return q
}

// atomicOf is C11's _Atomic in, as a qualified type: _Atomic int.
func atomicOf(in dwarf.Type) *dwarf.QualType {
	return &dwarf.QualType{CommonType: dwarf.CommonType{ByteSize: in.Size()}, Qual: "_Atomic", Type: in}
}

// restoredInner is what the type entry at to is, when debug/dwarf left it unsupported
// (an _Atomic type): the type to put in its place; nil to keep it.
func (f *File) restoredInner(in dwarf.Type, to dwarf.Offset) dwarf.Type {
	if _, ok := in.(*dwarf.UnsupportedType); !ok {
		return nil
	}
	return f.atomicAt(to)
}

// restoreFlexibleAt walks the type entry at off and the entries it leads to, each once,
// and gives each struct member of 0 elements the type its own entry has (the array of
// unknown bound that debug/dwarf read first, before it counted it 0 for the struct).
func (f *File) restoreFlexibleAt(off dwarf.Offset) {
	if f.flexDone[off] {
		return
	}
	f.flexDone[off] = true
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return
	}
	switch e.Tag {
	case dwarf.TagPointerType, dwarf.TagTypedef, dwarf.TagConstType, dwarf.TagVolatileType,
		dwarf.TagRestrictType, dwarf.TagArrayType:
		if to, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
			f.restoreFlexibleAt(to)
			if t, err := f.DWARF.Type(off); err == nil {
				f.restoreInnerOf(t, to)
			}
		}
		return
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagClassType:
	default:
		return
	}
	t, err := f.DWARF.Type(off)
	st, ok := t.(*dwarf.StructType)
	if err != nil || !ok || !e.Children {
		return
	}
	var members []dwarf.Offset // each member's type entry, in st.Field's order
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		if kid.Tag == dwarf.TagMember {
			to, _ := kid.Val(dwarf.AttrType).(dwarf.Offset)
			members = append(members, to)
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	if len(members) != len(st.Field) {
		return
	}
	for i, to := range members {
		if to == 0 {
			continue
		}
		f.restoreFlexibleAt(to)
		if in := f.restoredInner(st.Field[i].Type, to); in != nil {
			st.Field[i].Type = in
		}
		if at, ok := st.Field[i].Type.(*dwarf.ArrayType); ok && at.Count == 0 {
			if own, err := f.DWARF.Type(to); err == nil {
				st.Field[i].Type = own
			}
		}
	}
}

// restoreInnerOf puts the restored type of the entry at to (an _Atomic one) inside t, a
// pointer, typedef, qualifier or array of it.
func (f *File) restoreInnerOf(t dwarf.Type, to dwarf.Offset) {
	var slot *dwarf.Type // where t holds the type it is built on
	switch tt := t.(type) {
	case *dwarf.PtrType:
		slot = &tt.Type
	case *dwarf.TypedefType:
		slot = &tt.Type
	case *dwarf.QualType:
		slot = &tt.Type
	case *dwarf.ArrayType:
		slot = &tt.Type
	default:
		return
	}
	if in := f.restoredInner(*slot, to); in != nil {
		*slot = in
	}
}

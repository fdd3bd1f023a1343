package elfsym

import "debug/dwarf"

// restoreFlexible gives the flexible array members (int data[]) of the structs that t, read
// at off, reaches their unknown bound back. debug/dwarf counts a struct member that takes
// no room as an array of 0, which names int data[] int data[0]; gdb keeps the two apart
// (char tag[0] is a GNU zero-length array). Once per entry, under f.lazy. C++'s types get
// theirs from fixCXXType, which takes each member's type as its entry has it.
func (f *File) restoreFlexible(off dwarf.Offset, t dwarf.Type) {
	if f.flexDone[off] {
		return
	}
	if f.flexDone == nil {
		f.flexDone = map[dwarf.Offset]bool{}
	}
	if !reachesEmptyArray(t, map[dwarf.Type]bool{}) {
		f.flexDone[off] = true
		return
	}
	f.restoreFlexibleAt(off)
}

// reachesEmptyArray reports whether t is or leads to a struct with a member that is an
// array of 0 elements (the ones debug/dwarf may have counted so).
func reachesEmptyArray(t dwarf.Type, seen map[dwarf.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch tt := t.(type) {
	case *dwarf.PtrType:
		return reachesEmptyArray(tt.Type, seen)
	case *dwarf.TypedefType:
		return reachesEmptyArray(tt.Type, seen)
	case *dwarf.QualType:
		return reachesEmptyArray(tt.Type, seen)
	case *dwarf.ArrayType:
		return reachesEmptyArray(tt.Type, seen)
	case *dwarf.StructType:
		for _, fld := range tt.Field {
			if at, ok := fld.Type.(*dwarf.ArrayType); ok && at.Count == 0 || reachesEmptyArray(fld.Type, seen) {
				return true
			}
		}
	}
	return false
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
		if at, ok := st.Field[i].Type.(*dwarf.ArrayType); ok && at.Count == 0 {
			if own, err := f.DWARF.Type(to); err == nil {
				st.Field[i].Type = own
			}
		}
	}
}

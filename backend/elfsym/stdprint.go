package elfsym

// The C++ standard library's strings and vectors as gdb shows them with libstdc++'s own
// printers (which gdb loads with the library): "hello", std::vector of length 3, capacity 3
// = {1, 2, 3}. Read from libstdc++'s layout (the members its printers read); a type laid
// out otherwise is printed member by member, as before.

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// stdValue formats v as libstdc++'s printer for st would, reporting whether it has one.
func (f *File) stdValue(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	if mem == nil {
		return false
	}
	name := st.StructName
	switch {
	case strings.HasPrefix(name, "std::__cxx11::basic_string<char,"):
		return f.stdString(v, st, b, mem)
	case strings.HasPrefix(name, "std::vector<") && !strings.HasPrefix(name, "std::vector<bool,"):
		return f.stdVector(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::map<"):
		return f.stdTree(v, st, b, addr, mem, depth, "std::map", true)
	case strings.HasPrefix(name, "std::set<"):
		return f.stdTree(v, st, b, addr, mem, depth, "std::set", false)
	}
	return false
}

// stdString is a std::string's text: its characters, up to the print limit.
func (f *File) stdString(v *Value, st *dwarf.StructType, b []byte, mem Memory) bool {
	hider, ok := f.member(st, b, "_M_dataplus")
	if !ok {
		return false
	}
	p, ok1 := f.member(hider.st, hider.b, "_M_p")
	n, ok2 := f.member(st, b, "_M_string_length")
	if !ok1 || !ok2 {
		return false
	}
	ptr, size := uintFrom(p.b, f.Arch), int(uintFrom(n.b, f.Arch))
	limit := unlimited(f.PrintLimits().Elements)
	text, err := mem.ReadMemory(ptr, min(size, limit, 1<<20))
	if err != nil || size < 0 {
		return false
	}
	v.Text = f.charsText(text, size > len(text))
	return true
}

// stdVector is a std::vector's length, capacity and elements (up to the print limit, each
// printed as the element type prints; no runs folded, as the printer's are not).
func (f *File) stdVector(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	start, ok1 := f.member(st, b, "_M_start")
	finish, ok2 := f.member(st, b, "_M_finish")
	end, ok3 := f.member(st, b, "_M_end_of_storage")
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	pt, ok := resolve(start.t).(*dwarf.PtrType)
	if !ok || pt.Type == nil || pt.Type.Size() <= 0 {
		return false
	}
	es := uint64(pt.Type.Size())
	lo, hi, cap := uintFrom(start.b, f.Arch), uintFrom(finish.b, f.Arch), uintFrom(end.b, f.Arch)
	if hi < lo || cap < hi {
		return false
	}
	n, c := (hi-lo)/es, (cap-lo)/es
	v.Text = fmt.Sprintf("std::vector of length %d, capacity %d", n, c)
	if n == 0 {
		v.Children = nil
		return true
	}
	shown := min(n, uint64(unlimited(f.PrintLimits().Elements)), 1<<16)
	data, err := mem.ReadMemory(lo, int(shown*es))
	if err != nil {
		return false
	}
	v.Children = v.Children[:0]
	parts := make([]string, 0, shown)
	for i := range shown {
		c := f.FormatValue(pt.Type, data[i*es:(i+1)*es], lo+i*es, true, mem, depth+1)
		c.Name = fmt.Sprintf("[%d]", i)
		if i < maxArrayChildren {
			v.Children = append(v.Children, c)
		}
		parts = append(parts, c.Text)
	}
	more := ""
	if shown < n {
		more = "..."
	}
	v.Text += " = {" + strings.Join(parts, ", ") + more + "}"
	return true
}

// stdTree is a std::map's or std::set's size and elements in order ([key] = value; a
// set's [i] = key), read from its red-black tree: each node is _Rb_tree_node_base (color,
// parent, left, right) followed by the element.
func (f *File) stdTree(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int, kind string, isMap bool) bool {
	header, ok1 := f.member(st, b, "_M_header")
	count, ok2 := f.member(st, b, "_M_node_count")
	impl, ok3 := f.member(st, b, "_M_impl")
	if !ok1 || !ok2 || !ok3 || impl.st == nil {
		return false
	}
	n := uintFrom(count.b, f.Arch)
	plural := "s"
	if n == 1 {
		plural = ""
	}
	v.Text = fmt.Sprintf("%s with %d element%s", kind, n, plural)
	if n == 0 {
		v.Children = nil
		return true
	}
	node, storage, valType, ok := f.treeNode(impl.st)
	if !ok {
		return false
	}
	ptr := uint64(f.Arch.PtrSize)
	headerAddr := addr + uint64(header.off)
	link := func(at uint64, i uint64) uint64 { // a node's parent (1), left (2) or right (3)
		w, err := mem.ReadMemory(at+8+(i-1)*ptr, int(ptr))
		if err != nil {
			return 0
		}
		return uintFrom(w, f.Arch)
	}
	_ = node
	cur := link(headerAddr, 2) // the leftmost node
	shown := min(n, uint64(unlimited(f.PrintLimits().Elements)), 1<<16)
	v.Children = v.Children[:0]
	var parts []string
	for i := uint64(0); i < shown && cur != 0 && cur != headerAddr; i++ {
		vb, err := mem.ReadMemory(cur+storage, int(valType.Size()))
		if err != nil {
			return false
		}
		el := f.FormatValue(valType, vb, cur+storage, true, mem, depth+1)
		key := fmt.Sprintf("[%d]", i)
		text := el.Text
		if pst, ok := resolve(valType).(*dwarf.StructType); ok && isMap {
			first, ok1 := f.member(pst, vb, "first")
			second, ok2 := f.member(pst, vb, "second")
			if !ok1 || !ok2 {
				return false
			}
			k := f.FormatValue(first.t, first.b, cur+storage+uint64(first.off), true, mem, depth+1)
			el = f.FormatValue(second.t, second.b, cur+storage+uint64(second.off), true, mem, depth+1)
			key, text = "["+k.Text+"]", el.Text
		}
		el.Name = key
		if i < maxArrayChildren {
			v.Children = append(v.Children, el)
		}
		parts = append(parts, key+" = "+text)
		// the next node in order: the leftmost of the right subtree, else the first
		// ancestor reached from a left child
		if r := link(cur, 3); r != 0 {
			for cur = r; link(cur, 2) != 0; cur = link(cur, 2) {
			}
			continue
		}
		p := link(cur, 1)
		for p != headerAddr && cur == link(p, 3) {
			cur, p = p, link(p, 1)
		}
		cur = p
	}
	more := ""
	if shown < n {
		more = "..."
	}
	v.Text += " = {" + strings.Join(parts, ", ") + more + "}"
	return true
}

// treeNode finds the node type of the tree whose _M_impl is impl (the allocator it
// inherits names it: std::allocator<std::_Rb_tree_node<V> >), with the offset of its
// element and the element's type.
func (f *File) treeNode(impl *dwarf.StructType) (node *dwarf.StructType, storage uint64, val dwarf.Type, ok bool) {
	cl := f.ClassOf(impl)
	if cl == nil {
		return nil, 0, nil, false
	}
	for _, base := range cl.Bases {
		name, found := strings.CutPrefix(base.Type.StructName, "std::allocator<")
		if !found || !strings.HasPrefix(name, "std::_Rb_tree_node<") {
			continue
		}
		name = strings.TrimSpace(strings.TrimSuffix(name, ">"))
		t, err := f.LookupType(name)
		if err != nil {
			return nil, 0, nil, false
		}
		node, ok = t.(*dwarf.StructType)
		if !ok {
			return nil, 0, nil, false
		}
		for _, fld := range node.Field {
			if fld.Name == "_M_storage" {
				storage = uint64(fld.ByteOffset)
			}
		}
		if d, ok := cxxTypes.Load(node); ok {
			val = f.templateArg(d.(cxxDecl).off)
		}
		return node, storage, val, storage != 0 && val != nil
	}
	return nil, 0, nil, false
}

// templateArg is the type of the first template type parameter of the entry at off.
func (f *File) templateArg(off dwarf.Offset) dwarf.Type {
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil || !e.Children {
		return nil
	}
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			return nil
		}
		if kid.Tag == dwarf.TagTemplateTypeParameter {
			return f.entryType(kid)
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
}

// memberBytes is a member found in a struct's bytes: its type, its bytes, its offset in
// the struct searched, and the struct it is when it is one.
type memberBytes struct {
	t   dwarf.Type
	b   []byte
	off int
	st  *dwarf.StructType
}

// member finds the member name of the struct st (whose bytes are b), in st or in its base
// classes, at any depth.
func (f *File) member(st *dwarf.StructType, b []byte, name string) (memberBytes, bool) {
	for _, fld := range st.Field {
		off, sz := int(fld.ByteOffset), int(fld.Type.Size())
		if off < 0 || sz < 0 || off+sz > len(b) {
			continue
		}
		if fld.Name == name {
			m := memberBytes{t: fld.Type, b: b[off : off+sz], off: off}
			m.st, _ = resolve(fld.Type).(*dwarf.StructType)
			return m, true
		}
	}
	if cl := f.ClassOf(st); cl != nil {
		for _, base := range cl.Bases {
			off, sz := int(base.Offset), int(base.Type.Size())
			if off < 0 || sz < 0 || off+sz > len(b) {
				continue
			}
			if m, ok := f.member(base.Type, b[off:off+sz], name); ok {
				m.off += off
				return m, true
			}
		}
	}
	for _, fld := range st.Field { // _M_impl's members: the vector's are a member's bases'
		inner, ok := resolve(fld.Type).(*dwarf.StructType)
		off, sz := int(fld.ByteOffset), int(fld.Type.Size())
		if !ok || off < 0 || sz < 0 || off+sz > len(b) || !strings.HasPrefix(fld.Name, "_M_") {
			continue
		}
		if m, ok := f.member(inner, b[off:off+sz], name); ok {
			m.off += off
			return m, true
		}
	}
	return memberBytes{}, false
}

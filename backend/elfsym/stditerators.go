package elfsym

// libstdc++'s iterators and std::filesystem::path as gdb shows them with the library's
// printers: an iterator as the element it points at (2, "bb", {first = 2, second =
// "two"}), or "non-dereferenceable iterator for std::vector" where it points nowhere; a
// path as filesystem::path "/usr/lib" = {[root-directory] = "/", [1] = "usr", [2] = "lib"}.

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// iteratorKind is what one of libstdc++'s iterator classes points into: its printer's
// words for the container, and how its element is reached.
type iteratorKind struct {
	container string
	member    string // the pointer it holds
	node      string // the node class whose element it points at; "" when it points at the element
	links     int    // the pointers before a node's element, when the node class is not described
}

// iteratorKinds are libstdc++'s iterator classes by their name's start, as gdb's printers
// know them.
var iteratorKinds = []struct {
	prefix string
	kind   iteratorKind
}{
	{"__gnu_cxx::__normal_iterator<", iteratorKind{container: "std::vector", member: "_M_current"}},
	{"std::_Deque_iterator<", iteratorKind{container: "std::deque", member: "_M_cur"}},
	{"std::_List_iterator<", iteratorKind{"std::list", "_M_node", "std::_List_node<", 2}},
	{"std::_List_const_iterator<", iteratorKind{"std::list", "_M_node", "std::_List_node<", 2}},
	{"std::_Fwd_list_iterator<", iteratorKind{"std::forward_list", "_M_node", "std::_Fwd_list_node<", 1}},
	{"std::_Fwd_list_const_iterator<", iteratorKind{"std::forward_list", "_M_node", "std::_Fwd_list_node<", 1}},
	{"std::_Rb_tree_iterator<", iteratorKind{"associative container", "_M_node", "std::_Rb_tree_node<", 4}},
	{"std::_Rb_tree_const_iterator<", iteratorKind{"associative container", "_M_node", "std::_Rb_tree_node<", 4}},
}

// stdIterator formats an iterator of a standard container as the element it points at,
// reporting whether st is one.
func (f *File) stdIterator(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	name := st.StructName
	switch name {
	case "std::_Bit_iterator", "std::_Bit_const_iterator":
		return f.stdBit(v, st, b, mem, "_M_offset", "non-dereferenceable iterator for std::vector<bool>")
	case "std::_Bit_reference":
		return f.stdBit(v, st, b, mem, "_M_mask", "invalid std::vector<bool>::reference")
	}
	for _, k := range iteratorKinds {
		args, ok := strings.CutPrefix(name, k.prefix)
		if !ok {
			continue
		}
		p, ok := f.memberWhere(st, b, k.kind.member, isPointer)
		if !ok {
			return false
		}
		at := uintFrom(p.b, f.Arch)
		if at == 0 {
			v.Text, v.Children = "non-dereferenceable iterator for "+k.kind.container, nil
			return true
		}
		elem := resolve(p.t).(*dwarf.PtrType).Type
		if k.kind.node != "" {
			var found bool
			if at, elem, found = f.nodeElement(st, at, k.kind, args); !found {
				return false
			}
		}
		return f.pointedElement(v, elem, at, mem, depth)
	}
	return false
}

// nodeElement is where the element of the node at node is, and its type: the node class
// named like the iterator (std::_List_node<int> for std::_List_iterator<int>) places it
// (_M_storage, _M_data); without that class, after the node's links.
func (f *File) nodeElement(st *dwarf.StructType, node uint64, k iteratorKind, args string) (uint64, dwarf.Type, bool) {
	var elem dwarf.Type // the template's argument, else the type its name names
	if d, known := cxxTypes.Load(st); known {
		elem = f.templateArg(d.(cxxDecl).off)
	}
	if elem == nil {
		elem, _ = f.LookupType(strings.TrimSpace(strings.TrimSuffix(args, ">")))
	}
	if elem == nil || elem.Size() <= 0 {
		return 0, nil, false
	}
	if t, err := f.LookupType(k.node + args); err == nil {
		if nst, ok := resolve(t).(*dwarf.StructType); ok {
			for _, field := range []string{"_M_storage", "_M_data"} {
				if m, ok := f.member(nst, make([]byte, max(nst.Size(), 0)), field); ok && m.off > 0 {
					return node + uint64(m.off), elem, true
				}
			}
		}
	}
	ptr := uint64(f.Arch.PtrSize)
	off := uint64(k.links) * ptr
	if a := uint64(elem.Size()); a > ptr && a <= 16 && a&(a-1) == 0 { // a wider scalar's alignment
		off = (off + a - 1) &^ (a - 1)
	}
	return node + off, elem, true
}

// pointedElement makes v show the element of type elem at addr, as an iterator's printer
// shows it, and makes the element its child "*"; v keeps its own name and type.
func (f *File) pointedElement(v *Value, elem dwarf.Type, addr uint64, mem Memory, depth int) bool {
	sz := int(elem.Size())
	if sz <= 0 || depth >= maxDepth {
		return false
	}
	b, err := mem.ReadMemory(addr, sz)
	if err != nil {
		v.Text, v.Children = fmt.Sprintf("<error: Cannot access memory at address %#x>", addr), nil
		return true
	}
	c := f.FormatValue(elem, b, addr, true, mem, depth+1)
	c.Name = "*" // what *it and it->m read, as a smart pointer's object
	v.Text, v.Children = c.Text, []Value{c}
	return true
}

// stdBit is a std::vector<bool> iterator's or reference's bit, true or false: the bit of
// the word at _M_p its offset (an iterator) or mask (a reference) names.
func (f *File) stdBit(v *Value, st *dwarf.StructType, b []byte, mem Memory, which, invalid string) bool {
	p, ok1 := f.memberWhere(st, b, "_M_p", isPointer)
	sel, ok2 := f.member(st, b, which)
	if !ok1 || !ok2 {
		return false
	}
	at := uintFrom(p.b, f.Arch)
	v.Children = nil
	if at == 0 {
		v.Text = invalid
		return true
	}
	w, err := mem.ReadMemory(at, f.Arch.PtrSize)
	if err != nil {
		return false
	}
	mask := uintFrom(sel.b, f.Arch)
	if which == "_M_offset" {
		mask = 1 << (mask % uint64(8*f.Arch.PtrSize))
	}
	v.Text = fmt.Sprint(uintFrom(w, f.Arch)&mask != 0)
	return true
}

// Kinds of a path or component (libstdc++'s path::_Type), held in the low bits of the
// pointer to its components.
const (
	pathMulti    = 0
	pathRootName = 1
	pathRootDir  = 2
)

// stdPath is gdb's filesystem::path "/usr/lib" = {[root-directory] = "/", [1] = "usr",
// [2] = "lib"}: the path's text, then its components (from the array after the
// components' header, each a path and its position), a root component by its kind; a path
// of one component says its kind alone (filesystem::path "/" [root-directory]).
func (f *File) stdPath(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	text, kind, impl, ok := f.pathParts(st, b, addr, mem, depth)
	if !ok {
		return false
	}
	v.Text, v.Children = "filesystem::path "+text, nil
	if kind != pathMulti {
		if label := pathKindLabel(kind); label != "" {
			v.Text += " [" + label + "]"
		}
		return true
	}
	if impl == 0 {
		return true
	}
	n, err := mem.ReadMemory(impl, 4)
	if err != nil {
		return false
	}
	count := min(int(f.Arch.ByteOrder.Uint32(n)), f.printLimit())
	ptr := uint64(f.Arch.PtrSize)
	size := (uint64(st.Size()) + ptr + ptr - 1) &^ (ptr - 1) // a component: a path and its position
	var parts []string
	for i := range count {
		at := impl + max(8, ptr) + uint64(i)*size
		cb, err := mem.ReadMemory(at, int(st.Size()))
		if err != nil {
			return false
		}
		ctext, ckind, _, ok := f.pathParts(st, cb, at, mem, depth)
		if !ok {
			return false
		}
		name := fmt.Sprintf("[%d]", i)
		if label := pathKindLabel(ckind); label != "" {
			name = "[" + label + "]"
		}
		v.Children = append(v.Children, Value{Name: name, Type: "std::string", Kind: "string", Text: ctext})
		parts = append(parts, name+" = "+ctext)
	}
	if len(parts) > 0 {
		v.Text += " = {" + strings.Join(parts, ", ") + "}"
	}
	return true
}

// pathParts are a path's text (quoted, as its string prints), its kind and its components'
// address (the pointer without its kind bits).
func (f *File) pathParts(st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) (text string, kind, impl uint64, ok bool) {
	name, ok1 := f.member(st, b, "_M_pathname")
	cmpts, ok2 := f.member(st, b, "_M_cmpts")
	if !ok1 || !ok2 || cmpts.st == nil {
		return "", 0, 0, false
	}
	p, ok := f.memberWhere(cmpts.st, cmpts.b, "_M_head_impl", isPointer)
	if !ok {
		return "", 0, 0, false
	}
	s := f.FormatValue(name.t, name.b, addr+uint64(name.off), true, mem, depth+1)
	if !s.printed {
		return "", 0, 0, false
	}
	raw := uintFrom(p.b, f.Arch)
	return s.Text, raw & 3, raw &^ 3, true
}

// pathKindLabel is gdb's label of a root component; "" for the others.
func pathKindLabel(kind uint64) string {
	switch kind {
	case pathRootName:
		return "root-name"
	case pathRootDir:
		return "root-directory"
	}
	return ""
}

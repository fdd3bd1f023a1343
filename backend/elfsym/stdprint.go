package elfsym

// The C++ standard library's strings and vectors as gdb shows them with libstdc++'s own
// printers (which gdb loads with the library): "hello", std::vector of length 3, capacity 3
// = {1, 2, 3}. Read from libstdc++'s layout (the members its printers read); a type laid
// out otherwise is printed member by member, as before.

import (
	"debug/dwarf"
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
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
	case strings.HasPrefix(name, "std::vector<bool,"):
		return f.stdBoolVector(v, st, b, mem)
	case strings.HasPrefix(name, "std::vector<"):
		return f.stdVector(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::map<"), strings.HasPrefix(name, "std::multimap<"):
		kind, _, _ := strings.Cut(name, "<")
		return f.stdTree(v, st, b, addr, mem, depth, kind, true)
	case strings.HasPrefix(name, "std::set<"), strings.HasPrefix(name, "std::multiset<"):
		kind, _, _ := strings.Cut(name, "<")
		return f.stdTree(v, st, b, addr, mem, depth, kind, false)
	case strings.HasPrefix(name, "std::unique_ptr<"):
		return f.stdUniquePtr(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::shared_ptr<"), strings.HasPrefix(name, "std::weak_ptr<"):
		return f.stdSharedPtr(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::__cxx11::list<"):
		return f.stdList(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::unordered_map<"), strings.HasPrefix(name, "std::unordered_multimap<"):
		kind, _, _ := strings.Cut(name, "<")
		return f.stdHashtable(v, st, b, mem, depth, kind, true)
	case strings.HasPrefix(name, "std::unordered_set<"), strings.HasPrefix(name, "std::unordered_multiset<"):
		kind, _, _ := strings.Cut(name, "<")
		return f.stdHashtable(v, st, b, mem, depth, kind, false)
	case strings.HasPrefix(name, "std::optional<"):
		return f.stdOptional(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::deque<"):
		return f.stdDeque(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::forward_list<"):
		return f.stdForwardList(v, st, b, mem, depth)
	case strings.HasPrefix(name, "std::bitset<"):
		return f.stdBitset(v, st, b)
	case strings.HasPrefix(name, "std::stack<"), strings.HasPrefix(name, "std::queue<"), strings.HasPrefix(name, "std::priority_queue<"):
		return f.stdAdapter(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::tuple<"):
		return f.stdTuple(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::pair<"):
		return f.stdPair(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::variant<"):
		return f.stdVariant(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::basic_string_view<char,"):
		return f.stdStringView(v, st, b, mem)
	case strings.HasPrefix(name, "std::atomic<"):
		return f.stdAtomic(v, st, b, addr, mem, depth)
	case strings.HasPrefix(name, "std::span<"):
		return f.stdSpan(v, st, b, mem, depth)
	case name == "std::any":
		return f.stdAny(v, st, b, addr, mem, depth)
	case name == "std::filesystem::__cxx11::path", name == "std::filesystem::path":
		return f.stdPath(v, st, b, addr, mem, depth)
	}
	return f.stdIterator(v, st, b, mem, depth)
}

// stdUniquePtr is gdb's std::unique_ptr<int> = {get() = 0x5555...}.
func (f *File) stdUniquePtr(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	p, ok := f.memberWhere(st, b, "_M_head_impl", isPointer)
	if !ok {
		return false
	}
	pt := resolve(p.t).(*dwarf.PtrType)
	elem := TypeName(withoutTypedefs(pt.Type))
	if d, ok := cxxTypes.Load(st); ok { // unique_ptr<int []>: the template's argument, not the pointer's
		if arg := f.templateArg(d.(cxxDecl).off); arg != nil {
			elem = TypeName(arg)
		}
	}
	v.Text = fmt.Sprintf("std::unique_ptr<%s> = {get() = %#x}", elem, uintFrom(p.b, f.Arch))
	f.pointee(v, pt, p.b, mem, depth)
	return true
}

// pointee makes the object a smart pointer holds v's child "*", which *p and p->f read
// (gdb's libstdc++ xmethods do the same).
func (f *File) pointee(v *Value, pt *dwarf.PtrType, ptr []byte, mem Memory, depth int) {
	v.Children = nil
	at, sz := uintFrom(ptr, f.Arch), int(pt.Type.Size())
	if at == 0 || sz <= 0 || depth >= maxDepth {
		return
	}
	if b, err := mem.ReadMemory(at, sz); err == nil {
		c := f.FormatValue(pt.Type, b, at, true, mem, depth+1)
		c.Name = "*"
		v.Children = []Value{c}
	}
}

// withoutTypedefs is t under its typedefs (std::shared_ptr's element_type is N).
func withoutTypedefs(t dwarf.Type) dwarf.Type {
	for range 32 {
		td, ok := t.(*dwarf.TypedefType)
		if !ok {
			break
		}
		t = td.Type
	}
	return t
}

// stdSharedPtr is gdb's std::shared_ptr<N> (use count 2, weak count 1) = {get() = 0x...}
// (a weak_ptr's the same): the counts from the control block, the weak one without the
// reference the owners hold together.
func (f *File) stdSharedPtr(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	p, ok1 := f.member(st, b, "_M_ptr")
	pi, ok2 := f.member(st, b, "_M_pi")
	pt, ok3 := resolve(p.t).(*dwarf.PtrType)
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	kind, _, _ := strings.Cut(st.StructName, "<")
	state := "empty"
	if block := uintFrom(pi.b, f.Arch); block != 0 {
		use, weak, ok := f.sharedCounts(block, mem)
		if !ok {
			return false
		}
		state = fmt.Sprintf("use count %d, weak count %d", use, weak)
		if use == 0 {
			state = fmt.Sprintf("expired, weak count %d", weak)
		}
	}
	v.Text = fmt.Sprintf("%s<%s> (%s) = {get() = %#x}", kind, TypeName(withoutTypedefs(pt.Type)), state, uintFrom(p.b, f.Arch))
	f.pointee(v, pt, p.b, mem, depth)
	return true
}

// sharedCounts are the counts of a shared_ptr's control block at block: its owners, and
// its weak references without the one the owners hold together (as gdb's printer says).
func (f *File) sharedCounts(block uint64, mem Memory) (use, weak uint32, ok bool) {
	counts, err := mem.ReadMemory(block+uint64(f.Arch.PtrSize), 8) // after the vtable pointer: use, weak
	if err != nil {
		return 0, 0, false
	}
	use, weak = f.Arch.ByteOrder.Uint32(counts), f.Arch.ByteOrder.Uint32(counts[4:])
	if use > 0 {
		weak--
	}
	return use, weak, true
}

// stdList is gdb's std::__cxx11::list = {[0] = 1, [1] = 2}: the nodes from the header's
// next, each a _List_node_base (next, prev) followed by the element.
func (f *File) stdList(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	node, ok := f.member(st, b, "_M_node")
	d, known := cxxTypes.Load(st)
	if !ok || !known {
		return false
	}
	elem := f.templateArg(d.(cxxDecl).off)
	if elem == nil || elem.Size() <= 0 {
		return false
	}
	v.Text = "std::__cxx11::list"
	if node.st != nil {
		if size, ok := f.member(node.st, node.b, "_M_size"); ok {
			v.elements, v.counted = uintFrom(size.b, f.Arch), true
		}
	}
	head := addr + uint64(node.off)
	ptr := uint64(f.Arch.PtrSize)
	limit := f.printLimit()
	var addrs []uint64
	cur := f.readPointer(mem, head)
	for ; cur != head && cur != 0 && len(addrs) < limit; cur = f.readPointer(mem, cur) { // (0: unreadable)
		addrs = append(addrs, cur+2*ptr) // the element, after the node's two links
	}
	return f.sequence(v, elem, addrs, cur != head && cur != 0, true, mem, depth)
}

// stdHashtable is gdb's std::unordered_map with 1 element = {[1] = 10} (a set's [i] =
// key): the nodes in the order of the table's list, from _M_before_begin.
func (f *File) stdHashtable(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int, kind string, isMap bool) bool {
	h, ok1 := f.member(st, b, "_M_h")
	first, ok2 := f.member(st, b, "_M_nxt")
	count, ok3 := f.member(st, b, "_M_element_count")
	if !ok1 || !ok2 || !ok3 || h.st == nil {
		return false
	}
	return f.keyed(v, kind, uintFrom(count.b, f.Arch), h.st, "std::__detail::_Hash_node<", func(limit uint64) []uint64 {
		var nodes []uint64
		for cur := uintFrom(first.b, f.Arch); cur != 0 && uint64(len(nodes)) < limit; cur = f.readPointer(mem, cur) {
			nodes = append(nodes, cur)
		}
		return nodes
	}, mem, depth, isMap)
}

// stdOptional is gdb's std::optional<int> = {[contained value] = 3}, or std::optional<int>
// [no contained value].
func (f *File) stdOptional(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	engaged, ok1 := f.member(st, b, "_M_engaged")
	val, ok2 := f.member(st, b, "_M_value")
	if !ok1 || !ok2 || len(engaged.b) == 0 {
		return false
	}
	kind := "std::optional<" + cxxname.ShortType(TypeName(val.t)) + ">"
	if engaged.b[0] == 0 {
		v.Text, v.Children = kind+" [no contained value]", nil
		return true
	}
	c := f.FormatValue(val.t, val.b, addr+uint64(val.off), true, mem, depth+1)
	c.Name = "[contained value]"
	v.Text, v.Children = kind+" = {[contained value] = "+c.Text+"}", []Value{c}
	return true
}

// elementsText is a container's size as gdb's printers say it: std::map with 1 element.
func elementsText(kind string, n uint64) string {
	if n == 1 {
		return kind + " with 1 element"
	}
	return fmt.Sprintf("%s with %d elements", kind, n)
}

// isPointer reports whether a member's type is a pointer.
func isPointer(t dwarf.Type) bool { _, ok := resolve(t).(*dwarf.PtrType); return ok }

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
	return f.charsAt(v, uintFrom(p.b, f.Arch), uintFrom(n.b, f.Arch), mem)
}

// charsAt makes v's text the size characters at ptr, up to the print limit.
func (f *File) charsAt(v *Value, ptr, size uint64, mem Memory) bool {
	if size > 1<<40 {
		return false
	}
	text, err := mem.ReadMemory(ptr, int(min(size, uint64(unlimited(f.PrintLimits().Elements)), 1<<20)))
	if err != nil {
		return false
	}
	v.Text = f.charsText(text, size > uint64(len(text)))
	return true
}

// stringLike reports whether t is a string libstdc++'s printers show as its text alone,
// with no elements of its own.
func stringLike(t dwarf.Type) bool {
	st, ok := resolve(t).(*dwarf.StructType)
	return ok && (strings.HasPrefix(st.StructName, "std::__cxx11::basic_string<") || strings.HasPrefix(st.StructName, "std::basic_string_view<"))
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
	v.elements, v.counted = n, true
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
	ptr := uint64(f.Arch.PtrSize)
	headerAddr := addr + uint64(header.off)
	link := func(at uint64, i uint64) uint64 { // a node's parent (1), left (2) or right (3)
		return f.readPointer(mem, at+8+(i-1)*ptr)
	}
	return f.keyed(v, kind, uintFrom(count.b, f.Arch), impl.st, "std::_Rb_tree_node<", func(limit uint64) []uint64 {
		var nodes []uint64
		steps := 64 * (limit + 64)                                                                                  // a tree of n nodes is walked in about 2n steps: a corrupt one's links may cycle
		for cur := link(headerAddr, 2); cur != 0 && cur != headerAddr && uint64(len(nodes)) < limit && steps > 0; { // from the leftmost
			nodes = append(nodes, cur)
			// the next in order: the leftmost of the right subtree, else the first ancestor
			// reached from a left child
			if r := link(cur, 3); r != 0 {
				for cur = r; link(cur, 2) != 0 && steps > 0; cur = link(cur, 2) {
					steps--
				}
				continue
			}
			p := link(cur, 1)
			for p != headerAddr && p != 0 && cur == link(p, 3) && steps > 0 {
				cur, p = p, link(p, 1)
				steps--
			}
			cur = p
			steps--
		}
		return nodes
	}, mem, depth, isMap)
}

// keyed is a map's or set's text: its size, then its elements (up to the print limit),
// held in nodes of the type named by the allocator among holder's bases (nodePrefix), which
// listNodes gives in order.
func (f *File) keyed(v *Value, kind string, n uint64, holder *dwarf.StructType, nodePrefix string,
	listNodes func(limit uint64) []uint64, mem Memory, depth int, isMap bool) bool {
	v.Text = elementsText(kind, n)
	v.elements, v.counted = n, true
	if n == 0 {
		v.Children = nil
		return true
	}
	_, storage, valType, ok := f.allocatedNode(holder, nodePrefix)
	if !ok {
		return false
	}
	nodes := listNodes(min(n, uint64(unlimited(f.PrintLimits().Elements)), 1<<16))
	return f.keyedElements(v, nodes, storage, valType, n, mem, depth, isMap)
}

// keyedElements ends v's text with the elements held at storage in each node, as gdb's
// printers list a map's ([key] = value, the element a pair) or a set's ([i] = key); n is
// how many the container holds.
func (f *File) keyedElements(v *Value, nodes []uint64, storage uint64, valType dwarf.Type, n uint64, mem Memory, depth int, isMap bool) bool {
	v.Children = v.Children[:0]
	var parts []string
	for i, node := range nodes {
		at := node + storage
		vb, err := mem.ReadMemory(at, int(valType.Size()))
		if err != nil {
			return false
		}
		el := f.FormatValue(valType, vb, at, true, mem, depth+1)
		key, text := fmt.Sprintf("[%d]", i), el.Text
		if pst, ok := resolve(valType).(*dwarf.StructType); ok && isMap {
			first, ok1 := f.member(pst, vb, "first")
			second, ok2 := f.member(pst, vb, "second")
			if !ok1 || !ok2 {
				return false
			}
			k := f.FormatValue(first.t, first.b, at+uint64(first.off), true, mem, depth+1)
			el = f.FormatValue(second.t, second.b, at+uint64(second.off), true, mem, depth+1)
			key, text = "["+k.Text+"]", el.Text
		}
		el.Name = key
		if i < maxArrayChildren {
			v.Children = append(v.Children, el)
		}
		parts = append(parts, key+" = "+text)
	}
	more := ""
	if uint64(len(nodes)) < n {
		more = "..."
	}
	v.Text += " = {" + strings.Join(parts, ", ") + more + "}"
	return true
}

// allocatedNode finds the node type a container allocates, named by the allocator among
// st's bases (std::allocator<std::_Rb_tree_node<V> >, at any depth) whose argument starts
// with prefix, with the offset of the node's element (_M_storage) and the element's type
// (the node's first template argument).
func (f *File) allocatedNode(st *dwarf.StructType, prefix string) (node *dwarf.StructType, storage uint64, val dwarf.Type, ok bool) {
	cl := f.ClassOf(st)
	if cl == nil {
		return nil, 0, nil, false
	}
	for _, base := range cl.Bases {
		name, found := strings.CutPrefix(base.Type.StructName, "std::allocator<")
		if !found || !strings.HasPrefix(name, prefix) {
			if node, storage, val, ok = f.allocatedNode(base.Type, prefix); ok {
				return node, storage, val, ok
			}
			continue
		}
		t, err := f.LookupType(strings.TrimSpace(strings.TrimSuffix(name, ">")))
		if err != nil {
			return nil, 0, nil, false
		}
		if node, ok = t.(*dwarf.StructType); !ok {
			return nil, 0, nil, false
		}
		m, found := f.member(node, make([]byte, node.Size()), "_M_storage")
		if d, known := cxxTypes.Load(node); known && found {
			val = f.templateArg(d.(cxxDecl).off)
		}
		return node, uint64(m.off), val, found && m.off > 0 && val != nil
	}
	return nil, 0, nil, false
}

// templateArg is the type of the first template type parameter of the entry at off.
func (f *File) templateArg(off dwarf.Offset) dwarf.Type {
	if args := f.templateArgs(off, 1); len(args) > 0 {
		return args[0]
	}
	return nil
}

// templateArgs are the types of the template type parameters of the entry at off, those of
// a parameter pack among them (a variant's alternatives), up to max.
func (f *File) templateArgs(off dwarf.Offset, max int) []dwarf.Type {
	var types []dwarf.Type
	for _, p := range f.templateParams(off, max) {
		types = append(types, p.t)
	}
	return types
}

// templateParam is a template type parameter of a class template's instance: its name
// (T; "" in a parameter pack) and the type it was given.
type templateParam struct {
	name string
	t    dwarf.Type
}

// templateParams are the template type parameters of the entry at off, in order, those of
// a parameter pack among them, up to max.
func (f *File) templateParams(off dwarf.Offset, max int) []templateParam {
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil || !e.Children {
		return nil
	}
	var params []templateParam
	depth := 0 // inside a pack
	for len(params) < max {
		kid, err := r.Next()
		if err != nil || kid == nil {
			return params
		}
		switch {
		case kid.Tag == 0 && depth == 0:
			return params
		case kid.Tag == 0:
			depth--
		case kid.Tag == dwarf.TagTemplateTypeParameter:
			t := f.entryType(kid)
			if t == nil {
				return params
			}
			name, _ := kid.Val(dwarf.AttrName).(string)
			if depth > 0 {
				name = ""
			}
			params = append(params, templateParam{name, t})
		case kid.Tag == tagTemplateParameterPack && kid.Children && depth == 0:
			depth++
		case kid.Children:
			r.SkipChildren()
		}
	}
	return params
}

// tagTemplateParameterPack is GCC's DW_TAG_GNU_template_parameter_pack: a variadic
// template's arguments, each a template parameter of its own.
const tagTemplateParameterPack dwarf.Tag = 0x4107

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
	return f.memberWhere(st, b, name, nil)
}

// memberWhere is member, of the members so named the first whose type is what want
// accepts (any, when want is nil).
func (f *File) memberWhere(st *dwarf.StructType, b []byte, name string, want func(dwarf.Type) bool) (memberBytes, bool) {
	for _, fld := range st.Field {
		off, sz := int(fld.ByteOffset), int(fld.Type.Size())
		if off < 0 || sz < 0 || off+sz > len(b) {
			continue
		}
		if fld.Name == name && (want == nil || want(fld.Type)) {
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
			if m, ok := f.memberWhere(base.Type, b[off:off+sz], name, want); ok {
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
		if m, ok := f.memberWhere(inner, b[off:off+sz], name, want); ok {
			m.off += off
			return m, true
		}
	}
	return memberBytes{}, false
}

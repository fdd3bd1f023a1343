package elfsym

// A standard container's element by its index, read where the container keeps it, as
// libstdc++'s xmethods read v[i] and v.at(i) for gdb without running the program.

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// containerElement is element i of the std::vector, std::deque or std::array v; ok is
// false for another class. With checked (at(i)), an index past the end is gdb's error.
func (f *File) containerElement(v Value, st *dwarf.StructType, i int64, checked bool, mem Memory) (out Value, ok bool, err error) {
	var kind string
	switch name := st.StructName; {
	case strings.HasPrefix(name, "std::vector<bool,"):
		kind = "Bits"
	case strings.HasPrefix(name, "std::vector<"):
		kind = "Vector"
	case strings.HasPrefix(name, "std::deque<"):
		kind = "Deque"
	case strings.HasPrefix(name, "std::array<"):
		kind = "Array"
	case strings.HasPrefix(name, "std::unique_ptr<") && strings.Contains(name, "[]"): // unique_ptr<int []>
		p, ok := f.OwnedPointer(v, mem)
		pt, isPtr := resolve(p.typ).(*dwarf.PtrType)
		if !ok || !isPtr || pt.Type == nil || pt.Type.Size() <= 0 {
			return v, false, nil
		}
		out, err = f.readAt(fmt.Sprintf("%s[%d]", v.Name, i), pt.Type, uintFrom(p.Bytes, f.Arch)+uint64(i*pt.Type.Size()), int(pt.Type.Size()), mem)
		return out, true, err
	default:
		return v, false, nil
	}
	if n, counted := v.Elements(); checked && counted && (i < 0 || uint64(i) >= n) {
		return v, true, fmt.Errorf("%s index \"%d\" should not be >= %d.", strings.Replace(kind, "Bits", "Vector", 1), i, n) // the xmethods' words
	}
	name := fmt.Sprintf("%s[%d]", v.Name, i)
	switch kind {
	case "Bits":
		out, err = f.boolElement(name, st, v.Bytes, i, mem)
		return out, true, err
	case "Array":
		elems, found := f.member(st, v.Bytes, "_M_elems")
		if !found {
			return v, true, fmt.Errorf("%s has no elements", v.Name)
		}
		arr := Value{Name: v.Name, Bytes: elems.b, Addr: v.Addr + uint64(elems.off), InMemory: v.InMemory, typ: elems.t, Type: TypeName(elems.t)}
		out, err = f.Element(arr, i, mem)
		out.Name = name
		return out, true, err
	case "Vector":
		start, found := f.member(st, v.Bytes, "_M_start")
		pt, isPtr := resolve(start.t).(*dwarf.PtrType)
		if !found || !isPtr || pt.Type == nil || pt.Type.Size() <= 0 {
			return v, true, fmt.Errorf("%s is not laid out as libstdc++'s", v.Name)
		}
		out, err = f.readAt(name, pt.Type, uintFrom(start.b, f.Arch)+uint64(i*pt.Type.Size()), int(pt.Type.Size()), mem)
		return out, true, err
	}
	at, elem, err := f.dequeElement(st, v.Bytes, i, mem)
	if err != nil {
		return v, true, fmt.Errorf("%s: %w", v.Name, err)
	}
	out, err = f.readAt(name, elem, at, int(elem.Size()), mem)
	return out, true, err
}

// boolElement is bit i of a std::vector<bool> (its bytes b), a bool not in memory of its
// own: counted from the start iterator's word and offset.
func (f *File) boolElement(name string, st *dwarf.StructType, b []byte, i int64, mem Memory) (Value, error) {
	start, found := f.member(st, b, "_M_start")
	if !found || start.st == nil || i < 0 {
		return Value{}, fmt.Errorf("%s has no element %d", name, i)
	}
	p, ok1 := f.memberWhere(start.st, start.b, "_M_p", isPointer)
	o, ok2 := f.member(start.st, start.b, "_M_offset")
	if !ok1 || !ok2 {
		return Value{}, fmt.Errorf("not laid out as libstdc++'s")
	}
	bits := uint64(8 * f.Arch.PtrSize)
	at := uintFrom(o.b, f.Arch) + uint64(i)
	w, err := mem.ReadMemory(uintFrom(p.b, f.Arch)+at/bits*uint64(f.Arch.PtrSize), f.Arch.PtrSize)
	if err != nil {
		return Value{}, err
	}
	set := uintFrom(w, f.Arch)>>(at%bits)&1 == 1
	out := Value{Name: name, Type: "bool", Kind: "bool", Text: fmt.Sprint(set), Bytes: []byte{0}}
	if set {
		out.Bytes[0] = 1
	}
	return out, nil
}

// dequeElement is where a std::deque (its bytes b) keeps element i: i places after the
// start iterator's, counted in buffers of the map from the start's.
func (f *File) dequeElement(st *dwarf.StructType, b []byte, i int64, mem Memory) (uint64, dwarf.Type, error) {
	start, found := f.member(st, b, "_M_start")
	if !found || start.st == nil {
		return 0, nil, fmt.Errorf("not laid out as libstdc++'s")
	}
	var ptrs [3]uint64
	var elem dwarf.Type
	for k, m := range []string{"_M_cur", "_M_first", "_M_node"} {
		mb, ok := f.member(start.st, start.b, m)
		if !ok {
			return 0, nil, fmt.Errorf("not laid out as libstdc++'s")
		}
		ptrs[k] = uintFrom(mb.b, f.Arch)
		if pt, ok := resolve(mb.t).(*dwarf.PtrType); ok && k == 0 {
			elem = pt.Type
		}
	}
	if elem == nil || elem.Size() <= 0 {
		return 0, nil, fmt.Errorf("not laid out as libstdc++'s")
	}
	es := elem.Size()
	buffer := int64(1)
	if es < 512 {
		buffer = 512 / es
	}
	pos := i + int64(ptrs[0]-ptrs[1])/es // from the start buffer's first
	if pos < 0 {
		return 0, nil, fmt.Errorf("no element %d", i)
	}
	first := f.readPointer(mem, ptrs[2]+uint64(pos/buffer)*uint64(f.Arch.PtrSize))
	if first == 0 {
		return 0, nil, fmt.Errorf("Cannot access memory for element %d", i)
	}
	return first + uint64(pos%buffer*es), elem, nil
}

// ElementAt is v.at(i) of a std::vector, std::deque or std::array: its element i, an
// index past the end an error (gdb's xmethods').
func (f *File) ElementAt(v Value, i int64, mem Memory) (Value, error) {
	v = v.Referred()
	if st, ok := resolve(v.typ).(*dwarf.StructType); ok {
		if out, ok, err := f.containerElement(v, st, i, true, mem); ok {
			return out, err
		}
	}
	return v, fmt.Errorf("%s has no at()", v.Type)
}

// OwnedPointer is what a std::unique_ptr's or std::shared_ptr's get() gives, as
// libstdc++'s xmethods answer it: the pointer it holds, of the pointer type it holds it
// as; ok is false for another value.
func (f *File) OwnedPointer(v Value, mem Memory) (Value, bool) {
	v = v.Referred()
	st, ok := resolve(v.typ).(*dwarf.StructType)
	member := map[bool]string{true: "_M_head_impl", false: "_M_ptr"}[ok && strings.HasPrefix(st.StructName, "std::unique_ptr<")]
	if !ok || !strings.HasPrefix(st.StructName, "std::unique_ptr<") && !strings.HasPrefix(st.StructName, "std::shared_ptr<") {
		return v, false
	}
	p, ok := f.memberWhere(st, v.Bytes, member, isPointer)
	if !ok {
		return v, false
	}
	out := f.FormatValue(p.t, p.b, 0, false, mem, 0)
	out.Name = v.Name + ".get()"
	return out, true
}

// UseCount is what a std::shared_ptr's use_count() gives: how many own its object (0 for
// an empty one); ok is false for another value.
func (f *File) UseCount(v Value, mem Memory) (int64, bool) {
	v = v.Referred()
	st, ok := resolve(v.typ).(*dwarf.StructType)
	if !ok || !strings.HasPrefix(st.StructName, "std::shared_ptr<") {
		return 0, false
	}
	pi, ok := f.member(st, v.Bytes, "_M_pi")
	if !ok {
		return 0, false
	}
	block := uintFrom(pi.b, f.Arch)
	if block == 0 {
		return 0, true
	}
	use, _, ok := f.sharedCounts(block, mem)
	return int64(use), ok
}

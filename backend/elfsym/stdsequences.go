package elfsym

// The standard library's other sequences as libstdc++'s printers show them: std::deque
// with 3 elements = {1, 2, 3}, std::forward_list = {[0] = 3, [1] = 4}, std::bitset = {[0]
// = 1, [5] = 1}, and the adapters around a container (std::stack wrapping: ...).

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// sequence ends v's text with the elements at addrs, each of type elem, as gdb's printers
// list them: {1, 2} (an array's), or {[0] = 1, [1] = 2} when indexed; more says the
// container holds more than addrs (the print limit cut it: "...").
func (f *File) sequence(v *Value, elem dwarf.Type, addrs []uint64, more, indexed bool, mem Memory, depth int) bool {
	v.Children = v.Children[:0]
	if len(addrs) == 0 && !more {
		return true
	}
	parts := make([]string, 0, len(addrs))
	for i, at := range addrs {
		b, err := mem.ReadMemory(at, int(elem.Size()))
		if err != nil {
			return false
		}
		c := f.FormatValue(elem, b, at, true, mem, depth+1)
		c.Name = fmt.Sprintf("[%d]", i)
		if i < maxArrayChildren {
			v.Children = append(v.Children, c)
		}
		if indexed {
			parts = append(parts, c.Name+" = "+c.Text)
		} else {
			parts = append(parts, c.Text)
		}
	}
	tail := "}"
	if more {
		tail = "...}"
	}
	v.Text += " = {" + strings.Join(parts, ", ") + tail
	return true
}

// printLimit is how many elements a container's printer shows: the print limit, at most
// 1<<16.
func (f *File) printLimit() int { return min(unlimited(f.PrintLimits().Elements), 1<<16) }

// stdDeque is gdb's std::deque with 3 elements = {1, 2, 3}: the elements from the start
// iterator's to the finish iterator's, buffer by buffer (each holds 512 bytes' worth, at
// least one), the buffers listed in the map the iterators' _M_node point into.
func (f *File) stdDeque(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	start, ok1 := f.member(st, b, "_M_start")
	finish, ok2 := f.member(st, b, "_M_finish")
	if !ok1 || !ok2 || start.st == nil || finish.st == nil {
		return false
	}
	ptrs := func(it memberBytes) (cur, first, last, node uint64, ok bool) {
		vals := [4]uint64{}
		for i, name := range []string{"_M_cur", "_M_first", "_M_last", "_M_node"} {
			m, found := f.member(it.st, it.b, name)
			if !found {
				return 0, 0, 0, 0, false
			}
			vals[i] = uintFrom(m.b, f.Arch)
		}
		return vals[0], vals[1], vals[2], vals[3], true
	}
	cur, _, last, node, ok1 := ptrs(start)
	endCur, endFirst, _, endNode, ok2 := ptrs(finish)
	cm, _ := f.member(start.st, start.b, "_M_cur")
	pt, ok3 := resolve(cm.t).(*dwarf.PtrType)
	if !ok1 || !ok2 || !ok3 || pt.Type == nil || pt.Type.Size() <= 0 || endNode < node || last < cur || endCur < endFirst {
		return false
	}
	es, ptr := uint64(pt.Type.Size()), uint64(f.Arch.PtrSize)
	buffer := uint64(1)
	if es < 512 {
		buffer = 512 / es
	}
	// the first buffer's from cur, the last's to its cur, the full ones between (the same
	// buffer counted twice when the two are one)
	signed := int64((last-cur)/es+(endCur-endFirst)/es) + int64(buffer)*(int64((endNode-node)/ptr)-1)
	if signed < 0 {
		return false
	}
	n := uint64(signed)
	v.Text = elementsText("std::deque", n)
	v.elements, v.counted = n, true
	limit := min(n, uint64(f.printLimit()))
	addrs := make([]uint64, 0, limit)
	for p := cur; p != endCur && uint64(len(addrs)) < limit; {
		addrs = append(addrs, p)
		if p += es; p == last { // the next buffer's first
			node += ptr
			w, err := mem.ReadMemory(node, int(ptr))
			if err != nil {
				return false
			}
			p = uintFrom(w, f.Arch)
			last = p + buffer*es
		}
	}
	return f.sequence(v, pt.Type, addrs, uint64(len(addrs)) < n, false, mem, depth)
}

// stdForwardList is gdb's std::forward_list = {[0] = 3, [1] = 4}, or empty
// std::forward_list: the nodes from the head's _M_next, each its next then the element.
func (f *File) stdForwardList(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	impl, ok1 := f.member(st, b, "_M_impl")
	head, ok2 := f.member(st, b, "_M_next")
	if !ok1 || !ok2 || impl.st == nil {
		return false
	}
	first := uintFrom(head.b, f.Arch)
	if first == 0 {
		v.Text, v.Children = "empty std::forward_list", nil
		return true
	}
	_, storage, elem, ok := f.allocatedNode(impl.st, "std::_Fwd_list_node<")
	if !ok || elem.Size() <= 0 {
		return false
	}
	v.Text = "std::forward_list"
	limit := f.printLimit()
	var addrs []uint64
	cur := first
	for ; cur != 0 && len(addrs) < limit; cur = f.readPointer(mem, cur) {
		addrs = append(addrs, cur+storage)
	}
	return f.sequence(v, elem, addrs, cur != 0, true, mem, depth)
}

// readPointer is the pointer at addr, 0 when it cannot be read.
func (f *File) readPointer(mem Memory, addr uint64) uint64 {
	w, err := mem.ReadMemory(addr, f.Arch.PtrSize)
	if err != nil {
		return 0
	}
	return uintFrom(w, f.Arch)
}

// stdBitset is gdb's std::bitset = {[0] = 1, [2] = 1, [5] = 1}: the bits set, by number,
// from _M_w (one word, or an array of them).
func (f *File) stdBitset(v *Value, st *dwarf.StructType, b []byte) bool {
	v.Text, v.Children = "std::bitset", nil
	w, ok := f.member(st, b, "_M_w")
	if !ok { // std::bitset<0> holds no word
		return true
	}
	word := len(w.b)
	if at, ok := resolve(w.t).(*dwarf.ArrayType); ok {
		word = int(at.Type.Size())
	}
	if word <= 0 || word > 8 {
		return false
	}
	limit := f.printLimit()
	var parts []string
	for i := 0; i+word <= len(w.b); i += word {
		bits := uintFrom(w.b[i:i+word], f.Arch)
		for bit := 0; bits != 0; bit, bits = bit+1, bits>>1 {
			if bits&1 == 0 {
				continue
			}
			if len(parts) == limit {
				v.Text += " = {" + strings.Join(parts, ", ") + "...}"
				return true
			}
			name := fmt.Sprintf("[%d]", i*8+bit)
			if len(v.Children) < maxArrayChildren {
				v.Children = append(v.Children, Value{Name: name, Type: "int", Kind: "int", Text: "1"})
			}
			parts = append(parts, name+" = 1")
		}
	}
	if len(parts) > 0 {
		v.Text += " = {" + strings.Join(parts, ", ") + "}"
	}
	return true
}

// stdAdapter is gdb's std::stack wrapping: std::deque with 2 elements = {1, 2} (a queue's
// or a priority queue's alike): the container it adapts, c, as its printer shows it.
func (f *File) stdAdapter(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	c, ok := f.member(st, b, "c")
	if !ok {
		return false
	}
	inner := f.FormatValue(c.t, c.b, addr+uint64(c.off), true, mem, depth+1)
	if !inner.printed {
		return false
	}
	kind, _, _ := strings.Cut(st.StructName, "<")
	v.Text, v.Children = kind+" wrapping: "+inner.Text, inner.Children
	return true
}

// stdBoolVector is gdb's std::vector<bool> of length 3, capacity 64 = {true, false, true}:
// the bits from the start iterator's word and offset to the finish iterator's, the
// capacity in bits up to the end of storage.
func (f *File) stdBoolVector(v *Value, st *dwarf.StructType, b []byte, mem Memory) bool {
	start, ok1 := f.member(st, b, "_M_start")
	finish, ok2 := f.member(st, b, "_M_finish")
	end, ok3 := f.memberWhere(st, b, "_M_end_of_storage", isPointer)
	if !ok1 || !ok2 || !ok3 || start.st == nil || finish.st == nil {
		return false
	}
	bit := func(it memberBytes) (word, offset uint64, ok bool) {
		p, ok1 := f.memberWhere(it.st, it.b, "_M_p", isPointer)
		o, ok2 := f.member(it.st, it.b, "_M_offset")
		if !ok1 || !ok2 {
			return 0, 0, false
		}
		return uintFrom(p.b, f.Arch), uintFrom(o.b, f.Arch), true
	}
	lo, so, ok1 := bit(start)
	hi, fo, ok2 := bit(finish)
	cap := uintFrom(end.b, f.Arch)
	ws := uint64(f.Arch.PtrSize) // a word of bits: an unsigned long
	if !ok1 || !ok2 || hi < lo || cap < hi || so >= 8*ws || fo >= 8*ws {
		return false
	}
	n := (hi-lo)/ws*8*ws + fo - so
	v.Text = fmt.Sprintf("std::vector<bool> of length %d, capacity %d", n, (cap-lo)/ws*8*ws)
	v.elements, v.counted = n, true
	v.Children = v.Children[:0]
	shown := min(n, uint64(f.printLimit()))
	if n == 0 {
		return true
	}
	words, err := mem.ReadMemory(lo, int((so+shown+8*ws-1)/(8*ws)*ws))
	if err != nil {
		return false
	}
	parts := make([]string, 0, shown)
	for i := range shown {
		at := so + i
		w := uintFrom(words[at/(8*ws)*ws:(at/(8*ws)+1)*ws], f.Arch)
		text := fmt.Sprint(w>>(at%(8*ws))&1 == 1)
		if i < maxArrayChildren {
			v.Children = append(v.Children, Value{Name: fmt.Sprintf("[%d]", i), Type: "bool", Kind: "bool", Text: text})
		}
		parts = append(parts, text)
	}
	more := ""
	if shown < n {
		more = "..."
	}
	v.Text += " = {" + strings.Join(parts, ", ") + more + "}"
	return true
}

package elfsym

// The standard library's holders of other objects as libstdc++'s printers show them:
// std::tuple containing = {[1] = 1, [2] = 2.5}, a pair's {first = 7, second = "seven"},
// std::variant<int, std::string> [index 1] = {"hi"}, a string_view's "view", std::atomic<int>
// = { 5 }, std::span of length 3 = {1, 2, 3}, std::any containing int = {[contained value]
// = 42}.

import (
	"debug/dwarf"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// stdTuple is gdb's std::tuple containing = {[1] = 1, [2] = 2.5} (numbered from 1), or
// empty std::tuple: libstdc++'s tuple is a chain of _Tuple_impl bases, each the next link
// and a _Head_base holding one element (_M_head_impl, or the base itself when the element
// is an empty class).
func (f *File) stdTuple(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	cl := f.ClassOf(st)
	if cl == nil || len(cl.Bases) == 0 {
		v.Text, v.Children = "empty std::tuple", nil
		return len(st.Field) == 0
	}
	v.Children = v.Children[:0]
	var parts []string
	link, off := cl.Bases[0], cl.Bases[0].Offset
	for range 1 << 10 {
		bases := f.ClassOf(link.Type)
		if bases == nil || len(bases.Bases) == 0 || len(bases.Bases) > 2 {
			return false
		}
		head := bases.Bases[len(bases.Bases)-1]
		at := off + head.Offset
		if at < 0 || at+head.Type.Size() > int64(len(b)) {
			return false
		}
		hb := b[at : at+head.Type.Size()]
		var c Value
		if m, ok := f.member(head.Type, hb, "_M_head_impl"); ok && len(head.Type.Field) > 0 && head.Type.Field[0].Name == "_M_head_impl" {
			c = f.FormatValue(m.t, m.b, addr+uint64(at)+uint64(m.off), true, mem, depth+1)
		} else {
			c = f.FormatValue(head.Type, hb, addr+uint64(at), true, mem, depth+1)
		}
		c.Name = "[" + strconv.Itoa(len(parts)+1) + "]"
		v.Children = append(v.Children, c)
		parts = append(parts, c.Name+" = "+c.Text)
		if len(bases.Bases) == 1 {
			v.Text = "std::tuple containing = {" + strings.Join(parts, ", ") + "}"
			return true
		}
		link, off = bases.Bases[0], off+bases.Bases[0].Offset
	}
	return false
}

// stdPair is a std::pair as gdb's printer shows it: its first and second alone, without
// the empty base class libstdc++ gives it.
func (f *File) stdPair(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	first, ok1 := f.member(st, b, "first")
	second, ok2 := f.member(st, b, "second")
	if !ok1 || !ok2 {
		return false
	}
	a := f.FormatValue(first.t, first.b, addr+uint64(first.off), true, mem, depth+1)
	z := f.FormatValue(second.t, second.b, addr+uint64(second.off), true, mem, depth+1)
	a.Name, z.Name = "first", "second"
	v.Text, v.Children = "{first = "+a.Text+", second = "+z.Text+"}", []Value{a, z}
	return true
}

// stdVariant is gdb's std::variant<int, std::string> [index 1] = {"hi"}: the alternative
// _M_index names, read where the union _M_u holds them all; one a printer shows with
// elements of its own is "[index 1] containing std::vector of length 2, ...".
func (f *File) stdVariant(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	index, ok1 := f.member(st, b, "_M_index")
	u, ok2 := f.member(st, b, "_M_u")
	d, known := cxxTypes.Load(st)
	if !ok1 || !ok2 || !known {
		return false
	}
	alts := f.templateArgs(d.(cxxDecl).off, 64)
	names := make([]string, len(alts))
	for i, a := range alts {
		names[i] = cxxname.ShortType(TypeName(a))
	}
	kind := "std::variant<" + strings.Join(names, ", ") + ">"
	i := uintFrom(index.b, f.Arch)
	if i >= uint64(len(alts)) { // valueless (by an exception)
		v.Text, v.Children = kind+" [no contained value]", nil
		return true
	}
	alt := alts[i]
	if alt.Size() < 0 || alt.Size() > int64(len(u.b)) {
		return false
	}
	c := f.FormatValue(alt, u.b[:alt.Size()], addr+uint64(u.off), true, mem, depth+1)
	c.Name = "[contained value]"
	v.Text, v.Children = kind+" [index "+strconv.FormatUint(i, 10)+"] = {"+c.Text+"}", []Value{c}
	if c.printed && !stringLike(alt) {
		v.Text, v.Children = kind+" [index "+strconv.FormatUint(i, 10)+"] containing "+c.Text, c.Children
	}
	return true
}

// stdStringView is a std::string_view's text, as a std::string's.
func (f *File) stdStringView(v *Value, st *dwarf.StructType, b []byte, mem Memory) bool {
	n, ok1 := f.member(st, b, "_M_len")
	p, ok2 := f.member(st, b, "_M_str")
	if !ok1 || !ok2 {
		return false
	}
	return f.charsAt(v, uintFrom(p.b, f.Arch), uintFrom(n.b, f.Arch), mem)
}

// stdAtomic is gdb's std::atomic<int> = { 5 }: the value its base holds (_M_i, a float's
// _M_fp, a pointer's _M_b._M_p).
func (f *File) stdAtomic(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	d, known := cxxTypes.Load(st)
	if !known {
		return false
	}
	arg := f.templateArg(d.(cxxDecl).off)
	if arg == nil {
		return false
	}
	for _, name := range []string{"_M_i", "_M_fp", "_M_p"} {
		if m, ok := f.member(st, b, name); ok {
			c := f.FormatValue(m.t, m.b, addr+uint64(m.off), true, mem, depth+1)
			v.Text, v.Children = "std::atomic<"+TypeName(arg)+"> = { "+c.Text+" }", nil
			return true
		}
	}
	return false
}

// stdSpan is gdb's std::span of length 3 = {1, 2, 3}: the elements _M_ptr points to, as
// many as its extent (the template's, or _M_extent's for a dynamic one).
func (f *File) stdSpan(v *Value, st *dwarf.StructType, b []byte, mem Memory, depth int) bool {
	p, ok1 := f.member(st, b, "_M_ptr")
	pt, ok2 := resolve(p.t).(*dwarf.PtrType)
	if !ok1 || !ok2 || pt.Type == nil || pt.Type.Size() <= 0 {
		return false
	}
	var n uint64
	if ext, ok := f.member(st, b, "_M_extent_value"); ok {
		n = uintFrom(ext.b, f.Arch)
	} else if _, args, found := strings.Cut(strings.TrimSuffix(st.StructName, ">"), ", "); found { // span<int, 3>
		if n, ok = parseUint(args); !ok {
			return false
		}
	} else {
		return false
	}
	v.Text = "std::span of length " + strconv.FormatUint(n, 10)
	v.elements, v.counted = n, true
	limit := min(n, uint64(f.printLimit()))
	addrs := make([]uint64, limit)
	for i := range addrs {
		addrs[i] = uintFrom(p.b, f.Arch) + uint64(i)*uint64(pt.Type.Size())
	}
	if n == 0 {
		v.Children = nil
		return true
	}
	return f.sequence(v, pt.Type, addrs, limit < n, false, mem, depth)
}

// parseUint reads a decimal number.
func parseUint(s string) (uint64, bool) {
	n, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// stdAny is gdb's std::any containing int = {[contained value] = 42}, or std::any [no
// contained value]: the type from the name of the manager function _M_manager points to
// (std::any::_Manager_internal<int>::_S_manage), the value in _M_storage's buffer for an
// internal manager, where _M_storage._M_ptr points for an external one.
func (f *File) stdAny(v *Value, st *dwarf.StructType, b []byte, addr uint64, mem Memory, depth int) bool {
	mgr, ok1 := f.member(st, b, "_M_manager")
	storage, ok2 := f.member(st, b, "_M_storage")
	if !ok1 || !ok2 {
		return false
	}
	fn := uintFrom(mgr.b, f.Arch)
	if fn == 0 {
		v.Text, v.Children = "std::any [no contained value]", nil
		return true
	}
	name, ok := f.SymbolAt(fn)
	name = cxxname.Symbol(name)
	internal := strings.HasPrefix(name, "std::any::_Manager_internal<")
	rest, external := strings.CutPrefix(name, "std::any::_Manager_external<")
	if !ok || !internal && !external {
		return false
	}
	if internal {
		rest = strings.TrimPrefix(name, "std::any::_Manager_internal<")
	}
	typeName, _, found := strings.Cut(rest, ">::_S_manage")
	if !found {
		return false
	}
	typ, err := f.ParseType(typeName)
	if err != nil || typ.Size() <= 0 {
		return false
	}
	at := addr + uint64(storage.off)
	if external {
		at = f.readPointer(mem, at)
	}
	vb, err := mem.ReadMemory(at, int(typ.Size()))
	if err != nil {
		return false
	}
	c := f.FormatValue(typ, vb, at, true, mem, depth+1)
	c.Name = "[contained value]"
	kind := "std::any containing " + cxxname.ShortType(TypeName(typ))
	if c.printed && !stringLike(typ) {
		v.Text, v.Children = "std::any containing "+c.Text, c.Children
		return true
	}
	v.Text, v.Children = kind+" = {[contained value] = "+c.Text+"}", []Value{c}
	return true
}

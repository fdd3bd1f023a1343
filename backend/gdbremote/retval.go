package gdbremote

import (
	"debug/dwarf"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// returnValue is what fn returned, read right after it returned: integers, enums, bools
// and pointers that fit the first return register (rax on x86-64, r0 on ARM); on x86-64
// also floating point (xmm0) and structs and unions, by the System V rules (in rax, rdx,
// xmm0 and xmm1 up to 16 bytes, in memory at rax beyond). Others give nil.
func (t *Target) returnValue(fn *elfsym.Func) *engine.Variable {
	typ := t.sym.ReturnType(fn)
	if typ == nil {
		return nil
	}
	size := int(typ.Size())
	if size <= 0 {
		return nil
	}
	b, ok := t.returnedBytes(typ, size)
	if !ok {
		return nil
	}
	v := t.sym.FormatValue(typ, b, 0, false, cachedMem{t}, 0)
	out := &engine.Variable{Name: fn.Name, Value: v.Text, Type: v.Type}
	if keptWhole(v) { // $.hi after finish, as gdb's history
		out.Kept = &v
	}
	return out
}

// returnedBytes are the size bytes of a value of type typ just returned.
func (t *Target) returnedBytes(typ dwarf.Type, size int) ([]byte, bool) {
	word := func(dwarfReg int) ([]byte, bool) { // a general register's bytes, in memory order
		v, ok := dwarfRegs{t}.Register(dwarfReg)
		b := make([]byte, 8)
		t.order.PutUint64(b, v)
		return b, ok
	}
	switch elfsym.Underlying(typ).(type) {
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType,
		*dwarf.EnumType, *dwarf.PtrType:
		if size > t.sym.Arch.PtrSize {
			return nil, false
		}
		b, ok := word(0)
		if t.order.String() == "BigEndian" {
			return b[8-size:], ok
		}
		return b[:size], ok
	}
	if t.desc.Arch != "i386:x86-64" {
		return nil, false
	}
	if size > 16 { // in memory, its address in rax
		addr, ok := dwarfRegs{t}.Register(0)
		if !ok {
			return nil, false
		}
		b, err := cachedMem{t}.ReadMemory(addr, size) // (the stop is being made: the target is not stopped yet)
		return b, err == nil && len(b) == size
	}
	classes, ok := sysvClasses(typ, size)
	if !ok {
		return nil, false
	}
	ints, sses := []int{0, 1}, []string{"xmm0", "xmm1"} // rax, rdx by DWARF number
	var out []byte
	for _, sse := range classes {
		var b []byte
		if sse {
			r, found := t.desc.Reg(sses[0])
			if !found {
				return nil, false
			}
			x, err := t.reg(r.Num)
			if err != nil || len(x) < 8 {
				return nil, false
			}
			b, sses = x[:8], sses[1:]
		} else {
			w, ok := word(ints[0])
			if !ok {
				return nil, false
			}
			b, ints = w, ints[1:]
		}
		out = append(out, b...)
	}
	return out[:size], true
}

// sysvClasses classifies a value of at most 16 bytes by System V's x86-64 rules, an
// eightbyte at a time: true (SSE) when all it holds is float or double, false (INTEGER)
// otherwise. ok is false for what those rules put in memory (long double, a field out of
// its alignment).
func sysvClasses(typ dwarf.Type, size int) (sse []bool, ok bool) {
	n := (size + 7) / 8
	sse, ints := make([]bool, n), make([]bool, n)
	ok = true
	var leaf func(t dwarf.Type, off int64)
	leaf = func(t dwarf.Type, off int64) {
		switch u := elfsym.Underlying(t).(type) {
		case *dwarf.StructType:
			for _, f := range u.Field {
				leaf(f.Type, off+f.ByteOffset)
			}
		case *dwarf.ArrayType:
			es := u.Type.Size()
			for i := int64(0); i < u.Count && es > 0; i++ {
				leaf(u.Type, off+i*es)
			}
		case *dwarf.FloatType:
			if u.Size() > 8 || off%u.Size() != 0 {
				ok = false
				return
			}
			sse[off/8] = true
		default:
			if s := t.Size(); s <= 0 || off%s != 0 {
				ok = false
				return
			}
			ints[off/8] = true
		}
	}
	leaf(typ, 0)
	for i := range sse {
		sse[i] = sse[i] && !ints[i]
	}
	return sse, ok
}

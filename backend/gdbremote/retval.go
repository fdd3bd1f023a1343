package gdbremote

import (
	"debug/dwarf"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// returnValue is what fn returned, read right after it returned: integers, enums, bools
// and pointers that fit the first return register (rax on x86-64, r0 on ARM). Floats and
// aggregates, returned elsewhere or in memory, give nil.
func (t *Target) returnValue(fn *elfsym.Func) *engine.Variable {
	typ := t.sym.ReturnType(fn)
	if typ == nil {
		return nil
	}
	switch elfsym.Underlying(typ).(type) {
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType,
		*dwarf.EnumType, *dwarf.PtrType:
	default:
		return nil
	}
	size := int(typ.Size())
	if size <= 0 || size > t.sym.Arch.PtrSize {
		return nil
	}
	r0, ok := dwarfRegs{t}.Register(0)
	if !ok {
		return nil
	}
	b := make([]byte, 8)
	t.order.PutUint64(b, r0)
	if t.order.String() == "BigEndian" {
		b = b[8-size:]
	} else {
		b = b[:size]
	}
	v := t.sym.FormatValue(typ, b, 0, false, cachedMem{t}, 0)
	return &engine.Variable{Name: fn.Name, Value: v.Text, Type: v.Type}
}

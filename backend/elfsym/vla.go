package elfsym

// C's variable-length arrays (double grid[n][m]): their bounds are DWARF expressions of
// the frame (DW_AT_upper_bound or DW_AT_count as an expression, or a reference to the
// artificial variable that holds it), so a VLA's type is known only where it is read.

import (
	"debug/dwarf"
	"errors"
	"fmt"
)

// maxValueSize is gdb's max-value-size: a variable-length array larger than that (its
// bounds not yet set, at its function's start) is not read.
const maxValueSize = 65536

// frameType is v's type as frame fr has it: a variable-length array's with its bounds
// read in the frame; v's own type for any other variable (or when a bound cannot be read).
// An array its bounds make larger than maxValueSize is gdb's error.
func (f *File) frameType(v *Var, fr *Frame, mem Memory) (dwarf.Type, error) {
	if v.typeOff == 0 || fr == nil {
		return v.Type, nil
	}
	if at, ok := v.Type.(*dwarf.ArrayType); !ok || at.Count > 0 && at.Size() > 0 {
		return v.Type, nil
	}
	r := f.DWARF.Reader()
	r.Seek(v.typeOff)
	e, err := r.Next()
	if err != nil || e == nil || e.Tag != dwarf.TagArrayType || !e.Children {
		return v.Type, nil
	}
	elemOff, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
	if !ok {
		return v.Type, nil
	}
	var counts []int64
	dynamic := false
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		if kid.Tag != dwarf.TagSubrangeType {
			continue
		}
		n, isExpr, err := f.subrangeCount(kid, v, fr, mem)
		if err != nil {
			return v.Type, nil
		}
		dynamic = dynamic || isExpr
		counts = append(counts, n)
	}
	elem, err := f.dwarfType(elemOff)
	if !dynamic || err != nil || elem.Size() <= 0 {
		return v.Type, nil
	}
	t := elem
	for i := len(counts) - 1; i >= 0; i-- {
		if counts[i] > maxValueSize || counts[i]*t.Size() > maxValueSize {
			return nil, fmt.Errorf("value requires %d bytes, which is more than max-value-size", counts[i]*t.Size()) // gdb's words
		}
		t = &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: counts[i] * t.Size()}, Type: t, Count: counts[i]}
	}
	return t, nil
}

// subrangeCount is how many elements the subrange entry e gives its dimension, reading
// an expression of a bound in frame fr (isExpr) where it is one.
func (f *File) subrangeCount(e *dwarf.Entry, v *Var, fr *Frame, mem Memory) (n int64, isExpr bool, err error) {
	bound := func(attr dwarf.Attr) (int64, bool, error) {
		switch x := e.Val(attr).(type) {
		case int64:
			return x, true, nil
		case []byte:
			isExpr = true
			l, err := f.evalExpr(x, f.frameEnv(fr, mem, v.cu, v.fn, 0), nil)
			if err != nil || l.Kind != LocMemory { // (the stack's top: the value)
				return 0, false, errors.New("elfsym: an array bound cannot be read here")
			}
			return int64(l.Addr), true, nil
		case dwarf.Offset: // the artificial variable that holds it
			isExpr = true
			r := f.DWARF.Reader()
			r.Seek(x)
			be, err := r.Next()
			if err != nil || be == nil {
				return 0, false, errors.New("elfsym: an array bound's variable is missing")
			}
			bv := f.varFromEntry(be, v.cu)
			if bv == nil {
				bv = &Var{Name: "bound", locList: -1, cu: v.cu}
				if fl, ok := be.Val(dwarf.AttrLocation).([]byte); ok {
					bv.loc = fl
				}
				if to, ok := be.Val(dwarf.AttrType).(dwarf.Offset); ok {
					bv.Type, _ = f.dwarfType(to)
				}
			}
			bv.fn = v.fn
			val, err := f.ReadVar(bv, fr, mem)
			if err != nil || len(val.Bytes) == 0 {
				return 0, false, errors.New("elfsym: an array bound cannot be read here")
			}
			return signExtend(uintFrom(val.Bytes, f.Arch), len(val.Bytes)), true, nil
		}
		return 0, false, nil
	}
	if c, ok, err := bound(dwarf.AttrCount); ok || err != nil {
		return max(c, 0), isExpr, err
	}
	lower, _, err := bound(dwarf.AttrLowerBound)
	if err != nil {
		return 0, isExpr, err
	}
	upper, ok, err := bound(dwarf.AttrUpperBound)
	if err != nil || !ok {
		return 0, isExpr, err
	}
	return max(upper-lower+1, 0), isExpr, nil
}

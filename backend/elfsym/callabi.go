package elfsym

// Where a function returns its value on x86-64 (the System V ABI), for a call the debugger
// makes: in memory the caller provides, or in registers, each eightbyte of the value in
// the next integer (rax, rdx) or SSE (xmm0, xmm1) register; and how it takes a class
// object by value: in registers the same way, copied onto the stack, or (a class C++
// copies with code of its own) as the address of a copy.

import (
	"debug/dwarf"
	"strings"
)

// ReturnConvention is how a value of some type comes back from a function.
type ReturnConvention struct {
	// InMemory: the caller passes where to build it as a hidden first argument (a class
	// with a destructor or copy constructor of its own, one larger than 16 bytes).
	InMemory bool
	// SSE says, for each eightbyte of a value returned in registers, that it comes in the
	// next SSE register rather than the next integer one.
	SSE []bool
}

// ReturnConventionOf is how a function returns a value of type t on x86-64; ok is false
// for a value the debugger cannot read back (a long double, x87's, or a layout it does
// not know).
func (f *File) ReturnConventionOf(t dwarf.Type) (ReturnConvention, bool) {
	size := t.Size()
	if size <= 0 {
		return ReturnConvention{}, false
	}
	if st, ok := resolve(t).(*dwarf.StructType); ok && (size > 16 || f.nonTrivial(st, 0)) {
		return ReturnConvention{InMemory: true}, true
	}
	if size > 16 {
		return ReturnConvention{InMemory: true}, true
	}
	kinds := make([]int, (size+7)/8) // per eightbyte: 0 nothing yet, 1 SSE, 2 integer
	if !f.classify(t, 0, kinds, 0) {
		return ReturnConvention{}, false
	}
	conv := ReturnConvention{SSE: make([]bool, len(kinds))}
	for i, k := range kinds {
		conv.SSE[i] = k == 1
	}
	return conv, true
}

// ArgumentPassing is how a function takes a class object by value.
type ArgumentPassing int

const (
	// PassInRegisters: each eightbyte in the next integer or SSE register (as the SSE
	// list of its ReturnConvention says), or the whole on the stack when too few are left.
	PassInRegisters ArgumentPassing = iota
	// PassOnStack: its bytes copied onto the stack (larger than 16 bytes, or holding a
	// long double).
	PassOnStack
	// PassByReference: the address of a copy the caller makes (C++: a class with a copy
	// constructor or destructor of its own, or virtual functions).
	PassByReference
)

// ArgumentPassingOf is how a function takes a value of the class t on x86-64, with the
// classes of its eightbytes when in registers.
func (f *File) ArgumentPassingOf(t dwarf.Type) (ArgumentPassing, []bool) {
	if st, ok := resolve(t).(*dwarf.StructType); ok && f.nonTrivial(st, 0) {
		return PassByReference, nil
	}
	size := t.Size()
	if size > 16 || size <= 0 {
		return PassOnStack, nil
	}
	kinds := make([]int, (size+7)/8)
	if !f.classify(t, 0, kinds, 0) {
		return PassOnStack, nil
	}
	sse := make([]bool, len(kinds))
	for i, k := range kinds {
		sse[i] = k == 1
	}
	return PassInRegisters, sse
}

// classify marks the eightbytes the scalars of t (at off) fall in: SSE for a float or a
// double alone, integer for anything else there; false for what the ABI would pass in
// memory or x87 registers (a long double, a field across eightbytes).
func (f *File) classify(t dwarf.Type, off int64, kinds []int, depth int) bool {
	if depth > 16 {
		return false
	}
	mark := func(k int) bool {
		size := max(t.Size(), 1)
		first, last := off/8, (off+size-1)/8
		if first != last || last >= int64(len(kinds)) {
			return false
		}
		kinds[first] = max(kinds[first], k)
		return true
	}
	switch tt := resolve(t).(type) {
	case *dwarf.FloatType:
		return tt.Size() <= 8 && mark(1)
	case *dwarf.StructType:
		for _, fld := range tt.Field {
			if fld.Type != nil && !f.classify(fld.Type, off+fld.ByteOffset, kinds, depth+1) {
				return false
			}
		}
		if cl := f.ClassOf(tt); cl != nil {
			for _, b := range cl.Bases {
				if !f.classify(b.Type, off+b.Offset, kinds, depth+1) {
					return false
				}
			}
		}
		return true
	case *dwarf.ArrayType:
		es := tt.Type.Size()
		if es <= 0 {
			return tt.Size() == 0
		}
		for i := range tt.Size() / es {
			if !f.classify(tt.Type, off+i*es, kinds, depth+1) {
				return false
			}
		}
		return true
	case *dwarf.VoidType, nil:
		return false
	}
	return mark(2) // integers, characters, booleans, enums, pointers, references
}

// nonTrivial reports whether the class st is one C++ passes and returns by reference: it,
// a base or a member declares its own destructor or copy or move constructor, or it has
// virtual functions.
func (f *File) nonTrivial(st *dwarf.StructType, depth int) bool {
	if depth > 16 || !isCXX(st) {
		return false
	}
	if f.hasVptr(st) || f.declaresSpecialMembers(st) {
		return true
	}
	if cl := f.ClassOf(st); cl != nil {
		for _, b := range cl.Bases {
			if f.nonTrivial(b.Type, depth+1) {
				return true
			}
		}
	}
	for _, fld := range st.Field {
		if inner, ok := resolve(fld.Type).(*dwarf.StructType); ok && f.nonTrivial(inner, depth+1) {
			return true
		}
	}
	return false
}

// attrDefaulted is DWARF 5's DW_AT_defaulted: a special member declared "= default".
const attrDefaulted dwarf.Attr = 0x8b

// declaresSpecialMembers reports whether the class st declares, other than by the
// compiler or as "= default", a destructor or a constructor whose first parameter (after
// this) is a reference to the class itself.
func (f *File) declaresSpecialMembers(st *dwarf.StructType) bool {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return false
	}
	short := st.StructName
	if i := strings.IndexByte(short, '<'); i >= 0 {
		short = short[:i]
	}
	if i := strings.LastIndex(short, "::"); i >= 0 {
		short = short[i+2:]
	}
	r := f.DWARF.Reader()
	r.Seek(d.(cxxDecl).off)
	if e, err := r.Next(); err != nil || e == nil || !e.Children {
		return false
	}
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			return false
		}
		name, _ := kid.Val(dwarf.AttrName).(string)
		artificial, _ := kid.Val(dwarf.AttrArtificial).(bool)
		_, defaulted := kid.Val(attrDefaulted).(int64)
		if kid.Tag != dwarf.TagSubprogram || artificial || defaulted || name != short && name != "~"+short {
			if kid.Children {
				r.SkipChildren()
			}
			continue
		}
		if name == "~"+short {
			return true
		}
		if ft, _ := f.funcType(kid, r); len(ft.ParamType) >= 2 {
			if ref, ok := ft.ParamType[1].(*RefType); ok {
				if target, ok := resolve(ref.Type).(*dwarf.StructType); ok && target.StructName == st.StructName {
					return true
				}
			}
		}
	}
}

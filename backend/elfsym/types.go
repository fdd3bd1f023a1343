package elfsym

// C names and kinds of DWARF types.

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// TypeName is the C spelling of a DWARF type: "const char *", "int [5]", "struct point".
func TypeName(t dwarf.Type) string {
	switch tt := t.(type) {
	case nil:
		return "?"
	case *dwarf.PtrType:
		if _, ok := tt.Type.(*dwarf.VoidType); ok || tt.Type == nil {
			return "void *"
		}
		if needsParens(tt) { // int (*)(int), int (**)(int), char (*)[8], int (*(*)[2])(int)
			return declare(tt, "", TypeName)
		}
		inner := TypeName(tt.Type)
		if strings.HasSuffix(inner, "*") {
			return inner + "*"
		}
		return inner + " *"
	case *dwarf.QualType:
		if _, ok := tt.Type.(*dwarf.PtrType); ok { // the pointer's own: char *const, as gdb spells it
			return TypeName(tt.Type) + " " + tt.Qual
		}
		return tt.Qual + " " + TypeName(tt.Type)
	case *dwarf.ArrayType:
		if needsParens(tt) { // int (*[2])(int, int)
			return declare(tt, "", TypeName)
		}
		n := TypeName(tt.Type)
		bound := fmt.Sprintf(" [%d]", tt.Count)
		if tt.Count < 0 { // of unknown bound: int []
			bound = " []"
		}
		if i := strings.Index(n, " ["); i >= 0 { // int [2][3]
			return n[:i] + bound + n[i+1:]
		}
		return n + bound
	case *dwarf.StructType:
		if tt.StructName == "" {
			return tt.Kind + " {...}"
		}
		if isCXX(tt) { // C++ names a class without its keyword
			return tt.StructName
		}
		return tt.Kind + " " + tt.StructName
	case *dwarf.EnumType:
		if tt.EnumName == "" {
			return "enum {...}"
		}
		if isCXX(tt) {
			return tt.EnumName
		}
		return "enum " + tt.EnumName
	case *MemberPtrType: // int Outer::*, int (Outer::*)(Outer * const, int)
		return declare(tt, "", TypeName)
	case *RefType: // const geo::Point &
		if needsParens(tt) { // int (&)[3]
			return declare(tt, "", TypeName)
		}
		amp := " &"
		if tt.RValue {
			amp = " &&"
		}
		inner := TypeName(tt.Type)
		if strings.HasSuffix(inner, "*") {
			return inner + strings.TrimPrefix(amp, " ")
		}
		return inner + amp
	case *dwarf.TypedefType:
		return tt.Name
	case *dwarf.IntType, *dwarf.UintType:
		if n, ok := gdbIntNames[t.Common().Name]; ok {
			return n
		}
	case *dwarf.FuncType: // int (int), as C and gdb write it (not Go's func(int) int)
		return funcTypeName(tt)
	}
	return t.String()
}

// gdbIntNames are the integer types GCC names in full in DWARF ("long unsigned int") as C
// programmers and gdb write them ("unsigned long").
var gdbIntNames = map[string]string{
	"long int": "long", "long unsigned int": "unsigned long", "short int": "short",
	"short unsigned int": "unsigned short", "long long int": "long long",
	"long long unsigned int": "unsigned long long",
}

// Underlying strips typedefs and qualifiers (const, volatile) off t.
func Underlying(t dwarf.Type) dwarf.Type { return resolve(t) }

// resolve strips typedefs and qualifiers off t.
func resolve(t dwarf.Type) dwarf.Type {
	for range 32 {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		default:
			return t
		}
	}
	return t
}

func isChar(t dwarf.Type) bool {
	switch resolve(t).(type) {
	case *dwarf.CharType, *dwarf.UcharType:
		return true
	}
	return false
}

// IntKind reports whether t (through typedefs and qualifiers) is an integer-like type
// (integers, chars, bools, enums, pointers) and whether it is signed.
func IntKind(t dwarf.Type) (isInt, signed bool) {
	switch resolve(t).(type) {
	case *dwarf.IntType, *dwarf.CharType:
		return true, true
	case *dwarf.EnumType:
		return true, true
	case *dwarf.UintType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.PtrType:
		return true, false
	}
	return false, false
}

// arrayDims are the bounds of array type a and of the arrays it holds ("[2][3]", "[]" for
// one of unknown bound), and their element type.
func arrayDims(a *dwarf.ArrayType) (dims string, elem dwarf.Type) {
	for t, ok := a, true; ok; t, ok = elem.(*dwarf.ArrayType) {
		if t.Count < 0 {
			dims += "[]"
		} else {
			dims += fmt.Sprintf("[%d]", t.Count)
		}
		elem = t.Type
	}
	return dims, elem
}

// needsParens reports whether C's declarator for t puts a pointer in parentheses: t is, or
// holds, a pointer to a function or to an array (int (*)(int), int (*[2])(int, int)).
func needsParens(t dwarf.Type) bool {
	for range 64 {
		switch tt := t.(type) {
		case *dwarf.PtrType:
			if suffixedType(tt.Type) {
				return true
			}
			t = tt.Type
		case *RefType:
			if suffixedType(tt.Type) {
				return true
			}
			t = tt.Type
		case *dwarf.ArrayType:
			t = tt.Type
		default:
			return false
		}
	}
	return false
}

// suffixedType reports whether t's declarator ends in a suffix (a function's parameters, an
// array's bound), which binds tighter than a pointer's star.
func suffixedType(t dwarf.Type) bool {
	switch t.(type) {
	case *dwarf.FuncType, *dwarf.ArrayType:
		return true
	}
	return false
}

// pointerDeclarator is inner made a pointer (op "*") or a reference ("&", "&&") to
// pointee: in parentheses when pointee's declarator ends in a suffix, (*inner)[4].
func pointerDeclarator(op, inner string, pointee dwarf.Type) string {
	if suffixedType(pointee) {
		return "(" + op + inner + ")"
	}
	return op + inner
}

// declare is C's declaration of inner as type t, the way gdb spells it: pointers, arrays
// and functions wrapped around inner inside out, a pointer to a function or an array in
// parentheses (int (*(*)[2])(int, int), struct node *(*[3])(int)); name spells the type
// the declarator is built on (TypeName, or ptype's expanded) and a function's return type.
func declare(t dwarf.Type, inner string, name func(dwarf.Type) string) string {
	for range 64 {
		switch tt := t.(type) {
		case *dwarf.PtrType:
			if tt.Type == nil {
				return declarator("void", "*"+inner, "")
			}
			inner = pointerDeclarator("*", inner, tt.Type)
			t = tt.Type
			continue
		case *MemberPtrType: // as a pointer's star, its class's before it
			inner = pointerDeclarator(tt.className()+"::*", inner, tt.Type)
			t = tt.Type
			continue
		case *RefType: // int (&)[3], as a pointer's star
			amp := "&"
			if tt.RValue {
				amp = "&&"
			}
			inner = pointerDeclarator(amp, inner, tt.Type)
			t = tt.Type
			continue
		case *dwarf.ArrayType:
			if tt.Count < 0 {
				inner += "[]"
			} else {
				inner += fmt.Sprintf("[%d]", tt.Count)
			}
			t = tt.Type
			continue
		case *dwarf.FuncType:
			_, params := funcTypeParts(tt)
			inner += "(" + params + ")"
			if tt.ReturnType == nil {
				return declarator("void", inner, "")
			}
			t = tt.ReturnType
			continue
		}
		break
	}
	if inner == "" {
		return name(t)
	}
	return declarator(name(t), inner, "")
}

// declarator is base with mid and suffix after it, as gdb spells C's declarators:
// "int (*)(int)", "struct node *(*)[2]" (no space after a pointer's star or a reference's &).
func declarator(base, mid, suffix string) string {
	if !strings.HasSuffix(base, "*") && !strings.HasSuffix(base, "&") {
		base += " "
	}
	return base + mid + suffix
}

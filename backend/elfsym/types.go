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
		stars, to := "*", tt.Type // a chain of pointers to a function or an array: int (**)(int)
		for {
			next, ok := to.(*dwarf.PtrType)
			if !ok {
				break
			}
			stars, to = stars+"*", next.Type
		}
		if ft, ok := to.(*dwarf.FuncType); ok { // int (*)(int)
			return funcTypeAround(ft, "("+stars+")")
		}
		if _, ok := to.(*dwarf.ArrayType); ok && len(stars) > 1 { // char (**)[8]
			inner := TypeName(to)
			if i := strings.Index(inner, " ["); i >= 0 {
				return inner[:i] + " (" + stars + ")" + inner[i+1:]
			}
		}
		inner := TypeName(tt.Type)
		if i := strings.Index(inner, " ["); i >= 0 { // a pointer to an array: int (*)[3]
			return inner[:i] + " (*)" + inner[i+1:]
		}
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
	case *RefType: // const geo::Point &
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

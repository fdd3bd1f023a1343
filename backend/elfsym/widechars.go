package elfsym

// Characters wider than char, as gdb prints them: wchar_t's with an L before the quote
// (81 L'Q', L"wide"), char16_t's with u, char32_t's with U. C names them by typedefs of
// integer types, C++ by types of their own; both are recognised by name.

import (
	"debug/dwarf"
	"fmt"
)

// widePrefixes are the quote prefixes of the wide character types, by name.
var widePrefixes = map[string]string{"wchar_t": "L", "char16_t": "u", "char32_t": "U"}

// wideChar is the prefix gdb quotes a wide character type's text with (L, u, U); ok is
// false for another type.
func wideChar(t dwarf.Type) (prefix string, ok bool) {
	for range 16 {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			if p, ok := widePrefixes[tt.Name]; ok {
				return p, true
			}
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType:
			p, ok := widePrefixes[tt.Common().Name]
			return p, ok
		default:
			return "", false
		}
	}
	return "", false
}

// unitsOf are the characters of b, each size bytes wide.
func (f *File) unitsOf(b []byte, size int) []uint32 {
	out := make([]uint32, 0, len(b)/max(size, 1))
	for i := 0; i+size <= len(b); i += size {
		out = append(out, uint32(uintFrom(b[i:i+size], f.Arch)))
	}
	return out
}

// wideArray is a wide character array's text: all of it up to the elements limit, one NUL
// at its end left out, as charArray's.
func (f *File) wideArray(prefix string, units []uint32) string {
	if n := len(units); n > 0 && units[n-1] == 0 {
		units = units[:n-1]
	}
	if f.PrintLimits().NullStop {
		for i, u := range units {
			if u == 0 {
				units = units[:i]
				break
			}
		}
	}
	return f.unitsText(units, prefix, false)
}

// readWideString reads the wide string at addr, size bytes a character, up to its NUL
// and at most max characters; more says it went on.
func (f *File) readWideString(mem Memory, addr uint64, size, max int) (units []uint32, more bool, err error) {
	for len(units) <= max {
		at := addr + uint64(len(units)*size)
		chunk, err := mem.ReadMemory(at, 16*size)
		if err != nil || len(chunk) < size { // the end of what can be read may be nearer: one at a time
			chunk, err = mem.ReadMemory(at, size)
		}
		if err != nil || len(chunk) < size {
			if len(units) > 0 {
				return units, false, nil
			}
			return nil, false, fmt.Errorf("Cannot access memory at address %#x", addr)
		}
		for _, u := range f.unitsOf(chunk, size) {
			if u == 0 {
				return units, false, nil
			}
			if len(units) == max {
				return units, true, nil
			}
			units = append(units, u)
		}
	}
	return units, true, nil
}

// wideTypeOf is the type a literal's prefix (L, u, U) gives its characters: the program's
// wchar_t, char16_t or char32_t, else C's int, unsigned short or unsigned int of gdb's own.
func (f *File) wideTypeOf(prefix string) dwarf.Type {
	for name, p := range widePrefixes {
		if p == prefix {
			if t, err := f.ParseType(name); err == nil {
				return t
			}
			base := map[string]string{"L": "int", "u": "unsigned short", "U": "unsigned int"}[prefix]
			t, ok := f.builtinType(base)
			if !ok {
				t = &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: 4, Name: "int"}}}
			}
			return &dwarf.TypedefType{CommonType: dwarf.CommonType{ByteSize: t.Size(), Name: name}, Type: t}
		}
	}
	return nil
}

// WideCharLiteral is a C wide character literal's value, L'a' (prefix L, u or U, c the
// character): 97 L'a', of the wide character type.
func (f *File) WideCharLiteral(prefix string, c rune) Value {
	t := f.wideTypeOf(prefix)
	return f.FormatValue(t, f.wordBytes(uint64(c), int(t.Size())), 0, false, nil, 0)
}

// WideStringLiteral is a C wide string literal's value, L"ab": an array of the wide
// character type holding s's characters and a NUL, not in the program's memory.
func (f *File) WideStringLiteral(prefix string, s string) Value {
	t := f.wideTypeOf(prefix)
	size := int(t.Size())
	var b []byte
	for _, r := range s + "\x00" {
		b = append(b, f.wordBytes(uint64(r), size)...)
	}
	n := int64(len(b) / size)
	at := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: int64(len(b))}, Type: t, Count: n}
	return f.FormatValue(at, b, 0, false, nil, 0)
}

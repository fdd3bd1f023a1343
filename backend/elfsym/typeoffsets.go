package elfsym

import (
	"debug/dwarf"
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// DescribeOffsets is a struct's or union's layout as gdb's ptype/o shows it: each member
// with its offset and size (a bit field with its bit), the holes and the padding the
// compiler left, members that are structs or unions expanded in place with their own
// total size. false for a type that is neither (ptype/o shows it as ptype does).
func DescribeOffsets(t dwarf.Type) (string, bool) {
	_, u := qualified(t)
	st, ok := u.(*dwarf.StructType)
	if !ok || st.Incomplete {
		return "", false
	}
	var b strings.Builder
	with, header := templateNamesOf(st)
	if m := layoutMembers(st, with); m != nil && len(m.bases) > 0 {
		header += " : " + strings.Join(m.bases, ", ")
	}
	if _, typedef := t.(*dwarf.TypedefType); !typedef { // (gdb heads a struct's layout, not a typedef's)
		b.WriteString("/* offset      |    size */  ")
	}
	b.WriteString("type = " + st.Kind + structName(st) + header + " {\n")
	writeLayout(&b, st, 0, 0, 1, with, false)
	fmt.Fprintf(&b, "\n%s/* total size (bytes): %4d */\n", strings.Repeat(" ", offsetColumn+4), st.ByteSize)
	b.WriteString(strings.Repeat(" ", offsetColumn+2) + "}")
	return b.String(), true
}

// offsetColumn is the width of ptype/o's comment column ("/* offset      |    size */").
const offsetColumn = 27

func structName(st *dwarf.StructType) string {
	if st.StructName == "" {
		return ""
	}
	return " " + st.StructName
}

// templateNamesOf is templateNames of the class template instance st (none for another).
func templateNamesOf(st *dwarf.StructType) (with map[string]string, header string) {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return nil, ""
	}
	return templateNames(d.(cxxDecl).f.templateParams(d.(cxxDecl).off, 64))
}

// writeLayout writes the members of st, which starts at byte base of the outermost type,
// depth levels in, after what ended at bit end; with names the template parameters of its
// type (templateNames). pointed says st is a struct without a name that a member points to
// or holds an array of, expanded as gdb's show level allows once: its offsets are gdb's,
// counted from the last struct member laid out before it, without its padding or total
// size. It returns where its last member ended.
func writeLayout(b *strings.Builder, st *dwarf.StructType, base, end int64, depth int, with map[string]string, pointed bool) int64 {
	indent := strings.Repeat("    ", depth)
	union := st.Kind == "union"
	endBits := end                          // where the last member ended
	lastBase, lastEnd := int64(0), int64(0) // gdb's offsets for a pointed struct: those of the last struct member
	cl := layoutMembers(st, with)           // a C++ class's access labels, static members and hidden fields
	labels := cl != nil && cl.labelled()
	section := int64(0)
	label := func(access int64) {
		if labels && access != section {
			fmt.Fprintf(b, "%s%s:\n", strings.Repeat(" ", offsetColumn+2+4*(depth-1)), accessWords[access])
			section = access
		}
	}
	statics := func(i int) {
		if cl == nil {
			return
		}
		for _, s := range cl.statics[i] {
			label(s.access)
			fmt.Fprintf(b, "%s%s%s\n", strings.Repeat(" ", offsetColumn), indent, s.text)
		}
	}
	if cl != nil { // the base classes take their places, shown by the header alone
		if c := cxxClass(st); c != nil {
			for _, bc := range c.Bases {
				endBits = max(endBits, (base+bc.Offset+bc.Type.Size())*8)
			}
		}
	}
	for i, f := range st.Field {
		statics(i)
		if cl != nil && cl.fields[i].hidden { // the vtable pointer: its place taken, not shown
			endBits = max(endBits, (base+f.ByteOffset+f.Type.Size())*8)
			continue
		}
		if cl != nil {
			label(cl.fields[i].access)
		}
		size := f.Type.Size()
		startBits := (base+f.ByteOffset)*8 + f.BitOffset
		if f.BitSize > 0 && f.DataBitOffset > 0 {
			startBits = base*8 + f.DataBitOffset
		}
		if !union {
			writeHole(b, startBits-endBits, "hole")
		}
		switch {
		case union:
			fmt.Fprintf(b, "/*%22d */", size)
		case f.BitSize > 0:
			fmt.Fprintf(b, "/*%7d:%2d   |%8d */", startBits/8, startBits%8, size)
		default:
			fmt.Fprintf(b, "/*%7d      |%8d */", startBits/8, size)
		}
		typ := TypeName(f.Type)
		named := cxxname.Substitute(typ, with) // a template's parameter: named, not laid out, as gdb
		anon, isAnon := declaredBase(f.Type).(*dwarf.StructType)
		isAnon = isAnon && anon.StructName == "" && !anon.Incomplete && !pointed && named == typ
		if inner, ok := resolve(f.Type).(*dwarf.StructType); ok && !inner.Incomplete && named == typ {
			innerWith, header := templateNamesOf(inner)
			fmt.Fprintf(b, "%s%s%s%s {\n", indent, inner.Kind, structName(inner), header)
			lastBase, lastEnd = startBits/8, writeLayout(b, inner, startBits/8, startBits, depth+1, innerWith, pointed)
			fmt.Fprintf(b, "\n%s/* total size (bytes): %4d */\n", strings.Repeat(" ", offsetColumn+4*(depth+1)), inner.ByteSize)
			fmt.Fprintf(b, "%s%s;\n", strings.Repeat(" ", offsetColumn+4*depth), strings.TrimSuffix("} "+f.Name, " "))
		} else if isAnon { // struct { char c; } *p: expanded, with gdb's offsets
			fmt.Fprintf(b, "%s%s {\n", indent, anon.Kind)
			lastEnd = writeLayout(b, anon, lastBase, lastEnd, depth+1, nil, true)
			decl := strings.Replace(Declare(typ, f.Name), TypeName(anon), "}", 1)
			fmt.Fprintf(b, "%s%s;\n", strings.Repeat(" ", offsetColumn+4*depth), decl)
		} else {
			decl := Declare(named, f.Name)
			if named == typ {
				decl = expandAnonymousEnum(f.Type, decl)
			}
			if f.BitSize > 0 {
				decl += fmt.Sprintf(" : %d", f.BitSize)
			}
			fmt.Fprintf(b, "%s%s;\n", indent, decl)
		}
		switch {
		case pointed && size > 0: // (gdb's count goes on from this member, wherever the last ended)
			endBits = startBits + size*8
		case f.BitSize > 0:
			endBits = max(endBits, startBits+f.BitSize)
		case size > 0:
			endBits = max(endBits, startBits+size*8)
		}
	}
	statics(len(st.Field))
	if !union && len(st.Field) > 0 && !pointed { // (an empty class's one byte is no padding, as gdb says)
		writeHole(b, (base+st.ByteSize)*8-endBits, "padding")
	}
	return endBits
}

// expandAnonymousEnum is decl, the declaration of a member of type t, with an enum
// without a name (also pointed to) spelled with its constants, as ptype/o shows it.
func expandAnonymousEnum(t dwarf.Type, decl string) string {
	if et, ok := declaredBase(t).(*dwarf.EnumType); ok && et.EnumName == "" {
		return strings.Replace(decl, TypeName(et), describeEnum(et), 1)
	}
	return decl
}

// layoutMembers is membersOf the C++ class st for ptype/o: nil for a C struct, or when its
// data members are not the fields debug/dwarf read (laid out as a struct's then).
func layoutMembers(st *dwarf.StructType, with map[string]string) *classMembers {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return nil
	}
	m := membersOf(st, d.(cxxDecl), with)
	if m == nil || len(m.fields) != len(st.Field) {
		return nil
	}
	return m
}

// cxxClass is the C++ class description of st, from the file that read it.
func cxxClass(st *dwarf.StructType) *Class {
	d, ok := cxxTypes.Load(st)
	if !ok {
		return nil
	}
	return d.(cxxDecl).f.ClassOf(st)
}

// writeHole writes gdb's note of bits left unused: in bytes, or in bits when not a whole
// number of bytes.
func writeHole(b *strings.Builder, bits int64, what string) {
	if bits <= 0 {
		return
	}
	if bits%8 != 0 {
		fmt.Fprintf(b, "/* XXX %2d-bit %-10s */\n", bits%8, what)
	}
	if bits/8 > 0 {
		fmt.Fprintf(b, "/* XXX %2d-byte %-9s */\n", bits/8, what)
	}
}

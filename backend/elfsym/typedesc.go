package elfsym

// Types by name, described as gdb's ptype and whatis describe them.

import (
	"debug/dwarf"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// LookupType finds the type a C name says: "struct point", "union u", "enum color", or a
// typedef or base type by its own name ("node", "int"). A struct known only by a
// declaration is skipped for its definition. The program's types come first, then those
// of the loaded libraries with debug information (FILE, from libc's).
func (f *File) LookupType(name string) (dwarf.Type, error) {
	t, err := f.ownType(name)
	if err != nil {
		for _, alt := range f.usingNames(name, 0) { // Pt of using lib::Pt: lib::Pt
			if ut, uerr := f.ownType(alt); uerr == nil {
				return ut, nil
			}
		}
	}
	if err != nil && !f.isLibrary && !f.namesCode(name) {
		if lt, ok := inLibraries(f, func(lf *File) (dwarf.Type, bool) {
			t, err := lf.ownType(name)
			return t, err == nil
		}); ok {
			return lt, nil
		}
	}
	return t, err
}

// namesCode says whether the program's own function or global variable has the name: a
// library's type of that name is then hidden, as gdb looks in the program first (name(1)
// calls the program's name, not a cast to a typedef of libc's).
func (f *File) namesCode(name string) bool {
	if len(f.ownFuncsNamed(name)) > 0 {
		return true
	}
	for _, v := range f.Globals() {
		if v.Name == name {
			return true
		}
	}
	return false
}

func (f *File) ownType(name string) (dwarf.Type, error) {
	name = strings.Join(strings.Fields(name), " ")
	tags := []dwarf.Tag{dwarf.TagTypedef, dwarf.TagBaseType}
	if f.cplus { // C++ names a class or enum without its keyword
		tags = append(tags, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType)
	}
	notFound := fmt.Errorf("No symbol %q in current context.", name)
	for kw, tag := range map[string]dwarf.Tag{"struct": dwarf.TagStructType, "union": dwarf.TagUnionType, "enum": dwarf.TagEnumerationType} {
		if rest, ok := strings.CutPrefix(name, kw+" "); ok {
			name, tags = rest, []dwarf.Tag{tag}
			notFound = fmt.Errorf("No %s type named %s.", kw, name)
		}
	}
	for _, e := range f.typesNamed(name) {
		if slices.Contains(tags, e.tag) {
			return f.dwarfType(e.off)
		}
	}
	return nil, notFound
}

// namedType is a type's definition in the DWARF: its entry and tag.
type namedType struct {
	off dwarf.Offset
	tag dwarf.Tag
}

// typeIndex is the file's named type definitions by name, in the order of the DWARF,
// read at the first lookup (one walk, not one per lookup: a library's DWARF is large).
type typeIndex struct {
	once   sync.Once
	byName map[string][]namedType
}

// typesNamed are the type definitions named name (C++'s with their scope, template
// arguments also as gdb spells them: Arr<short, 3>).
func (f *File) typesNamed(name string) []namedType {
	ix := &f.types
	ix.once.Do(func() {
		ix.byName = map[string][]namedType{}
		if f.DWARF == nil { // no types: each lookup answers what it did not find, in gdb's words
			return
		}
		r := f.DWARF.Reader()
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				return
			}
			switch e.Tag {
			case dwarf.TagTypedef, dwarf.TagBaseType, dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType:
			default:
				continue
			}
			if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
				continue
			}
			n, _ := e.Val(dwarf.AttrName).(string)
			if n == "" {
				continue
			}
			if q := f.typeScope[e.Offset]; q != "" {
				n = q + "::" + n
			}
			nt := namedType{e.Offset, e.Tag}
			ix.byName[n] = append(ix.byName[n], nt)
			if c := canonicalArgs(n); c != n {
				ix.byName[c] = append(ix.byName[c], nt)
			}
		}
	})
	return ix.byName[name]
}

// DescribeType is t as gdb's ptype prints it (expand: a struct's or union's fields, an
// enum's values, through typedefs) or as whatis does (the name, a typedef one level down).
func DescribeType(t dwarf.Type, expand bool) string {
	if !expand {
		if td, ok := t.(*dwarf.TypedefType); ok {
			return TypeName(td.Type)
		}
		return TypeName(t)
	}
	quals, u := qualified(t)
	switch tt := u.(type) {
	case *dwarf.StructType:
		return quals + describeFields(tt, "", 1)
	case *dwarf.ArrayType: // struct node {...} *[2], as gdb: the element expanded, then the counts
		if needsParens(tt) {
			return quals + declare(tt, "", expanded)
		}
		dims, elem := arrayDims(tt)
		inner := DescribeType(elem, true)
		if strings.HasSuffix(inner, "*") {
			return quals + inner + dims
		}
		return quals + inner + " " + dims
	case *dwarf.EnumType:
		return quals + describeEnum(tt)
	case *RefType: // const struct geo::Point {...} &
		amp := " &"
		if tt.RValue {
			amp = " &&"
		}
		inner := DescribeType(tt.Type, true)
		if strings.HasSuffix(inner, "*") { // int *&
			amp = amp[1:]
		}
		return quals + inner + amp
	case *dwarf.FuncType: // struct node {...} *(int): its return type expanded
		return quals + describeAround(tt, "")
	case *dwarf.PtrType: // struct pt {...} *, as gdb expands what a pointer points to
		if tt.Type == nil {
			break
		}
		if needsParens(tt) { // struct node {...} *(*)(int), struct {...} (*)[2]
			return declare(tt, "", expanded)
		}
		inner := DescribeType(tt.Type, true)
		if !strings.HasSuffix(inner, "*") {
			inner += " "
		}
		if quals != "" { // int * const: the pointer's own qualifiers follow it
			return inner + "* " + strings.TrimSpace(quals)
		}
		return inner + "*"
	}
	return quals + TypeName(u)
}

// expanded is t as ptype expands it.
func expanded(t dwarf.Type) string { return DescribeType(t, true) }

// describeAround is function type ft with mid before its parameters, its return type
// expanded as ptype expands it.
func describeAround(ft *dwarf.FuncType, mid string) string {
	ret := "void"
	if ft.ReturnType != nil {
		ret = DescribeType(ft.ReturnType, true)
	}
	_, params := funcTypeParts(ft)
	return declarator(ret, mid, "("+params+")")
}

// describeEnum is an enum's name and constants as ptype lists them.
func describeEnum(tt *dwarf.EnumType) string {
	vals := make([]string, len(tt.Val))
	next := int64(0)
	for i, v := range tt.Val {
		vals[i] = v.Name
		if v.Val != next {
			vals[i] += fmt.Sprintf(" = %d", v.Val)
		}
		next = v.Val + 1
	}
	head := "enum"
	if tt.EnumName != "" {
		head = TypeName(tt)
	}
	if d, ok := cxxTypes.Load(tt); ok { // C++: enum class geo::Dir : char
		cd := d.(cxxDecl)
		head = "enum " + tt.EnumName
		if cd.scoped {
			head = "enum class " + tt.EnumName
		}
		if cd.underlying != "" {
			head += " : " + cd.underlying
		}
	}
	return head + " {" + strings.Join(vals, ", ") + "}"
}

// describeFields is a struct's or union's name and fields as ptype lists them, indent
// deeper. show is gdb's: 1 at the top, one less for each level of members; a type without
// a name of its own (struct {...}, also pointed to or in an array) is expanded in place
// down to show 0, below it is struct {...}.
func describeFields(st *dwarf.StructType, indent string, show int) string {
	if d, ok := cxxTypes.Load(st); ok && st.StructName != "" {
		if text := describeClass(st, d.(cxxDecl), indent); text != "" {
			return text
		}
	}
	var b strings.Builder
	b.WriteString(TypeName(st) + " {\n")
	if st.StructName == "" {
		b.Reset()
		b.WriteString(st.Kind + " {\n")
	}
	for _, f := range st.Field {
		b.WriteString(indent + "    ")
		decl := declareMember(f.Type, f.Name, indent+"    ", show-1)
		if f.BitSize > 0 { // a bit field: its width, as gdb's "unsigned int a : 3;"
			decl += fmt.Sprintf(" : %d", f.BitSize)
		}
		b.WriteString(decl + ";\n")
	}
	b.WriteString(indent + "}")
	return b.String()
}

// declareMember is the declaration of a member name of type t, indent deep, at gdb's show
// level show (describeFields): a struct, union or enum without a name, also one pointed to
// or in an array, expanded in place while show >= 0.
func declareMember(t dwarf.Type, name, indent string, show int) string {
	// (an anonymous member: "union {...}")
	decl := strings.TrimSuffix(Declare(TypeName(t), name), " ")
	if needsParens(t) { // the name inside the parentheses: char (*rows)[4], int (&arr)[3]
		decl = declare(t, name, TypeName)
	}
	if show < 0 {
		return decl
	}
	switch bt := declaredBase(t).(type) {
	case *dwarf.StructType:
		if bt.StructName == "" {
			return strings.Replace(decl, TypeName(bt), describeFields(bt, indent, show), 1)
		}
	case *dwarf.EnumType:
		if bt.EnumName == "" {
			return strings.Replace(decl, TypeName(bt), describeEnum(bt), 1)
		}
	}
	return decl
}

// declaredBase is the type a declarator of t is built on: t without its pointers, arrays
// and qualifiers (struct {...} of struct {...} *p[2]).
func declaredBase(t dwarf.Type) dwarf.Type {
	for range 32 {
		switch tt := t.(type) {
		case *dwarf.PtrType:
			t = tt.Type
		case *dwarf.ArrayType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		default:
			return t
		}
	}
	return t
}

// qualified strips typedefs and qualifiers off t as resolve does, and returns the
// qualifiers it met ("const ", "const volatile "), which gdb's ptype keeps.
func qualified(t dwarf.Type) (quals string, u dwarf.Type) {
	for range 32 {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			if !strings.Contains(quals, tt.Qual) {
				quals += tt.Qual + " "
			}
			t = tt.Type
		default:
			return quals, t
		}
	}
	return quals, t
}

// Declare is the C declaration of name with the type spelled typ: "int *p", "char buf[8]".
func Declare(typ, name string) string {
	if i := strings.Index(typ, "["); i > 0 { // an array: "char buf[8]", "const char *names[2]"
		base := strings.TrimSuffix(typ[:i], " ")
		if strings.HasSuffix(base, "*") {
			return base + name + typ[i:]
		}
		return base + " " + name + typ[i:]
	}
	if strings.HasSuffix(typ, "*") {
		return typ + name
	}
	return typ + " " + name
}

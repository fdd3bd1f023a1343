package elfsym

// Types by name, described as gdb's ptype and whatis describe them.

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// LookupType finds the type a C name says: "struct point", "union u", "enum color", or a
// typedef or base type by its own name ("node", "int"). A struct known only by a
// declaration is skipped for its definition.
func (f *File) LookupType(name string) (dwarf.Type, error) {
	if f.DWARF == nil {
		return nil, fmt.Errorf("elfsym: no debug information")
	}
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
	r := f.DWARF.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return nil, notFound
		}
		match := false
		for _, tag := range tags {
			match = match || e.Tag == tag
		}
		if !match {
			continue
		}
		n, _ := e.Val(dwarf.AttrName).(string)
		if q := f.typeScope[e.Offset]; q != "" {
			n = q + "::" + n
		}
		if n != name && canonicalArgs(n) != name { // Arr<short int, 3> as gdb spells it: Arr<short, 3>
			continue
		}
		if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
			continue
		}
		return f.dwarfType(e.Offset)
	}
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
		return quals + describeFields(tt, "")
	case *dwarf.ArrayType: // struct node {...} *[2], as gdb: the element expanded, then the counts
		dims, elem := "", dwarf.Type(tt)
		for a, ok := elem.(*dwarf.ArrayType); ok; a, ok = elem.(*dwarf.ArrayType) {
			dims, elem = dims+fmt.Sprintf("[%d]", a.Count), a.Type
		}
		inner := DescribeType(elem, true)
		if strings.HasSuffix(inner, "*") {
			return quals + inner + dims
		}
		return quals + inner + " " + dims
	case *dwarf.EnumType:
		vals := make([]string, len(tt.Val))
		next := int64(0)
		for i, v := range tt.Val {
			vals[i] = v.Name
			if v.Val != next {
				vals[i] += fmt.Sprintf(" = %d", v.Val)
			}
			next = v.Val + 1
		}
		head := TypeName(tt)
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
		return quals + head + " {" + strings.Join(vals, ", ") + "}"
	case *RefType: // const struct geo::Point {...} &
		amp := " &"
		if tt.RValue {
			amp = " &&"
		}
		return quals + DescribeType(tt.Type, true) + amp
	case *dwarf.PtrType: // struct pt {...} *, as gdb expands what a pointer points to
		if tt.Type == nil {
			break
		}
		if _, ok := resolve(tt.Type).(*dwarf.FuncType); ok {
			break
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

// describeFields is a struct's or union's name and fields as ptype lists them, a nested
// struct or union without a name of its own expanded in place, indent deeper.
func describeFields(st *dwarf.StructType, indent string) string {
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
		if inner, ok := f.Type.(*dwarf.StructType); ok && inner.StructName == "" {
			b.WriteString(strings.TrimSuffix(describeFields(inner, indent+"    ")+" "+f.Name, " ") + ";\n") // (an anonymous one: "};")
			continue
		}
		decl := Declare(TypeName(f.Type), f.Name)
		if f.BitSize > 0 { // a bit field: its width, as gdb's "unsigned int a : 3;"
			decl += fmt.Sprintf(" : %d", f.BitSize)
		}
		b.WriteString(decl + ";\n")
	}
	b.WriteString(indent + "}")
	return b.String()
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

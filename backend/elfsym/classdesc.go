package elfsym

// A C++ class as gdb's ptype lists it: its bases, its data members and static members and
// its methods, each section under its access when the class needs the labels.
//
//	type = class geo::Shape {
//	  public:
//	    static int count;
//	  protected:
//	    int w_;
//
//	  public:
//	    Shape(int, int);
//	    virtual int area(void) const;
//	}

import (
	"debug/dwarf"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// DWARF's DW_AT_accessibility values.
const (
	accessPublic    = 1
	accessProtected = 2
	accessPrivate   = 3
)

var accessWords = map[int64]string{accessPublic: "public", accessProtected: "protected", accessPrivate: "private"}

// classLine is one member or method of a class, with its access.
type classLine struct {
	text   string
	access int64
}

// classMembers is a C++ class as its DWARF entry declares it, in the order declared: its
// base classes ("public geo::Shape"), its data members (by st.Field's order: their access,
// their declaration, whether the compiler made them: a vtable pointer), its static members
// (under the index of the data member they come before), its methods.
type classMembers struct {
	deflt   int64 // the access of a member that says none: a class's private, a struct's public
	bases   []string
	fields  []classField
	statics map[int][]classLine
	methods []classLine
}

// classField is a data member of a class.
type classField struct {
	classLine
	hidden bool
}

// membersOf reads the members of the C++ class st (declared at d), its types named with
// the template parameters with (templateNames); nil when its entry cannot be read.
func membersOf(st *dwarf.StructType, d cxxDecl, with map[string]string) *classMembers {
	f := d.f
	r := f.DWARF.Reader()
	r.Seek(d.off)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil
	}
	m := &classMembers{deflt: accessPublic, statics: map[int][]classLine{}}
	if e.Tag == dwarf.TagClassType {
		m.deflt = accessPrivate
	}
	name := st.StructName
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	typeName := func(t dwarf.Type) string { return cxxname.Substitute(TypeName(t), with) }
	for e.Children {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		access, ok := kid.Val(dwarf.AttrAccessibility).(int64)
		if !ok {
			access = m.deflt
		}
		artificial, _ := kid.Val(dwarf.AttrArtificial).(bool)
		switch kid.Tag {
		case dwarf.TagInheritance:
			if t := f.entryType(kid); t != nil {
				virtual := ""
				if v, _ := kid.Val(dwarf.AttrVirtuality).(int64); v != 0 {
					virtual = "virtual "
				}
				m.bases = append(m.bases, accessWords[access]+" "+virtual+typeName(t))
			}
		case dwarf.TagMember, dwarf.TagVariable:
			if decl, _ := kid.Val(dwarf.AttrDeclaration).(bool); kid.Tag == dwarf.TagVariable || decl {
				n, _ := kid.Val(dwarf.AttrName).(string)
				if t := f.entryType(kid); t != nil {
					at := len(m.fields)
					m.statics[at] = append(m.statics[at], classLine{"static " + Declare(typeName(t), n) + ";", access})
				}
				break
			}
			if i := len(m.fields); i < len(st.Field) {
				fl := st.Field[i]
				text := Declare(typeName(fl.Type), fl.Name)
				if inner, ok := fl.Type.(*dwarf.StructType); ok && inner.StructName == "" { // an anonymous union or struct: spelled out
					text = strings.TrimSuffix(describeFields(inner, "", 0)+" "+fl.Name, " ")
				}
				if fl.BitSize > 0 {
					text += " : " + strconv.FormatInt(fl.BitSize, 10)
				}
				m.fields = append(m.fields, classField{classLine{text + ";", access}, artificial})
			}
		case dwarf.TagSubprogram:
			if !artificial {
				m.methods = append(m.methods, classLine{f.methodDecl(kid, r, name, with), access})
				continue // its children were read
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	return m
}

// labelled reports whether gdb labels the class's sections by their access: when any
// member's, static member's or method's is not the default. gdb takes an artificial member
// (the vtable pointer, not shown) for a private one: a struct with virtual methods is
// labelled.
func (m *classMembers) labelled() bool {
	for _, fl := range m.fields {
		if fl.hidden && m.deflt != accessPrivate || !fl.hidden && fl.access != m.deflt {
			return true
		}
	}
	for _, ls := range m.statics {
		for _, l := range ls {
			if l.access != m.deflt {
				return true
			}
		}
	}
	for _, l := range m.methods {
		if l.access != m.deflt {
			return true
		}
	}
	return false
}

// describeClass is ptype's text of the C++ class st (declared at d), indent deeper.
func describeClass(st *dwarf.StructType, d cxxDecl, indent string) string {
	with, header := templateNames(d.f.templateParams(d.off, 64))
	m := membersOf(st, d, with)
	if m == nil {
		return ""
	}
	var data []classLine // the data members and statics, in the order declared
	for i := range len(m.fields) + 1 {
		data = append(data, m.statics[i]...)
		if i < len(m.fields) && !m.fields[i].hidden {
			data = append(data, m.fields[i].classLine)
		}
	}
	var b strings.Builder
	b.WriteString(st.Kind + " " + st.StructName + header)
	if len(m.bases) > 0 {
		b.WriteString(" : " + strings.Join(m.bases, ", "))
	}
	b.WriteString(" {\n")
	labels := m.labelled()
	section := int64(0)
	write := func(ls []classLine) {
		for _, l := range ls {
			if labels && l.access != section {
				b.WriteString(indent + "  " + accessWords[l.access] + ":\n")
				section = l.access
			}
			b.WriteString(indent + "    " + strings.ReplaceAll(l.text, "\n", "\n"+indent+"    ") + "\n")
		}
	}
	write(data)
	switch {
	case len(m.methods) > 0 && !labels: // gdb labels the methods all the same, by the default access
		b.WriteString(indent + "  " + accessWords[m.deflt] + ":\n")
	case len(data) > 0 && len(m.methods) > 0:
		b.WriteString("\n")
	}
	write(m.methods)
	b.WriteString(indent + "}")
	return b.String()
}

// templateNames are what gdb's ptype of a class template's instance shows of its type
// parameters: each argument's parameter, by the argument's name (short: T), for its
// members' types, and the list after its name (" [with T = short]").
func templateNames(params []templateParam) (with map[string]string, header string) {
	var list []string
	for _, p := range params {
		if p.name == "" {
			continue
		}
		if with == nil {
			with = map[string]string{}
		}
		arg := TypeName(p.t)
		with[arg] = p.name
		list = append(list, p.name+" = "+arg)
	}
	if len(list) > 0 {
		header = " [with " + strings.Join(list, ", ") + "]"
	}
	return with, header
}

// entryType is the type entry e's DW_AT_type names (or its declaration's, for a C++
// method's definition), nil when it names none.
func (f *File) entryType(e *dwarf.Entry) dwarf.Type {
	to, ok := f.originVal(e, dwarf.AttrType).(dwarf.Offset)
	if !ok {
		return nil
	}
	t, err := f.dwarfType(to)
	if err != nil {
		return nil
	}
	return t
}

// methodDecl is a method's declaration as ptype lists it ("virtual int area(void) const;",
// "Shape(int, int);"), reading its parameters with r, which has just read e.
func (f *File) methodDecl(e *dwarf.Entry, r *dwarf.Reader, class string, with map[string]string) string {
	name, _ := e.Val(dwarf.AttrName).(string)
	var params []string
	isConst, hasThis := false, false
	for e.Children {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		if kid.Tag == dwarf.TagFormalParameter {
			t := f.entryType(kid)
			if art, _ := kid.Val(dwarf.AttrArtificial).(bool); art {
				hasThis = hasThis || len(params) == 0
				if pt, ok := t.(*dwarf.PtrType); ok && len(params) == 0 { // this: a const method's points to const
					if q, ok := pt.Type.(*dwarf.QualType); ok && q.Qual == "const" {
						isConst = true
					}
				}
			} else if t != nil {
				params = append(params, cxxname.Substitute(TypeName(t), with))
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	if len(params) == 0 {
		params = []string{"void"}
	}
	text := name + "(" + strings.Join(params, ", ") + ")"
	if name != class && name != "~"+class { // a constructor and a destructor return nothing
		ret := "void"
		if t := f.entryType(e); t != nil {
			ret = cxxname.Substitute(TypeName(t), with)
		}
		text = Declare(ret, text)
	}
	if e.Val(dwarf.AttrVtableElemLoc) != nil { // (gdb's test: a destructor has none)
		text = "virtual " + text
	}
	if !hasThis { // a static member function: no this
		text = "static " + text
	}
	if isConst {
		text += " const"
	}
	return text + ";"
}

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

// describeClass is ptype's text of the C++ class st (declared at d), indent deeper.
func describeClass(st *dwarf.StructType, d cxxDecl, indent string) string {
	f := d.f
	r := f.DWARF.Reader()
	r.Seek(d.off)
	e, err := r.Next()
	if err != nil || e == nil {
		return ""
	}
	deflt := int64(accessPublic)
	if e.Tag == dwarf.TagClassType {
		deflt = accessPrivate
	}
	base := st.StructName
	if i := strings.LastIndex(base, "::"); i >= 0 {
		base = base[i+2:]
	}
	with, header := templateNames(f.templateParams(d.off, 64))
	var bases []string
	var fields, methods []classLine
	field := 0
	for e.Children {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		access, ok := kid.Val(dwarf.AttrAccessibility).(int64)
		if !ok {
			access = deflt
		}
		artificial, _ := kid.Val(dwarf.AttrArtificial).(bool)
		switch kid.Tag {
		case dwarf.TagInheritance:
			if access == deflt && !ok && e.Tag != dwarf.TagClassType {
				access = accessPublic
			}
			if t := f.entryType(kid); t != nil {
				bases = append(bases, accessWords[access]+" "+cxxname.Substitute(TypeName(t), with))
			}
		case dwarf.TagMember, dwarf.TagVariable:
			decl, _ := kid.Val(dwarf.AttrDeclaration).(bool)
			static := kid.Tag == dwarf.TagVariable || decl
			if !static {
				if field < len(st.Field) && !artificial {
					fl := st.Field[field]
					text := Declare(cxxname.Substitute(TypeName(fl.Type), with), fl.Name)
					if fl.BitSize > 0 {
						text += " : " + strconv.FormatInt(fl.BitSize, 10)
					}
					fields = append(fields, classLine{text + ";", access})
				}
				field++
				break
			}
			name, _ := kid.Val(dwarf.AttrName).(string)
			if t := f.entryType(kid); t != nil {
				fields = append(fields, classLine{"static " + Declare(cxxname.Substitute(TypeName(t), with), name) + ";", access})
			}
		case dwarf.TagSubprogram:
			if !artificial {
				methods = append(methods, classLine{f.methodDecl(kid, r, base, with), access})
				continue // its children were read
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	var b strings.Builder
	b.WriteString(st.Kind + " " + st.StructName + header)
	if len(bases) > 0 {
		b.WriteString(" : " + strings.Join(bases, ", "))
	}
	b.WriteString(" {\n")
	labels := false // gdb labels the sections when any member's access is not the default
	for _, l := range append(append([]classLine(nil), fields...), methods...) {
		labels = labels || l.access != deflt
	}
	section := int64(0)
	write := func(ls []classLine) {
		for _, l := range ls {
			if labels && l.access != section {
				b.WriteString(indent + "  " + accessWords[l.access] + ":\n")
				section = l.access
			}
			b.WriteString(indent + "    " + l.text + "\n")
		}
	}
	write(fields)
	switch {
	case len(methods) > 0 && !labels: // gdb labels the methods all the same, by the default access
		b.WriteString(indent + "  " + accessWords[deflt] + ":\n")
	case len(fields) > 0 && len(methods) > 0:
		b.WriteString("\n")
	}
	write(methods)
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
	isConst := false
	for e.Children {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		if kid.Tag == dwarf.TagFormalParameter {
			t := f.entryType(kid)
			if art, _ := kid.Val(dwarf.AttrArtificial).(bool); art {
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
	if isConst {
		text += " const"
	}
	return text + ";"
}

// classLayout is what ptype/o shows of a C++ class besides its fields' places: its base
// classes (": public geo::Shape"), each field's access and whether the compiler made it
// (a vtable pointer, not shown), the static members before each field (by its index; those
// after the last under len(st.Field)), and whether its sections are labelled.
type classLayout struct {
	bases   []string
	access  []int64
	hidden  []bool
	statics map[int][]classLine
	labels  bool
}

// layoutOf reads classLayout of the C++ class st; false for a C struct.
func (f *File) layoutOf(st *dwarf.StructType) (*classLayout, bool) {
	d, ok := cxxTypes.Load(st)
	if !ok || d.(cxxDecl).f != f {
		return nil, false
	}
	r := f.DWARF.Reader()
	r.Seek(d.(cxxDecl).off)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil, false
	}
	deflt := int64(accessPublic)
	if e.Tag == dwarf.TagClassType {
		deflt = accessPrivate
	}
	cl := &classLayout{statics: map[int][]classLine{}}
	field := 0
	for e.Children {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		access, explicit := kid.Val(dwarf.AttrAccessibility).(int64)
		if !explicit {
			access = deflt
		}
		switch kid.Tag {
		case dwarf.TagInheritance:
			if !explicit && e.Tag != dwarf.TagClassType {
				access = accessPublic
			}
			if t := f.entryType(kid); t != nil {
				cl.bases = append(cl.bases, accessWords[access]+" "+TypeName(t))
			}
		case dwarf.TagMember, dwarf.TagVariable:
			decl, _ := kid.Val(dwarf.AttrDeclaration).(bool)
			if kid.Tag == dwarf.TagVariable || decl {
				name, _ := kid.Val(dwarf.AttrName).(string)
				if t := f.entryType(kid); t != nil {
					cl.statics[field] = append(cl.statics[field], classLine{"static " + Declare(TypeName(t), name) + ";", access})
					cl.labels = cl.labels || access != deflt
				}
				break
			}
			artificial, _ := kid.Val(dwarf.AttrArtificial).(bool)
			cl.access = append(cl.access, access)
			cl.hidden = append(cl.hidden, artificial)
			cl.labels = cl.labels || access != deflt && !artificial
			field++
		case dwarf.TagSubprogram: // (ptype/o lists no methods, but their access labels the class)
			if artificial, _ := kid.Val(dwarf.AttrArtificial).(bool); !artificial {
				cl.labels = cl.labels || access != deflt
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	if field != len(st.Field) { // not the fields debug/dwarf read: lay it out as a struct
		return nil, false
	}
	return cl, true
}

package elfsym

// The program's global and static variables, as gdb's info variables lists them: those each
// unit defines at its top level (a function's own statics are not listed), with the file
// and line of their declaration.

import (
	"debug/dwarf"
	"sync"
)

// VarDecl is one variable as its source declares it.
type VarDecl struct {
	Name   string
	Text   string // as gdb lists it: "int counter;", "static int calls;", "char *names[2];"
	File   string // the file of its declaration, absolute
	Line   int
	Static bool // file scope only (C's static)
}

type varDecls struct {
	once  sync.Once
	decls []VarDecl
	names map[string]bool
	// externs are the types of variables declared and not defined (extern int counter;),
	// by name: the first unit's.
	externs map[string]dwarf.Offset
}

// VarDecls are the program's global and static variables, in the order of its units,
// read at the first call.
func (f *File) VarDecls() []VarDecl {
	vd := f.readVarDecls()
	return withLibraries(f, vd.decls, (*File).VarDecls)
}

func (f *File) readVarDecls() *varDecls {
	vd := &f.varDecls
	vd.once.Do(func() {
		vd.names, vd.externs = map[string]bool{}, map[string]dwarf.Offset{}
		f.eachUnitEntry(func(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string, _ bool) {
			if d, ok := f.varDecl(e, files, unitFile); ok {
				vd.decls = append(vd.decls, d)
				vd.names[d.Name] = true
			} else if name, typ, ok := externDecl(e); ok && vd.externs[name] == 0 {
				vd.externs[name] = typ
			}
		})
	})
	return vd
}

// externDecl is the name and type of the variable entry e declares without defining it
// (extern int counter;).
func externDecl(e *dwarf.Entry) (string, dwarf.Offset, bool) {
	if e.Tag != dwarf.TagVariable {
		return "", 0, false
	}
	decl, _ := e.Val(dwarf.AttrDeclaration).(bool)
	name, _ := e.Val(dwarf.AttrName).(string)
	typ, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
	return name, typ, decl && ok && name != "" && e.Val(dwarf.AttrLocation) == nil
}

// ExternType is the type a declaration without a definition gives the variable name
// (extern int counter; of a variable a library without debug information defines), as gdb
// reads such a variable: at its symbol's address, with the declared type. The program's
// declarations are looked in first, then those of the libraries whose debug information is
// read already; the file whose declaration it is comes with it, to read the variable by.
func (f *File) ExternType(name string) (dwarf.Type, *File, bool) {
	for _, lf := range append([]*File{f}, f.readLibraries()...) {
		if off, ok := lf.readVarDecls().externs[name]; ok {
			if t, err := lf.dwarfType(off); err == nil {
				return t, lf, true
			}
		}
	}
	return nil, nil, false
}

// varDecl is the variable entry e defines, if it defines one (a declaration of a variable
// defined elsewhere, extern int x, is not listed).
func (f *File) varDecl(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string) (VarDecl, bool) {
	name, _ := f.originVal(e, dwarf.AttrName).(string) // (a C++ static member's, from its declaration)
	if e.Tag != dwarf.TagVariable || name == "" {
		return VarDecl{}, false
	}
	if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
		return VarDecl{}, false
	}
	off, ok := f.originVal(e, dwarf.AttrType).(dwarf.Offset)
	if !ok {
		return VarDecl{}, false
	}
	t, err := f.dwarfType(off)
	if err != nil {
		return VarDecl{}, false
	}
	if q := f.varQualifier(e); q != "" {
		name = q + "::" + name // geo::Shape::count
	}
	ext, _ := f.originVal(e, dwarf.AttrExternal).(bool)
	d := VarDecl{Name: name, Text: Declare(TypeName(t), name) + ";", File: unitFile, Static: !ext}
	if d.Static {
		d.Text = "static " + d.Text
	}
	declPlace(e, files, &d.File, &d.Line)
	if l, ok := f.originVal(e, dwarf.AttrDeclLine).(int64); ok && d.Line == 0 { // a static member's definition: its declaration's
		d.Line = int(l)
	}
	return d, true
}

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
		vd.names = map[string]bool{}
		f.eachUnitEntry(func(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string, _ bool) {
			if d, ok := f.varDecl(e, files, unitFile); ok {
				vd.decls = append(vd.decls, d)
				vd.names[d.Name] = true
			}
		})
	})
	return vd
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

package elfsym

// The named types of the program, as gdb's info types lists them: the base types, structs,
// unions, enums and typedefs each unit declares at its top level (not a function's own),
// with the file and line of their declaration.

import (
	"debug/dwarf"
	"path/filepath"
	"sync"
)

// TypeDecl is one named type as its source declares it.
type TypeDecl struct {
	Name string // what a search matches: "point" for struct point, "unsigned int"
	Text string // as gdb lists it: "struct point;", "typedef struct point point_t;", "int"
	File string // the file of its declaration, absolute; a base type's is its unit's
	Line int    // of its declaration; 0 for a base type
}

type typeDecls struct {
	once  sync.Once
	decls []TypeDecl
}

// TypeDecls are the program's named types, in the order of its units, read at the first
// call.
func (f *File) TypeDecls() []TypeDecl {
	td := &f.typeDecls
	td.once.Do(func() { td.decls = f.readTypeDecls() })
	return withLibraries(f, td.decls, (*File).TypeDecls)
}

// withLibraries is own followed by what each loaded library with debug information
// answers to the same question.
func withLibraries[T any](f *File, own []T, of func(*File) []T) []T {
	libs := f.debugLibraries()
	if len(libs) == 0 {
		return own
	}
	out := append([]T(nil), own...)
	for _, lf := range libs {
		out = append(out, of(lf)...)
	}
	return out
}

func (f *File) readTypeDecls() []TypeDecl {
	var out []TypeDecl
	f.eachUnitEntry(func(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string, cxx bool) {
		if d, ok := f.typeDecl(e, files, unitFile, cxx); ok {
			out = append(out, d)
		}
	})
	return out
}

// eachUnitEntry calls visit with each entry at the top level of each unit or of a
// namespace in it (not a function's own), the unit's line table files, its source file
// (absolute) and whether it is C++.
func (f *File) eachUnitEntry(visit func(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string, cxx bool)) {
	if f.DWARF == nil {
		return
	}
	r := f.DWARF.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			return
		}
		if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit {
			r.SkipChildren()
			continue
		}
		var files []*dwarf.LineFile
		if lr, err := f.DWARF.LineReader(cu); err == nil && lr != nil {
			files = lr.Files()
		}
		unitFile, cxx := "", f.cplus // (a partial unit dwz made says no language: the file's)
		if info := f.cus[cu.Offset]; info != nil {
			cxx = info.lang == "c++"
		}
		if info := f.cus[cu.Offset]; info != nil && info.name != "" {
			unitFile = info.name
			if !filepath.IsAbs(unitFile) {
				unitFile = filepath.Join(info.dir, unitFile)
			}
		}
		if !cu.Children {
			continue
		}
		depth := 0 // inside namespaces (C++), whose entries are the unit's too
		for {
			e, err := r.Next()
			if err != nil || e == nil {
				break
			}
			if e.Tag == 0 {
				if depth--; depth < 0 {
					break
				}
				continue
			}
			visit(e, files, unitFile, cxx)
			if e.Tag == dwarf.TagNamespace && e.Children {
				depth++
				continue
			}
			if e.Children {
				r.SkipChildren()
			}
		}
	}
}

// declPlace sets the file and line of e's declaration where e says them.
func declPlace(e *dwarf.Entry, files []*dwarf.LineFile, file *string, line *int) {
	if l, ok := e.Val(dwarf.AttrDeclLine).(int64); ok {
		*line = int(l)
	}
	if i, ok := e.Val(dwarf.AttrDeclFile).(int64); ok && i >= 0 && int(i) < len(files) && files[i] != nil {
		*file = files[i].Name
	}
}

// typeDecl is the declaration entry e makes, if it names a type.
func (f *File) typeDecl(e *dwarf.Entry, files []*dwarf.LineFile, unitFile string, cxx bool) (TypeDecl, bool) {
	name, _ := e.Val(dwarf.AttrName).(string)
	if name == "" {
		return TypeDecl{}, false
	}
	if decl, _ := e.Val(dwarf.AttrDeclaration).(bool); decl {
		return TypeDecl{}, false // only declared here (struct s *p): defined elsewhere, or nowhere
	}
	d := TypeDecl{Name: name, File: unitFile}
	if cxx { // C++: geo::Shape;, named with its scopes and without its keyword
		if q := f.typeScope[e.Offset]; q != "" {
			name = q + "::" + name
		}
		name = canonicalArgs(name)
		d.Name = name
		switch e.Tag {
		case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagClassType:
			d.Text = name + ";"
			declPlace(e, files, &d.File, &d.Line)
			return d, true
		case dwarf.TagNamespace: // listed too, as gdb lists it: cfg::inner
			d.Text = name
			declPlace(e, files, &d.File, &d.Line)
			return d, true
		}
	}
	switch e.Tag {
	case dwarf.TagBaseType:
		if short, ok := gdbIntNames[name]; ok {
			d.Name = short
		}
		d.Text = d.Name
		return d, true
	case dwarf.TagStructType:
		d.Text = "struct " + name + ";"
	case dwarf.TagUnionType:
		d.Text = "union " + name + ";"
	case dwarf.TagEnumerationType:
		d.Text = "enum " + name + ";"
	case dwarf.TagClassType:
		d.Text = "class " + name + ";"
	case dwarf.TagTypedef:
		t, err := f.dwarfType(e.Offset)
		if err != nil {
			return TypeDecl{}, false
		}
		target := "void"
		for { // gdb names the type under every typedef: typedef unsigned int uint32_t
			tt, ok := t.(*dwarf.TypedefType)
			if !ok {
				target = TypeName(t)
				break
			}
			if t = tt.Type; t == nil {
				break
			}
		}
		d.Text = "typedef " + target + " " + name + ";"
	default:
		return TypeDecl{}, false
	}
	declPlace(e, files, &d.File, &d.Line)
	return d, true
}

package elfsym

// C++'s using directives (using namespace lib;), using declarations (using lib::Pt;) and
// namespace aliases (namespace di = deep::inner;), as gdb follows them: a name not found
// as it is written is looked for as what they make it stand for — lib::counter for
// counter, lib::Pt for Pt, deep::inner::level for di::level.

import (
	"debug/dwarf"
	"strings"
)

// usingEntry is one using directive, using declaration or namespace alias of a unit, at
// its top level or in a function's body.
type usingEntry struct {
	cu     dwarf.Offset
	fn     dwarf.Offset // the function whose body holds it; 0 at the unit's level
	module bool         // a directive: every name of namespace target is imported
	alias  string       // the name it declares: DW_AT_name, else the target's own
	target string       // what it imports, qualified (lib, lib::Pt, deep::inner)
}

// usingFound is an imported entry met while a unit's entries are read, resolved to a
// name once the unit's scopes are known.
type usingFound struct {
	entry    usingEntry
	imported dwarf.Offset
}

// noteUsing records the DW_TAG_imported_module or DW_TAG_imported_declaration e of unit
// cu, in the body of function fn (0: at the unit's level).
func noteUsing(found *[]usingFound, e *dwarf.Entry, cu, fn dwarf.Offset) {
	to, ok := e.Val(dwarf.AttrImport).(dwarf.Offset)
	if !ok {
		return
	}
	u := usingEntry{cu: cu, fn: fn, module: e.Tag == dwarf.TagImportedModule}
	u.alias, _ = e.Val(dwarf.AttrName).(string)
	*found = append(*found, usingFound{entry: u, imported: to})
}

// resolveUsings names the targets of the entries found in a unit, now that the scopes of
// its namespaces, types, variables and functions are known (subprograms: funcScopes).
func (f *File) resolveUsings(found []usingFound, funcScopes map[dwarf.Offset]string) {
	r := f.DWARF.Reader()
	for _, uf := range found {
		r.Seek(uf.imported)
		e, err := r.Next()
		if err != nil || e == nil {
			continue
		}
		name, _ := e.Val(dwarf.AttrName).(string)
		if name == "" {
			continue
		}
		scope := f.typeScope[uf.imported]
		switch e.Tag {
		case dwarf.TagVariable:
			scope = f.varScope[uf.imported]
		case dwarf.TagSubprogram:
			scope = funcScopes[uf.imported]
		}
		u := uf.entry
		u.target = name
		if scope != "" {
			u.target = scope + "::" + name
		}
		if u.alias == "" && !u.module {
			u.alias = name
		}
		f.usings = append(f.usings, u)
	}
}

// usingNames are the names name may stand for by the using directives, declarations and
// aliases in force at pc (those of its function's body and of its unit's top level), or
// by all of the program's when pc is in none of its functions (a type named before the
// program runs).
func (f *File) usingNames(name string, pc uint64) []string {
	if len(f.usings) == 0 || name == "" {
		return nil
	}
	var fn *Func
	if pc != 0 {
		fn = f.FuncAt(pc)
	}
	var out []string
	for _, u := range f.usings {
		if fn != nil && (u.cu != fn.cu || u.fn != 0 && u.fn != fn.entry) {
			continue
		}
		switch {
		case u.module:
			out = append(out, u.target+"::"+name)
		case name == u.alias:
			out = append(out, u.target)
		case strings.HasPrefix(name, u.alias+"::"): // di::level of namespace di = deep::inner
			out = append(out, u.target+name[len(u.alias):])
		}
	}
	return out
}

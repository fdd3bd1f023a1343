package elfsym

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"strings"
	"sync"
)

// Var is a variable or parameter described by DWARF.
type Var struct {
	Name    string
	Type    dwarf.Type // nil when DWARF gives none
	IsParam bool
	Global  bool
	Line    int
	loc     []byte       // DW_AT_location exprloc (nil: no location)
	typeOff dwarf.Offset // its type's entry (a variable-length array's bounds are read from it)
	fn      *Func        // enclosing function (nil for globals)
	// constant: loc is DW_AT_const_value's (the compiler's constant), not where it lives;
	// constBytes: given as bytes (a block or string form), gdb's LOC_CONST_BYTES
	constant, constBytes bool
	// locList is the offset (or, when locIndexed, the DW_FORM_loclistx index) of the
	// variable's location list; -1 when DW_AT_location is an expression.
	locList    int64
	locIndexed bool
	cu         *cuInfo
	// Depth is how many lexical blocks inside its function a local is declared (0 for its
	// outermost scope), for listing the innermost block's first as gdb does.
	Depth int
}

// TypeName is the C name of the variable's type.
func (v *Var) TypeName() string { return TypeName(v.Type) }

// Size is the byte size of the variable's type (-1 when unknown).
func (v *Var) Size() int {
	if v.Type == nil {
		return -1
	}
	return int(v.Type.Size())
}

func (f *File) varFromEntry(e *dwarf.Entry, cu *cuInfo) *Var {
	v := &Var{locList: -1, cu: cu}
	name, _ := f.originVal(e, dwarf.AttrName).(string)
	if name == "" {
		return nil
	}
	v.Name = name
	if typ, ok := f.originVal(e, dwarf.AttrType).(dwarf.Offset); ok {
		if t, err := f.dwarfType(typ); err == nil {
			v.Type, v.typeOff = t, typ
		}
	}
	if l, ok := f.originVal(e, dwarf.AttrDeclLine).(int64); ok {
		v.Line = int(l)
	}
	if fl := e.AttrField(dwarf.AttrLocation); fl != nil {
		switch x := fl.Val.(type) {
		case []byte:
			v.loc = x
		case int64:
			v.locList, v.locIndexed = x, fl.Class == dwarf.ClassLocList
		}
	} else if fl := e.AttrField(dwarf.AttrConstValue); fl != nil {
		v.loc, v.constant = f.constLocation(fl, v.Type), true
		switch fl.Val.(type) {
		case []byte, string:
			v.constBytes = true
		}
	}
	return v
}

// Constant says whether the variable's value is one the compiler knew (DW_AT_const_value)
// rather than stored, and whether it was given as bytes (a double, a string) rather than
// as a number.
func (v *Var) Constant() (known, asBytes bool) { return v.constant, v.constBytes }

// constLocation is a DW_AT_const_value (a constant the compiler knew: a const variable,
// an inlined copy's parameter given a constant) as the location expression that yields
// it: DW_OP_implicit_value of its bytes, as gdb reads it. nil for a form it cannot be.
func (f *File) constLocation(fl *dwarf.Field, typ dwarf.Type) []byte {
	var b []byte
	switch x := fl.Val.(type) {
	case []byte: // a block: the value's bytes as stored
		b = x
	case string:
		b = append([]byte(x), 0)
	case int64: // in the type's size and the target's order
		n := 8
		if typ != nil && typ.Size() > 0 && typ.Size() <= 8 {
			n = int(typ.Size())
		}
		b = make([]byte, 8)
		f.Arch.ByteOrder.PutUint64(b, uint64(x))
		if f.Arch.ByteOrder == binary.BigEndian {
			b = b[8-n:]
		} else {
			b = b[:n]
		}
	default:
		return nil
	}
	expr := []byte{opImplicitValue}
	expr = binary.AppendUvarint(expr, uint64(len(b)))
	return append(expr, b...)
}

// Globals returns the variables defined at file scope (with a location).
func (f *File) Globals() []*Var {
	var out []*Var
	f.eachGlobalEntry(func(e *dwarf.Entry, cu dwarf.Offset) {
		if v := f.globalFromEntry(e, cu); v != nil {
			out = append(out, v)
		}
	})
	return out
}

// globalFromEntry is the variable at file scope of entry e of unit cu, named with its
// scopes (C++: geo::origin, geo::Shape::count); nil when it has no location.
func (f *File) globalFromEntry(e *dwarf.Entry, cu dwarf.Offset) *Var {
	v := f.varFromEntry(e, f.cus[cu])
	if v == nil || v.loc == nil && v.locList < 0 {
		return nil
	}
	v.Global = true
	if q := f.varQualifier(e); q != "" {
		v.Name = q + "::" + v.Name
	}
	return v
}

// eachGlobalEntry calls visit with each variable entry at file scope (in a namespace too)
// of the compilation units, and the unit's offset.
func (f *File) eachGlobalEntry(visit func(e *dwarf.Entry, cu dwarf.Offset)) {
	if f.DWARF == nil {
		return
	}
	r := f.DWARF.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit || !cu.Children {
			r.SkipChildren()
			continue
		}
		depth := 0 // inside namespaces
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
			if e.Tag == dwarf.TagVariable {
				visit(e, cu.Offset)
			}
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

// globalIndex is where the variables at file scope are by name (qualified in C++), read
// in one walk at the first lookup: a library's DWARF is large, and reading every global's
// type to find one took half a second in libc's at each name looked up.
type globalIndex struct {
	once   sync.Once
	byName map[string][]globalAt
}

// globalAt is a variable's entry and the unit it is in.
type globalAt struct{ entry, cu dwarf.Offset }

// globalNamed is the first variable at file scope named name that has a location, in the
// order of the DWARF (Globals' order).
func (f *File) globalNamed(name string) (*Var, bool) {
	return f.globalIn(name, func(dwarf.Offset) bool { return true })
}

// globalIn is globalNamed of the units in accepts (by their entries' offsets).
func (f *File) globalIn(name string, in func(cu dwarf.Offset) bool) (*Var, bool) {
	ix := &f.globalIx
	ix.once.Do(func() {
		ix.byName = map[string][]globalAt{}
		f.eachGlobalEntry(func(e *dwarf.Entry, cu dwarf.Offset) {
			n, _ := f.originVal(e, dwarf.AttrName).(string)
			if n == "" {
				return
			}
			if q := f.varQualifier(e); q != "" {
				n = q + "::" + n
			}
			ix.byName[n] = append(ix.byName[n], globalAt{e.Offset, cu})
		})
	})
	for _, at := range ix.byName[name] {
		if !in(at.cu) {
			continue
		}
		r := f.DWARF.Reader()
		r.Seek(at.entry)
		if e, err := r.Next(); err == nil && e != nil {
			if v := f.globalFromEntry(e, at.cu); v != nil {
				return v, true
			}
		}
	}
	return nil, false
}

// Global finds a global variable by name: the program's, else a loaded library's unless
// the program has a function of that name (gdb looks in the program first).
func (f *File) Global(name string) (*Var, bool) {
	if v, ok := f.globalNamed(name); ok {
		return v, true
	}
	if len(f.ownFuncsNamed(name)) > 0 || isCKeyword(name) {
		return nil, false // (a keyword of ptype struct point: no library's variable to read)
	}
	return inLibraries(f, func(lf *File) (*Var, bool) { return lf.Global(name) })
}

// FrameVars returns the parameters and the local variables visible at the run-time pc
// (lexical blocks that contain it), innermost block last, of the innermost scope: the
// inlined copy the pc is in, else its function.
func (f *File) FrameVars(pc uint64) (params, locals []*Var, err error) {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.FrameVars(pc)
	}
	fn := f.FuncAt(pc)
	if fn == nil || fn.entry == 0 || f.DWARF == nil {
		return nil, nil, nil
	}
	die := fn.entry
	if chain := f.InlinesAt(pc); len(chain) > 0 {
		die = chain[len(chain)-1].die
	}
	return f.varsIn(die, fn, pc)
}

// FrameVarsOf is FrameVars for a frame of a backtrace: the variables of the inlined copy
// the frame stands for, or of its function's own scope.
func (f *File) FrameVarsOf(fr *Frame) (params, locals []*Var, err error) {
	if o := f.fileOfFrame(fr); o != f {
		return o.FrameVarsOf(fr)
	}
	if fr.Func == nil || fr.Func.entry == 0 || f.DWARF == nil {
		return nil, nil, nil
	}
	die := fr.Func.entry
	if fr.inline != nil {
		die = fr.inline.die
	}
	return f.varsIn(die, fr.Func, fr.LookupPC())
}

// varsIn reads the variables of the scope entry die (a function or an inlined copy of
// one in fn) visible at the run-time pc; nested inlined copies are scopes of their own.
func (f *File) varsIn(die dwarf.Offset, fn *Func, pc uint64) (params, locals []*Var, err error) {
	a := f.clearThumb(pc - f.Bias)
	r := f.DWARF.Reader()
	r.Seek(die)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil, nil, err
	}
	origin, hasOrigin := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
	seen := map[dwarf.Offset]bool{} // abstract entries the concrete ones stand for
	if hasOrigin {
		defer func() {
			if err == nil {
				params, locals = f.inheritAbstract(origin, fn, seen, params, locals)
			}
		}()
	}
	if !e.Children {
		return nil, nil, nil
	}
	// depth-first over children; skip blocks that do not contain a
	depth := 0
	var walk func() error
	walk = func() error {
		for {
			e, err := r.Next()
			if err != nil {
				return err
			}
			if e == nil || e.Tag == 0 {
				return nil
			}
			switch e.Tag {
			case dwarf.TagFormalParameter, dwarf.TagVariable:
				if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
					seen[o] = true
				}
				if v := f.varFromEntry(e, f.cus[fn.cu]); v != nil {
					v.fn, v.Depth = fn, depth
					params, locals = v.addTo(e.Tag, params, locals)
				}
				if e.Children {
					r.SkipChildren()
				}
			case dwarf.TagLexDwarfBlock:
				if !e.Children {
					continue
				}
				if !f.blockContains(e, a) {
					r.SkipChildren()
					continue
				}
				depth++
				err := walk()
				depth--
				if err != nil {
					return err
				}
			default:
				if e.Children {
					r.SkipChildren()
				}
			}
		}
	}
	return params, locals, walk()
}

// inheritAbstract adds the parameters and variables of the abstract instance at origin
// that the concrete copy leaves out (GCC omits those with no location at all): like gdb,
// they are shown, as <optimized out>.
func (f *File) inheritAbstract(origin dwarf.Offset, fn *Func, seen map[dwarf.Offset]bool, params, locals []*Var) ([]*Var, []*Var) {
	r := f.DWARF.Reader()
	r.Seek(origin)
	if e, err := r.Next(); err != nil || e == nil || !e.Children {
		return params, locals
	}
	for {
		e, err := r.Next()
		if err != nil || e == nil || e.Tag == 0 {
			return params, locals
		}
		if (e.Tag == dwarf.TagFormalParameter || e.Tag == dwarf.TagVariable) && !seen[e.Offset] {
			if v := f.varFromEntry(e, f.cus[fn.cu]); v != nil {
				v.fn, v.loc, v.locList = fn, nil, -1
				params, locals = v.addTo(e.Tag, params, locals)
			}
		}
		if e.Children {
			r.SkipChildren()
		}
	}
}

func (f *File) blockContains(e *dwarf.Entry, a uint64) bool {
	if rs, err := f.DWARF.Ranges(e); err == nil && len(rs) > 0 {
		for _, rg := range rs {
			if a >= f.clearThumb(rg[0]) && a < f.clearThumb(rg[1]) {
				return true
			}
		}
		return false
	}
	return true // no range information: assume visible
}

// LookupVar finds the variable name visible at the run-time pc: innermost local first,
// then parameters, from the innermost inlined copy out to the function, then globals.
func (f *File) LookupVar(pc uint64, name string) (*Var, error) {
	if lf := f.debugLibraryAt(pc); lf != nil {
		if v, err := lf.LookupVar(pc, name); err == nil {
			return v, nil
		}
		pc = 0 // not the library's: the program's globals, and other libraries'
	}
	fn := f.FuncAt(pc)
	if fn != nil && fn.entry != 0 && f.DWARF != nil {
		scopes := []dwarf.Offset{fn.entry}
		for _, in := range f.InlinesAt(pc) {
			scopes = append(scopes, in.die)
		}
		for k := len(scopes) - 1; k >= 0; k-- {
			params, locals, err := f.varsIn(scopes[k], fn, pc)
			if err != nil {
				return nil, err
			}
			for i := len(locals) - 1; i >= 0; i-- {
				if locals[i].Name == name {
					return locals[i], nil
				}
			}
			for _, v := range params {
				if v.Name == name {
					return v, nil
				}
			}
		}
	}
	if fn != nil && fn.cplus { // C++: a name of the function's namespaces and class first
		for q := fn.Name; strings.Contains(q, "::"); {
			q = q[:strings.LastIndex(q, "::")]
			if v, ok := f.Global(q + "::" + name); ok {
				return v, nil
			}
		}
	}
	if fn != nil { // the unit's own first: a file's static before another file's of the same name
		if v, ok := f.globalIn(name, func(cu dwarf.Offset) bool { return cu == fn.cu }); ok {
			return v, nil
		}
	}
	if v, ok := f.Global(name); ok {
		return v, nil
	}
	for _, alt := range f.usingNames(name, pc) { // counter of using namespace lib: lib::counter
		if v, ok := f.Global(alt); ok {
			return v, nil
		}
	}
	if i := strings.LastIndex(name, "::"); i > 0 && f.isField(name[:i], name[i+2:]) { // Outer::b of a class's data member
		return nil, fmt.Errorf("Cannot reference non-static field %q", name[i+2:]) // gdb's words
	}
	return nil, fmt.Errorf("No symbol %q in current context.", name) // gdb's words
}

// addTo appends v to the parameters or the locals, as its entry's tag says.
func (v *Var) addTo(tag dwarf.Tag, params, locals []*Var) ([]*Var, []*Var) {
	if tag == dwarf.TagFormalParameter {
		v.IsParam = true
		return append(params, v), locals
	}
	return params, append(locals, v)
}

// FuncScopeVar is the variable name declared in the outermost scope of the function
// fnName, a parameter or a local, static or not: gdb's fact::calls. err is in gdb's words
// when there is no such function or no such variable in it.
func (f *File) FuncScopeVar(fnName, name string) (*Var, *Func, error) {
	fn, ok := f.LastOverload(fnName)
	if !ok || fn.entry == 0 || f.DWARF == nil {
		return nil, nil, fmt.Errorf("No symbol %q in current context.", fnName)
	}
	params, locals, err := f.varsIn(fn.entry, fn, fn.Low+f.Bias)
	if err != nil {
		return nil, nil, err
	}
	for _, v := range locals {
		if v.Name == name && v.Depth == 0 {
			return v, fn, nil
		}
	}
	for _, v := range params {
		if v.Name == name {
			return v, fn, nil
		}
	}
	return nil, nil, fmt.Errorf("No symbol %q in specified context.", name)
}

// NeedsFrame reports whether reading v needs a frame of its function: false for a static
// local (at an address of its own) or a constant.
func (v *Var) NeedsFrame() bool {
	if v.Global || v.constant {
		return false
	}
	if v.locList >= 0 {
		return true
	}
	if v.cu == nil || v.cu.file == nil {
		return true
	}
	_, static := v.cu.file.staticAddr(v.loc)
	return !static
}

// FileGlobal is the global or file-static variable name that the source file file defines
// (gdb's 'file.c'::name): file is its unit's name, or that name's last elements.
func (f *File) FileGlobal(file, name string) (*Var, bool) {
	return f.globalIn(name, func(cu dwarf.Offset) bool { c := f.cus[cu]; return c != nil && unitIs(c, file) })
}

// HasSourceFile reports whether a unit of the program is the source file file (its name,
// or that name's last elements).
func (f *File) HasSourceFile(file string) bool {
	for _, cu := range f.cus {
		if unitIs(cu, file) {
			return true
		}
	}
	return false
}

// unitIs reports whether cu is the source file file: its name, or that name's last
// elements.
func unitIs(cu *cuInfo, file string) bool {
	return cu.name == file || strings.HasSuffix(cu.name, "/"+file)
}

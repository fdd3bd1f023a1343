package elfsym

// Names that are not variables but that C expressions use as values: enumeration
// constants (RED of enum color) and functions (fact, whose value gdb prints as
// {int (int)} 0x1139 <fact>).

import (
	"debug/dwarf"
	"fmt"
	"strings"
)

// enumConst is an enumerator: the offset of its enumeration type and its value.
type enumConst struct {
	typ dwarf.Offset
	val int64
}

// Enumerator finds an enumeration constant by name, with the enumeration it belongs to.
func (f *File) Enumerator(name string) (dwarf.Type, int64, bool) {
	f.enumsOnce.Do(f.indexEnumerators)
	c, ok := f.enums[name]
	if !ok {
		return nil, 0, false
	}
	t, err := f.dwarfType(c.typ)
	return t, c.val, err == nil
}

// indexEnumerators reads every enumeration's constants once: the first definition of a
// name wins, as C has one scope for them per unit and programs rarely repeat one.
func (f *File) indexEnumerators() {
	f.enums = map[string]enumConst{}
	if f.DWARF == nil {
		return
	}
	r := f.DWARF.Reader()
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return
		}
		if e.Tag != dwarf.TagEnumerationType {
			continue
		}
		t, err := f.dwarfType(e.Offset)
		if err != nil {
			continue
		}
		if et, ok := t.(*dwarf.EnumType); ok {
			for _, v := range et.Val {
				if _, seen := f.enums[v.Name]; !seen {
					f.enums[v.Name] = enumConst{e.Offset, v.Val}
				}
				if i := strings.LastIndex(v.Name, "::"); i > 0 { // C++'s geo::K1, as K1 too (from inside its namespace)
					if _, seen := f.enums[v.Name[i+2:]]; !seen {
						f.enums[v.Name[i+2:]] = enumConst{e.Offset, v.Val}
					}
				}
			}
		}
		r.SkipChildren()
	}
}

// FuncValue is a function as a C expression's value, as gdb prints it: of type
// "int (int)", its text "{int (int)} 0x555555555139 <fact>"; &fact then points to it. False
// when the program has no such function with debug information.
func (f *File) FuncValue(name string) (Value, bool) {
	v, _, _, ok := f.funcValue(name)
	return v, ok
}

// funcType is the type of the function whose entry e r has just read: its return type
// (a C++ method's, on its declaration) and its parameters' (this first, for a method),
// read with r; hasThis says the first is a method's this (artificial).
func (f *File) funcType(e *dwarf.Entry, r *dwarf.Reader) (ft *dwarf.FuncType, hasThis bool) {
	ft = &dwarf.FuncType{ReturnType: f.entryType(e)}
	for e.Children {
		c, err := r.Next()
		if err != nil || c == nil || c.Tag == 0 {
			break
		}
		switch c.Tag {
		case dwarf.TagFormalParameter:
			if art, _ := c.Val(dwarf.AttrArtificial).(bool); art && len(ft.ParamType) == 0 {
				hasThis = true
			}
			if t := f.entryType(c); t != nil {
				ft.ParamType = append(ft.ParamType, t)
			}
		case dwarf.TagUnspecifiedParameters:
			ft.ParamType = append(ft.ParamType, &dwarf.DotDotDotType{})
		}
		if c.Children {
			r.SkipChildren()
		}
	}
	return ft, hasThis
}

// funcValue is FuncValue, with the function and its DWARF entry.
func (f *File) funcValue(name string) (Value, *Func, *dwarf.Entry, bool) {
	fn, ok := f.FuncByName(name)
	if !ok {
		return Value{}, nil, nil, false
	}
	return f.fileOf(fn).valueOfFunc(fn, name)
}

// valueOfFunc is the value of the function fn, named name (FuncValue).
func (f *File) valueOfFunc(fn *Func, name string) (Value, *Func, *dwarf.Entry, bool) {
	if fn.entry == 0 || f.DWARF == nil {
		return Value{}, nil, nil, false
	}
	r := f.DWARF.Reader()
	r.Seek(fn.entry)
	e, err := r.Next()
	if err != nil || e == nil {
		return Value{}, nil, nil, false
	}
	ft, hasThis := f.funcType(e, r)
	addr := fn.Low + f.Bias
	sig := funcTypeName(ft)
	text := fmt.Sprintf("{%s} %#x <%s>", sig, addr, f.Signature(fn))
	if f.PrintLimits().HideAddresses { // print address off: {int (int)} <fact>
		text = fmt.Sprintf("{%s} <%s>", sig, f.Signature(fn))
	}
	return Value{Name: name, Type: sig, Kind: "func", Addr: addr, InMemory: true, Text: text, typ: ft, staticFunc: !hasThis}, fn, e, true
}

// FuncDecl is a function of the program as C declares it, and where: its declaration line
// ("int area(struct point *, int);", "static char *name(int);"), the file of its code and
// the line of its declaration, as gdb's info functions lists them.
type FuncDecl struct {
	Text string
	File string
	Line int
}

// FuncDecl declares the function of that name; false for one without debug information.
func (f *File) FuncDecl(name string) (FuncDecl, bool) {
	v, fn, e, ok := f.funcValue(name)
	if !ok {
		return FuncDecl{}, false
	}
	if o := f.fileOf(fn); o != f {
		return o.FuncDecl(name) // a library's
	}
	ft, _ := v.FuncType()
	ret, params := "void", "void" // (no type: a function of assembly, void as gdb declares it)
	if ft != nil {
		ret, params = funcTypeParts(ft)
	}
	if ret == "?" {
		ret = "void"
	}
	text := ret + " " + name + "(" + params + ");"
	if fn.cplus { // int geo::Shape::scaled(int) const;
		text = ret + " " + f.Signature(fn) + ";"
	}
	if strings.HasSuffix(ret, "*") {
		text = strings.Replace(text, "* ", "*", 1)
	}
	if ext, _ := f.originVal(e, dwarf.AttrExternal).(bool); !ext {
		text = "static " + text
	}
	line, _ := f.originVal(e, dwarf.AttrDeclLine).(int64)
	file := fn.File
	if l, ok := f.PCToLine(fn.Low + f.Bias); ok && file == "" { // the file of its code
		file = l.File
	}
	return FuncDecl{Text: text, File: file, Line: int(line)}, true
}

// funcTypeName is a DWARF function type in C: "int (int, char **)", "char *(void)".
func funcTypeName(ft *dwarf.FuncType) string { return funcTypeAround(ft, "") }

// funcTypeAround is the function type with mid between its return type and its
// parameters, as gdb spells it: "int (*)(int)", "struct node *(*)(int)" (no space after a
// pointer's star).
func funcTypeAround(ft *dwarf.FuncType, mid string) string {
	ret, params := funcTypeParts(ft)
	return declarator(ret, mid, "("+params+")")
}

// funcTypeParts are a function type's return type and its parameters' types ("void" for
// none).
func funcTypeParts(ft *dwarf.FuncType) (ret, params string) {
	ret = "void"
	if ft.ReturnType != nil {
		ret = TypeName(ft.ReturnType)
	}
	names := make([]string, 0, len(ft.ParamType))
	for _, p := range ft.ParamType {
		if _, dots := p.(*dwarf.DotDotDotType); dots {
			names = append(names, "...")
			continue
		}
		names = append(names, TypeName(p))
	}
	if len(names) == 0 {
		return ret, "void"
	}
	return ret, strings.Join(names, ", ")
}

// FuncType is the function type of a FuncValue; false for any other value.
func (v Value) FuncType() (*dwarf.FuncType, bool) {
	ft, ok := v.typ.(*dwarf.FuncType)
	return ft, ok && v.Kind == "func"
}

// TakesThis reports whether the function value v is a C++ method run on an object (its
// first parameter this), not a static member function or a free one.
func (v Value) TakesThis() bool { return v.Kind == "func" && !v.staticFunc }

// SetFuncType gives the function value v the type ft: a function without debug
// information, whose call a cast says the return type of.
func (v *Value) SetFuncType(ft *dwarf.FuncType) { v.typ = ft }

// FuncValueAt is FuncValue as seen from the code at pc: of the functions named name, the
// one the unit of pc's function defines first (a file's static function before another
// file's of the same name, as gdb looks in the file's own scope first).
func (f *File) FuncValueAt(name string, pc uint64) (Value, bool) {
	if here := f.FuncAt(pc); here != nil {
		for _, fn := range f.ownFuncsNamed(name) {
			if fn.cu == here.cu && fn != here || fn == here {
				v, _, _, ok := f.valueOfFunc(fn, name)
				return v, ok
			}
		}
	}
	return f.FuncValue(name)
}

// FileFuncValue is the function name that source file file defines (gdb's 'b.c'::helper).
func (f *File) FileFuncValue(file, name string) (Value, bool) {
	for _, fn := range f.ownFuncsNamed(name) {
		if c := f.cus[fn.cu]; c != nil && unitIs(c, file) {
			v, _, _, ok := f.valueOfFunc(fn, name)
			return v, ok
		}
	}
	return Value{}, false
}

package gdbremote

// C++ in expressions, as gdb reads it: a method called on an object (of its dynamic class,
// declared with its code in a library), an overloaded function or method chosen by its
// arguments, an operator on class objects run as the program defines it, a function named
// with its template arguments.

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// methodCall is obj.name(...) when name is a C++ method of obj's class (the "(" is next):
// the method of obj's dynamic class for a virtual one, else of its class or a base, run
// with obj as this. ok is false when name is no method there (a member, then), or, for an
// implicit this (area() in a method), no method at all.
func (p *arithParser) methodCall(obj arithOperand, name string, implicit bool) (r arithOperand, ok bool, err error) {
	obj = obj.referred()
	if obj.obj == nil || obj.obj.Kind != "struct" || !obj.obj.InMemory {
		return obj, false, nil
	}
	if _, err := child(*obj.obj, name); err == nil {
		return obj, false, nil // a member: a pointer to a function is called as one
	}
	if r, ok, err := p.libraryMethod(obj, name); ok {
		return r, true, err
	}
	fvs, found, isClass := p.methods(obj, name)
	if found {
		p.pos++ // "("
		for i := range fvs {
			fvs[i].Name = obj.obj.Name + "." + name
		}
		this := &obj.obj.Addr
		if !fvs[0].TakesThis() { // a static member function called through an object
			this = nil
		}
		r, err := p.callOn(arithOperand{obj: &fvs[0], overloads: fvs}, this)
		return r, true, err
	}
	if isClass && !implicit { // gdb's words, with the object's own class
		if _, _, declared := p.e.t.sym.DeclaredMethod(*obj.obj, name, p.e.t.anySymbol); declared {
			return obj, true, errors.New("Cannot evaluate function -- may be inlined")
		}
		return obj, true, fmt.Errorf("Couldn't find method %s::%s", obj.obj.Type, name)
	}
	return obj, false, nil
}

// userOperator is op applied to operands (one for a unary operator, two for a binary one)
// when one is a C++ class object and the program defines the operator for it: a method of
// the left operand's class (a.operator+(b)), else a function (operator*(a, 3)), run as gdb
// runs it; ok is false when neither is.
func (p *arithParser) userOperator(op string, operands ...arithOperand) (r arithOperand, ok bool, err error) {
	if p.e == nil || p.e.t == nil {
		return arithOperand{}, false, nil
	}
	isObj := func(v arithOperand) bool {
		v = v.referred()
		return v.obj != nil && v.obj.Kind == "struct" && (v.obj.InMemory || p.e.typeOnly) && v.obj.IsCXX()
	}
	for i := range operands { // a temporary (a + b): put where its address can be passed
		var err error
		if p.e.typeOnly {
			break // (whatis: nothing is run, nothing written)
		}
		if operands[i], err = p.inMemory(operands[i]); err != nil {
			return arithOperand{}, true, err
		}
	}
	if !slices.ContainsFunc(operands, isObj) {
		return arithOperand{}, false, nil
	}
	name := "operator" + op
	if l := operands[0].referred(); isObj(l) {
		if fvs, found, _ := p.methods(l, name); found {
			this := l.obj.Addr
			r, err := p.callWith(arithOperand{obj: &fvs[0], overloads: fvs}, &this, operands[1:])
			return r, true, err
		}
	}
	if fvs := p.e.t.sym.FuncValuesInScope(name, p.framePC()); len(fvs) > 0 {
		r, err := p.callWith(arithOperand{obj: &fvs[len(fvs)-1], overloads: fvs}, nil, operands)
		return r, true, err
	}
	return arithOperand{}, false, nil
}

// operatorSymbol is what follows a method name "operator" in obj.operator+(b): the
// operator's symbol, read ("+", "==", "[]", "()"); "" after any other name.
func (p *arithParser) operatorSymbol(name string) string {
	if name != "operator" {
		return ""
	}
	sym := p.peek()
	if sym == "" || isIdent(sym) {
		return ""
	}
	p.pos++
	if closing := map[string]string{"[": "]", "(": ")"}[sym]; closing != "" && p.peek() == closing {
		p.pos++
		sym += closing
	}
	return sym
}

// methodValue is obj.name, not called, when name is a method of obj's class: the function
// (gdb's error for an overloaded one, which only a call's arguments choose among).
func (p *arithParser) methodValue(obj arithOperand, name string) (arithOperand, bool, error) {
	obj = obj.referred()
	if obj.obj == nil || obj.obj.Kind != "struct" || !obj.obj.IsCXX() {
		return obj, false, nil
	}
	fvs, found, _ := p.methods(obj, name)
	switch {
	case !found:
		return obj, false, nil
	case len(fvs) > 1:
		return obj, true, fmt.Errorf("cannot resolve overloaded method `%s': no arguments supplied", name)
	}
	return arithOperand{obj: &fvs[0]}, true, nil
}

// methods finds the method name of the C++ object obj, its overloads: of its dynamic class
// for a virtual one, else of its class or a base, else one the class declares whose code
// is in a library (std::string's size(): libstdc++'s); isClass says obj is a class object.
func (p *arithParser) methods(obj arithOperand, name string) (fvs []elfsym.Value, found, isClass bool) {
	classes := p.e.t.sym.MethodClasses(*obj.obj, cachedMem{p.e.t})
	for _, class := range classes {
		fvs := p.e.t.sym.FuncValuesInScope(class+"::"+name, 0)
		if len(fvs) == 0 { // DWARF's std::pair<const K, V> in a class's name is the demangler's std::pair<K const, V>
			fvs = p.e.t.sym.FuncValuesInScope(cxxname.DemanglerSpelling(class)+"::"+name, 0)
		}
		if len(fvs) == 0 { // as break finds it
			if fv, ok := p.e.t.sym.FuncValue(class + "::" + name); ok {
				fvs = []elfsym.Value{fv}
			}
		}
		if len(fvs) > 0 {
			return fvs, true, true
		}
	}
	if len(classes) == 0 {
		return nil, false, false
	}
	fv, found, _ := p.e.t.sym.DeclaredMethod(*obj.obj, name, p.e.t.anySymbol)
	return []elfsym.Value{fv}, found, true
}

// operatorCall is obj's operator (operator[]) run on obj with args, when its class has
// one; ok is false when it has none.
func (p *arithParser) operatorCall(obj arithOperand, op string, args ...arithOperand) (r arithOperand, ok bool, err error) {
	obj = obj.referred()
	if obj.obj == nil || obj.obj.Kind != "struct" || !obj.obj.InMemory || !obj.obj.IsCXX() {
		return obj, false, nil
	}
	fvs, found, _ := p.methods(obj, op)
	if !found {
		return obj, false, nil
	}
	for i := range fvs {
		fvs[i].Name = obj.obj.Name + "." + op
	}
	this := obj.obj.Addr
	r, err = p.callWith(arithOperand{obj: &fvs[0], overloads: fvs}, &this, args)
	return r, true, err
}

// chooseOverload is the one of a C++ overload set a call with args (of a method, when
// method: its this first) runs, as C++ chooses (simply): the one whose parameters take the arguments with the fewest conversions (an
// integer to an integer, a floating point value to a floating point one, an object to a
// class or a reference, a pointer to a pointer), the count of its parameters first; the
// first so good in the order of definition.
func (p *arithParser) chooseOverload(fvs []elfsym.Value, args []arithOperand, method bool) arithOperand {
	best, bestScore := 0, -1
	for i := range fvs {
		ft, _ := fvs[i].FuncType()
		score := 0
		params := []dwarf.Type(nil)
		if ft != nil {
			params = ft.ParamType
		}
		if method && len(params) > 0 { // this: the object, not an argument
			params = params[1:]
		}
		if ft != nil && len(params) == len(args) {
			score = 100
			for j, a := range args {
				score += argMatch(params[j], a)
			}
		}
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return arithOperand{obj: &fvs[best]}
}

// argMatch is how well argument a fits a parameter of type pt: 2 without a conversion of
// its kind, 0 with one.
func argMatch(pt dwarf.Type, a arithOperand) int {
	u := elfsym.Underlying(pt)
	if r, ok := u.(*elfsym.RefType); ok {
		u = elfsym.Underlying(r.Type)
	}
	kind := a.kind
	if a.obj != nil {
		kind = a.referred().obj.Kind
	}
	switch u.(type) {
	case *dwarf.FloatType:
		if kind == "float" {
			return 2
		}
	case *dwarf.PtrType:
		if kind == "pointer" || kind == "array" {
			return 2
		}
	case *dwarf.StructType:
		if kind == "struct" {
			return 2
		}
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.EnumType:
		if kind == "int" || kind == "uint" || kind == "char" || kind == "bool" || kind == "enum" {
			return 2
		}
	}
	return 0
}

// templateFunction is a C++ function named with its template arguments (name is next,
// then "<"): twice<long> is the instance, when the program has one; the tokens up to the
// matching ">" are read then, else nothing is.
func (p *arithParser) templateFunction(name string) (arithOperand, bool) {
	if p.peek() != "<" || p.skip || !p.cplusFrame() {
		return arithOperand{}, false
	}
	depth, end := 0, -1
	for i := p.pos; i < len(p.toks) && end < 0; i++ {
		switch p.toks[i] {
		case "<":
			depth++
		case ">":
			depth--
		case ">>":
			depth -= 2
		case ",", "*", "&", "::", "-":
		default:
			if t := p.toks[i]; !isIdent(t) && (t[0] < '0' || t[0] > '9') { // an operator: i < n && j > 0
				i = len(p.toks)
				continue
			}
		}
		if depth <= 0 {
			end = i
		}
	}
	if end < 0 || depth != 0 {
		return arithOperand{}, false
	}
	full := name + strings.Join(p.toks[p.pos:end+1], " ")
	fvs := p.e.t.sym.FuncValuesInScope(full, p.framePC())
	if len(fvs) == 0 {
		return arithOperand{}, false
	}
	p.pos = end + 1
	last := fvs[len(fvs)-1]
	return arithOperand{obj: &last, overloads: fvs}, true
}

// framePC is the pc the expression's names are looked up at: its frame's (0 without one).
func (p *arithParser) framePC() uint64 {
	if p.e == nil || p.e.fr == nil {
		return 0
	}
	return lookupPC(p.e.fr)
}

// cplusFrame reports whether the expression is read in a C++ frame (the program's language
// without one).
func (p *arithParser) cplusFrame() bool {
	return p.e != nil && p.e.t != nil && p.e.t.sym.CXXAt(p.framePC())
}

// qualifiedMember is obj.CLASS::name: the member (or method) name of the part of obj that
// is of class CLASS — obj itself, one of its bases (mu.Base1::b1), or, when obj is a base
// of a larger object its vtable tells, that object or another of its bases
// (b2p->Multi::m); ok is false when field is not qualified.
func (p *arithParser) qualifiedMember(obj arithOperand, field string) (r arithOperand, ok bool, err error) {
	i := strings.LastIndex(field, "::")
	if i <= 0 || strings.HasPrefix(field, "operator") {
		return obj, false, nil
	}
	class, name := field[:i], field[i+2:]
	obj = obj.referred()
	if obj.obj == nil || obj.obj.Kind != "struct" {
		return obj, true, fmt.Errorf("Attempt to extract a component of a value that is not a structure.")
	}
	part, found := classPart(*obj.obj, class)
	if !found {
		if whole, ok := p.e.t.sym.WholeObject(*obj.obj, cachedMem{p.e.t}); ok {
			part, found = classPart(whole, class)
		}
	}
	if !found {
		if _, err := p.e.t.sym.ParseType(class); err != nil { // not a type's name: gdb's parser stops
			return obj, true, syntaxError("")
		}
		return obj, true, fmt.Errorf("There is no member named %s.", field)
	}
	sub := arithOperand{obj: &part}
	if m, err := child(part, name); err == nil {
		return arithOperand{obj: &m}, true, nil
	}
	if m, ok, err := p.methodValue(sub, name); ok {
		return m, true, err
	}
	return obj, true, fmt.Errorf("There is no field named %s", name) // gdb's words
}

// classPart is the part of the C++ object v that is of class class: v itself or a base
// class's part, searched depth first.
func classPart(v elfsym.Value, class string) (elfsym.Value, bool) {
	if cxxname.ShortType(strings.TrimPrefix(v.Type, "const ")) == class || strings.TrimPrefix(v.Type, "const ") == class {
		return v, true
	}
	for _, c := range v.Children {
		if c.Name == "<"+class+">" {
			return c, true
		}
	}
	for _, c := range v.Children {
		if strings.HasPrefix(c.Name, "<") && c.Kind == "struct" {
			if part, ok := classPart(c, class); ok {
				return part, true
			}
		}
	}
	return elfsym.Value{}, false
}

// memberPointed is obj.*mp and ptr->*mp: the data member of obj a pointer to a member
// points to, or the member function, bound to obj (and called on it by a "(" after it).
func (p *arithParser) memberPointed(op string, obj, mp arithOperand) (arithOperand, error) {
	obj, mp = obj.referred(), mp.referred()
	if op == "->*" {
		d, err := p.deref(obj)
		if err != nil {
			return obj, err
		}
		obj = d
	}
	var mt *elfsym.MemberPtrType
	if mp.obj != nil {
		mt, _ = elfsym.Underlying(mp.obj.DWARFType()).(*elfsym.MemberPtrType)
	}
	if mt == nil {
		return mp, errors.New("non-pointer-to-member value used in pointer-to-member construct") // gdb's words
	}
	if obj.obj == nil || !isStruct(obj) || !obj.obj.InMemory {
		return obj, errors.New("Attempt to take address of value not located in memory.") // gdb's words
	}
	mem := cachedMem{p.e.t}
	if !mt.Method() {
		v, err := p.e.t.sym.MemberOf(*obj.obj, *mp.obj, mem)
		return arithOperand{obj: &v}, err
	}
	fn, this, err := p.e.t.sym.MethodOf(*obj.obj, *mp.obj, mem)
	if err != nil {
		return obj, err
	}
	fv, ok := p.funcAt(fn)
	if !ok {
		return obj, fmt.Errorf("no function at %#x", fn)
	}
	return arithOperand{obj: &fv, this: &this}, nil
}

// wholeObject is, under print object on, the C++ object a pointer points to read whole as
// its vtable's class, for the members named through the pointer (gdb's p base->member);
// any other operand is itself.
func (p *arithParser) wholeObject(v arithOperand) arithOperand {
	if p.skip || v.obj == nil || !p.e.t.sym.PrintLimits().Object {
		return v
	}
	if whole, ok := p.e.t.sym.WholeObject(*v.obj, cachedMem{p.e.t}); ok {
		return arithOperand{obj: &whole}
	}
	return v
}

// memberPointer is &CLASS::member, read when the "&" has just been: a pointer to that
// member (ok); gdb's error for a class without the member.
func (p *arithParser) memberPointer() (mp arithOperand, ok bool, err error) {
	name := p.peek()
	if p.skip || p.e == nil || p.program() == nil || !strings.Contains(name, "::") ||
		p.pos+1 < len(p.toks) && p.toks[p.pos+1] == "(" {
		return mp, false, nil
	}
	i := strings.LastIndex(name, "::")
	if v, found := p.e.t.sym.MemberPointer(name[:i], name[i+2:]); found {
		p.pos++
		return arithOperand{obj: &v}, true, nil
	}
	_, isVar := p.e.t.sym.Global(name)
	_, isFunc := p.e.t.sym.FuncValue(name)
	if !isVar && !isFunc && p.e.t.sym.IsClass(name[:i]) { // gdb's words for &Outer::nosuch
		return mp, true, fmt.Errorf("There is no field named %s", name[i+2:])
	}
	return mp, false, nil
}

package gdbremote

// Calling a function of the program from an expression, as gdb's call does: the thread's
// registers are saved, the arguments go where the ABI puts them, the return address is the
// program's entry point, where a trap waits, and when the function has returned there its
// result is read and the registers are put back. The memory the function changed stays
// changed; that is what a call is for.

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"syscall"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// x86-64 System V: the registers of the first six integer arguments, in order.
var amd64ArgRegs = []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}

// callFunction runs the function at addr with the integer or pointer arguments args, and
// returns what it left in the return register (callOut for the others).
func (t *Target) callFunction(addr uint64, args []uint64) (uint64, error) {
	out, err := t.call(addr, args, nil, 0)
	return out.ints[0], err
}

// callOut is what a called function left: its integer (rax, rdx) and SSE (xmm0, xmm1,
// their low eightbytes) return registers and, for a value returned in memory, where it is.
type callOut struct {
	ints, sse [2]uint64
	mem       uint64
}

// call runs the function at addr with the integer or pointer arguments args and the
// floating point ones sse (each a float's or a double's bits), x86-64 only; memSize, when
// not 0, is the size of the value it returns in memory, for which room is
// made on the stack and passed as the hidden first argument. If the program stops anywhere
// else (a breakpoint, a signal) or ends, the call fails, saying so; the registers are put
// back either way, and a signal the program had stopped with stays to be delivered.
func (t *Target) call(addr uint64, args, sse []uint64, memSize int64) (callOut, error) {
	var out callOut
	if t.sym.Arch.Machine != elf.EM_X86_64 {
		return out, errors.New("calling a function of the program is supported on x86-64 programs only")
	}
	sp := t.sp() - 256 - scratchZone // below the red zone and the expression's temporaries
	if memSize > 0 {
		out.mem = (sp - uint64(memSize)) &^ 0xf
		sp = out.mem - 64
		args = append([]uint64{out.mem}, args...)
	}
	if len(args) > len(amd64ArgRegs) || len(sse) > 8 {
		return out, fmt.Errorf("a call takes at most %d integer and 8 floating point arguments here", len(amd64ArgRegs))
	}
	saved, err := t.c.ReadRegisters(t.ctx)
	if err != nil {
		return out, err
	}
	before := t.lastStopReply()
	held := t.c.holdSignal()
	defer func() {
		t.c.putSignal(held)
		if err := t.c.WriteRegisters(t.ctx, saved); err != nil {
			t.log.Warn("gdbremote: registers not restored after a call", "err", err)
		}
		t.newStop(before) // the stop as it was: its registers, frames and thread
	}()
	ret := t.sym.Entry()
	sp = sp&^0xf - 8 // 16-byte aligned before the return address
	var word [8]byte
	binary.LittleEndian.PutUint64(word[:], ret)
	if err := t.WriteMemory(sp, word[:]); err != nil {
		return out, err
	}
	set := map[string]uint64{"rsp": sp, "rip": addr, "rax": uint64(len(sse))} // (al: how many SSE registers a variadic one gets)
	for i, a := range args {
		set[amd64ArgRegs[i]] = a
	}
	for i, a := range sse {
		set[fmt.Sprintf("xmm%d", i)] = a
	}
	for name, v := range set {
		if err := t.WriteRegister(name, v); err != nil {
			return out, err
		}
	}
	t.mu.Lock()
	_, user := t.traps[ret]
	t.mu.Unlock()
	if !user {
		if _, err := t.c.SetBreakpoint(t.ctx, ret, t.bpLen); err != nil {
			return out, err
		}
		defer t.c.ClearBreakpoint(t.ctx, SoftwareBreak, ret, t.bpLen)
	}
	sr, err := t.resumeWait("c", 0, 0)
	var ex *exitedError
	switch {
	case errors.As(err, &ex):
		return out, errors.New("the program ended while in a function called from the debugger")
	case err != nil:
		return out, err
	}
	if pc, _ := t.pc(); pc != ret || sr.Signal != int(syscall.SIGTRAP) {
		where := fmt.Sprintf("%#x", pc)
		if l, ok := t.sym.PCToLine(pc); ok && l.Function != "" {
			where = l.Function
		}
		return out, fmt.Errorf("the program stopped in %s (%s) while in a function called from the debugger; the call was abandoned and the registers put back",
			where, SignalName(sr.Signal))
	}
	for i, name := range []string{"rax", "rdx", "xmm0", "xmm1"} {
		r, ok := t.desc.Reg(name)
		if !ok {
			return out, fmt.Errorf("gdbremote: no %s register", name)
		}
		b, err := t.reg(r.Num)
		if err != nil || len(b) < 8 {
			return out, fmt.Errorf("gdbremote: %s unread: %v", name, err)
		}
		if w := binary.LittleEndian.Uint64(b[:8]); i < 2 {
			out.ints[i] = w
		} else {
			out.sse[i-2] = w
		}
	}
	return out, nil
}

// scratchZone is the room below the red zone where an expression's temporaries are put
// when a call takes them by reference or as this ((a + b) + a): calls go below it.
const scratchZone = 4096

// inMemory is v, a class object that lives in no memory (a call's result returned in
// registers), put in the stack's scratch zone so that a call can take its address; v as it
// is when it is in memory or no object.
func (p *arithParser) inMemory(v arithOperand) (arithOperand, error) {
	v = v.referred()
	if v.obj == nil || v.obj.InMemory || v.obj.Kind != "struct" || len(v.obj.Bytes) == 0 {
		return v, nil
	}
	size := (int64(len(v.obj.Bytes)) + 15) &^ 15
	if p.e.scratch+size > scratchZone {
		return v, errors.New("the expression's temporaries fill the debugger's scratch room")
	}
	p.e.scratch += size
	at := (p.e.t.sp() - 256 - uint64(p.e.scratch)) &^ 0xf
	if err := p.e.t.WriteMemory(at, v.obj.Bytes); err != nil {
		return v, err
	}
	c := p.e.t.sym.FormatValue(v.obj.DWARFType(), v.obj.Bytes, at, true, cachedMem{p.e.t}, 0)
	c.Name = v.obj.Name
	return arithOperand{obj: &c}, nil
}

// returnRoom is how much memory a call of a function of type ft must make for the value it
// returns in memory (0 for one it returns in registers), or why its value cannot be read.
func (p *arithParser) returnRoom(ft *dwarf.FuncType, name string) (int64, error) {
	if ft == nil || ft.ReturnType == nil {
		return 0, nil
	}
	switch rt := withoutTypedefs(ft.ReturnType).(type) {
	case *dwarf.FloatType:
		if rt.Size() > 8 {
			return 0, fmt.Errorf("%s returns %s, which is not read back", name, elfsym.TypeName(ft.ReturnType))
		}
	case *dwarf.ArrayType:
		return 0, fmt.Errorf("%s returns an array, which is not read back", name)
	case *dwarf.StructType:
		conv, ok := p.e.t.sym.ReturnConventionOf(ft.ReturnType)
		if !ok {
			return 0, fmt.Errorf("%s returns %s, which is not read back", name, elfsym.TypeName(ft.ReturnType))
		}
		if conv.InMemory {
			return rt.Size(), nil
		}
	}
	return 0, nil
}

// withoutTypedefs is t under its typedefs.
func withoutTypedefs(t dwarf.Type) dwarf.Type {
	for td, ok := t.(*dwarf.TypedefType); ok; td, ok = t.(*dwarf.TypedefType) {
		t = td.Type
	}
	return t
}

// callResult is the value a function of type ft returned (out): converted to its return
// type, void for none; a class from where it was built or from its registers, a float or
// a double from xmm0, a reference as the object it refers to.
func (p *arithParser) callResult(ft *dwarf.FuncType, out callOut, name string) (arithOperand, error) {
	if ft == nil || ft.ReturnType == nil {
		v := elfsym.Value{Name: name, Type: "void", Kind: "void", Text: "void"}
		return arithOperand{obj: &v}, nil
	}
	sym, mem := p.e.t.sym, cachedMem{p.e.t}
	var c elfsym.Value
	switch rt := withoutTypedefs(ft.ReturnType).(type) {
	case *dwarf.FloatType:
		b := binary.LittleEndian.AppendUint64(nil, out.sse[0])
		c = sym.FormatValue(ft.ReturnType, b[:max(min(rt.Size(), 8), 0)], 0, false, mem, 0)
	case *dwarf.ArrayType:
		return arithOperand{}, fmt.Errorf("%s returns an array, which is not read back", name)
	case *dwarf.StructType:
		size := rt.Size()
		if out.mem != 0 {
			b, err := p.e.t.ReadMemory(out.mem, int(size))
			if err != nil {
				return arithOperand{}, err
			}
			c = sym.FormatValue(ft.ReturnType, b, out.mem, true, mem, 0)
			break
		}
		conv, _ := sym.ReturnConventionOf(ft.ReturnType)
		var b []byte
		ints, sses := out.ints[:], out.sse[:]
		for _, sse := range conv.SSE { // each eightbyte from the next register of its class
			if sse {
				b, sses = binary.LittleEndian.AppendUint64(b, sses[0]), sses[1:]
			} else {
				b, ints = binary.LittleEndian.AppendUint64(b, ints[0]), ints[1:]
			}
		}
		if int64(len(b)) < size {
			b = append(b, make([]byte, size-int64(len(b)))...)
		}
		c = sym.FormatValue(ft.ReturnType, b[:size], 0, false, mem, 0)
	case *elfsym.RefType: // the object it refers to, at the address returned (std::string's at())
		c = sym.FormatValue(rt, binary.LittleEndian.AppendUint64(nil, out.ints[0]), 0, false, mem, 0)
	default:
		var err error
		if c, err = sym.Convert(ft.ReturnType, int64(out.ints[0]), 0, false, mem); err != nil {
			return arithOperand{}, err
		}
	}
	c.Name = name
	return arithOperand{obj: &c}, nil
}

// arguments reads a call's arguments after its "(", up to and past the ")".
func (p *arithParser) arguments() ([]arithOperand, error) {
	var args []arithOperand
	for p.peek() != ")" {
		a, err := p.conditional()
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.peek() == "," {
			p.pos++
		} else if p.peek() != ")" {
			return nil, errors.New("missing ) after the arguments")
		}
	}
	p.pos++ // ")"
	return args, nil
}

// call is fn(args...) after a function's value: the arguments read up to the ")", then the
// function run in the program (not in a pure evaluation, which may not run its code).
func (p *arithParser) call(fn arithOperand) (arithOperand, error) { return p.callOn(fn, nil) }

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
		this := obj.obj.Addr
		r, err := p.callOn(arithOperand{obj: &fvs[0], overloads: fvs}, &this)
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

// callOn is call with the object a C++ method runs on (this) as its first argument when
// this is not nil.
func (p *arithParser) callOn(fn arithOperand, this *uint64) (arithOperand, error) {
	args, err := p.arguments()
	if err != nil {
		return fn, err
	}
	return p.callWith(fn, this, args)
}

// callWith runs fn with args (and this first, when it is not nil), as callOn.
func (p *arithParser) callWith(fn arithOperand, this *uint64, args []arithOperand) (arithOperand, error) {
	if p.skip {
		return arithOperand{kind: "int"}, nil
	}
	if len(fn.overloads) > 1 {
		fn = p.chooseOverload(fn.overloads, args, this != nil)
	}
	name := fn.obj.Name
	if p.e.typeOnly { // whatis, ptype: a value of the type it returns, without running it
		ft, _ := fn.obj.FuncType()
		if r, err := p.callResult(ft, callOut{}, name+"(...)"); err == nil {
			if ft != nil && ft.ReturnType != nil {
				r.obj.Type = elfsym.TypeName(ft.ReturnType) // as declared: std::string::reference
			}
			return r, nil
		}
		v := elfsym.TypeOnly(ft.ReturnType, name+"(...)") // an array
		return arithOperand{obj: &v}, nil
	}
	if p.e.pure {
		return fn, fmt.Errorf("%s(...) would run the program's code, which this evaluation may not do: use call", name)
	}
	if ft, ok := fn.obj.FuncType(); ok {
		fixed := len(ft.ParamType)
		if fixed > 0 {
			if _, dots := ft.ParamType[fixed-1].(*dwarf.DotDotDotType); dots {
				fixed--
			}
		}
		if this != nil {
			fixed-- // this is one of them
		}
		if len(args) < fixed { // more are passed, as gdb passes them
			return fn, errors.New("Too few arguments in function call.")
		}
	}
	words := make([]uint64, 0, len(args)+1)
	if this != nil {
		words = append(words, *this)
	}
	ft, _ := fn.obj.FuncType()
	var sse []uint64
	for i, a := range args {
		param := i // its place among the parameters, this counted
		if this != nil {
			param++
		}
		if at, ok := byReference(ft, param, a); ok { // an object passed by reference: its address
			words = append(words, at)
			continue
		}
		n, err := p.number(a)
		if err != nil {
			return fn, err
		}
		switch pt := paramType(ft, param); {
		case pt != nil && pt.Size() == 4 && isFloat(pt): // a float parameter: the value as a float
			sse = append(sse, uint64(math.Float32bits(float32(n.float()))))
		case pt != nil && isFloat(pt), pt == nil && n.kind == "float": // a double, as C passes one without a prototype
			sse = append(sse, math.Float64bits(n.float()))
		case n.kind == "float": // to an integer parameter, as C converts
			words = append(words, uint64(int64(n.f)))
		default:
			words = append(words, n.uint())
		}
	}
	room, err := p.returnRoom(ft, name+"(...)")
	if err != nil {
		return fn, err
	}
	out, err := p.e.t.call(fn.obj.Addr, words, sse, room)
	if err != nil {
		return fn, err
	}
	return p.callResult(ft, out, name+"(...)")
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

// paramType is the type of parameter i of a function of type ft, nil for one it does not
// declare (past its ..., or of a function without a prototype).
func paramType(ft *dwarf.FuncType, i int) dwarf.Type {
	if ft == nil || i >= len(ft.ParamType) {
		return nil
	}
	if _, dots := ft.ParamType[i].(*dwarf.DotDotDotType); dots {
		return nil
	}
	return ft.ParamType[i]
}

// isFloat reports whether t is a float or a double (under its typedefs and qualifiers).
func isFloat(t dwarf.Type) bool {
	ft, ok := elfsym.Underlying(t).(*dwarf.FloatType)
	return ok && ft.Size() <= 8
}

// byReference is the address of a, the argument that goes in place i of a function of
// type ft, when that parameter is a C++ reference and a an object in memory.
func byReference(ft *dwarf.FuncType, i int, a arithOperand) (uint64, bool) {
	if ft == nil || i >= len(ft.ParamType) || a.obj == nil {
		return 0, false
	}
	if _, ref := ft.ParamType[i].(*elfsym.RefType); !ref {
		return 0, false
	}
	v := a.referred().obj
	return v.Addr, v.InMemory && v.Kind != "pointer"
}

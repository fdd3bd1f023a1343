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
	"syscall"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// x86-64 System V: the registers of the first six integer arguments, in order.
var amd64ArgRegs = []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}

// callFunction runs the function at addr with the integer or pointer arguments args, and
// returns what it left in the return register. x86-64 only. If the program stops anywhere
// else (a breakpoint, a signal) or ends, the call fails, saying so; the registers are put
// back either way.
func (t *Target) callFunction(addr uint64, args []uint64) (uint64, error) {
	if t.sym.Arch.Machine != elf.EM_X86_64 {
		return 0, errors.New("calling a function of the program is supported on x86-64 programs only")
	}
	if len(args) > len(amd64ArgRegs) {
		return 0, fmt.Errorf("a call takes at most %d arguments here", len(amd64ArgRegs))
	}
	saved, err := t.c.ReadRegisters(t.ctx)
	if err != nil {
		return 0, err
	}
	before := t.lastStopReply()
	defer func() {
		if err := t.c.WriteRegisters(t.ctx, saved); err != nil {
			t.log.Warn("gdbremote: registers not restored after a call", "err", err)
		}
		t.newStop(before) // the stop as it was: its registers, frames and thread
	}()
	ret := t.sym.Entry()
	sp := (t.sp()-256)&^0xf - 8 // below the red zone, 16-byte aligned before the return address
	var word [8]byte
	binary.LittleEndian.PutUint64(word[:], ret)
	if err := t.WriteMemory(sp, word[:]); err != nil {
		return 0, err
	}
	set := map[string]uint64{"rsp": sp, "rip": addr, "rax": 0}
	for i, a := range args {
		set[amd64ArgRegs[i]] = a
	}
	for name, v := range set {
		if err := t.WriteRegister(name, v); err != nil {
			return 0, err
		}
	}
	t.mu.Lock()
	_, user := t.traps[ret]
	t.mu.Unlock()
	if !user {
		if _, err := t.c.SetBreakpoint(t.ctx, ret, t.bpLen); err != nil {
			return 0, err
		}
		defer t.c.ClearBreakpoint(t.ctx, SoftwareBreak, ret, t.bpLen)
	}
	sr, err := t.resumeWait("c", 0, 0)
	var ex *exitedError
	switch {
	case errors.As(err, &ex):
		return 0, errors.New("the program ended while in a function called from the debugger")
	case err != nil:
		return 0, err
	}
	if pc, _ := t.pc(); pc != ret || sr.Signal != int(syscall.SIGTRAP) {
		where := fmt.Sprintf("%#x", pc)
		if l, ok := t.sym.PCToLine(pc); ok && l.Function != "" {
			where = l.Function
		}
		return 0, fmt.Errorf("the program stopped in %s (%s) while in a function called from the debugger; the call was abandoned and the registers put back",
			where, SignalName(sr.Signal))
	}
	r, ok := t.desc.Reg("rax")
	if !ok {
		return 0, errors.New("gdbremote: no rax register")
	}
	b, err := t.reg(r.Num)
	if err != nil {
		return 0, err
	}
	return Uint(b, binary.LittleEndian), nil
}

// callResult is the value a function of type ft returned in ret: converted to its return
// type, void for none.
func (p *arithParser) callResult(ft *dwarf.FuncType, ret uint64, name string) (arithOperand, error) {
	if ft == nil || ft.ReturnType == nil {
		v := elfsym.Value{Name: name, Type: "void", Kind: "void", Text: "void"}
		return arithOperand{obj: &v}, nil
	}
	rt := ft.ReturnType
	for td, ok := rt.(*dwarf.TypedefType); ok; td, ok = rt.(*dwarf.TypedefType) {
		rt = td.Type
	}
	switch rt.(type) {
	case *dwarf.FloatType, *dwarf.StructType, *dwarf.ArrayType:
		return arithOperand{}, fmt.Errorf("%s returns %s: only integer and pointer results are read", name, elfsym.TypeName(ft.ReturnType))
	}
	c, err := p.e.t.sym.Convert(ft.ReturnType, int64(ret), 0, false, cachedMem{p.e.t})
	c.Name = name
	return arithOperand{obj: &c}, err
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
	classes := p.e.t.sym.MethodClasses(*obj.obj, cachedMem{p.e.t})
	for _, class := range classes {
		fv, found := p.e.t.sym.FuncValue(class + "::" + name)
		if !found { // DWARF's std::pair<const K, V> in a class's name is the demangler's std::pair<K const, V>
			fv, found = p.e.t.sym.FuncValue(cxxname.DemanglerSpelling(class) + "::" + name)
		}
		if !found {
			continue
		}
		p.pos++ // "("
		fv.Name = obj.obj.Name + "." + name
		this := obj.obj.Addr
		r, err := p.callOn(arithOperand{obj: &fv}, &this)
		return r, true, err
	}
	if len(classes) > 0 && !implicit { // gdb's words, with the object's own class
		return obj, true, fmt.Errorf("Couldn't find method %s::%s", obj.obj.Type, name)
	}
	return obj, false, nil
}

// callOn is call with the object a C++ method runs on (this) as its first argument when
// this is not nil.
func (p *arithParser) callOn(fn arithOperand, this *uint64) (arithOperand, error) {
	args, err := p.arguments()
	if err != nil {
		return fn, err
	}
	if p.skip {
		return arithOperand{kind: "int"}, nil
	}
	name := fn.obj.Name
	if p.e.typeOnly { // whatis, ptype: a value of the type it returns, without running it
		ft, _ := fn.obj.FuncType()
		if r, err := p.callResult(ft, 0, name+"(...)"); err == nil {
			return r, nil
		}
		v := elfsym.TypeOnly(ft.ReturnType, name+"(...)") // a struct, array or float
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
	for _, a := range args {
		n, err := p.number(a)
		if err != nil {
			return fn, err
		}
		if n.kind == "float" {
			return fn, fmt.Errorf("%s: only integer and pointer arguments are passed", name)
		}
		words = append(words, n.uint())
	}
	ret, err := p.e.t.callFunction(fn.obj.Addr, words)
	if err != nil {
		return fn, err
	}
	ft, _ := fn.obj.FuncType()
	return p.callResult(ft, ret, name+"(...)")
}

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
	"strings"
	"syscall"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// x86-64 System V: the registers of the first six integer arguments, in order.
var amd64ArgRegs = []string{"rdi", "rsi", "rdx", "rcx", "r8", "r9"}

// callFunction runs the function at addr with the integer or pointer arguments args, and
// returns what it left in the return register (callOut for the others).
func (t *Target) callFunction(addr uint64, args []uint64) (uint64, error) {
	var ca callArgs
	for _, a := range args {
		ca.integer(a)
	}
	out, err := t.call(addr, ca, 0, "")
	return out.ints[0], err
}

// callArgs are a call's arguments where the ABI puts them: the integer registers' words,
// the SSE registers' (a float's or a double's bits), and what goes on the stack, in order.
type callArgs struct {
	ints, sse []uint64
	stack     []byte
	scratch   int64 // how much of the scratch zone the expression's temporaries use
}

// integer passes an integer or a pointer: in the next integer register, else on the stack.
func (a *callArgs) integer(w uint64) {
	if len(a.ints) < len(amd64ArgRegs) {
		a.ints = append(a.ints, w)
		return
	}
	a.onStack(binary.LittleEndian.AppendUint64(nil, w))
}

// float passes a float's or a double's bits: in the next SSE register, else on the stack.
func (a *callArgs) float(w uint64) {
	if len(a.sse) < 8 {
		a.sse = append(a.sse, w)
		return
	}
	a.onStack(binary.LittleEndian.AppendUint64(nil, w))
}

// object passes the bytes of a class object each eightbyte in the next register of its
// class (sse), or the whole on the stack when too few registers are left for it.
func (a *callArgs) object(b []byte, sse []bool) {
	nsse := 0
	for _, s := range sse {
		if s {
			nsse++
		}
	}
	if len(a.ints)+len(sse)-nsse > len(amd64ArgRegs) || len(a.sse)+nsse > 8 {
		a.onStack(b)
		return
	}
	for i, s := range sse {
		var w [8]byte
		copy(w[:], b[min(i*8, len(b)):])
		if s {
			a.sse = append(a.sse, binary.LittleEndian.Uint64(w[:]))
		} else {
			a.ints = append(a.ints, binary.LittleEndian.Uint64(w[:]))
		}
	}
}

// onStack passes b in the stack's argument area, in eightbytes.
func (a *callArgs) onStack(b []byte) { a.onStackAligned(b, 8) }

// onStackAligned passes b in the stack's argument area at a multiple of align bytes from
// its start (16 for a long double), in eightbytes.
func (a *callArgs) onStackAligned(b []byte, align int) {
	for len(a.stack)%align != 0 {
		a.stack = append(a.stack, 0)
	}
	a.stack = append(a.stack, b...)
	for len(a.stack)%8 != 0 {
		a.stack = append(a.stack, 0)
	}
}

// callOut is what a called function left: its integer (rax, rdx) and SSE (xmm0, xmm1,
// their low eightbytes) return registers and, for a value returned in memory, where it is.
type callOut struct {
	ints, sse [2]uint64
	mem       uint64
	x87       []byte // st0, where a long double comes back (x87's 10 bytes)
}

// call runs the function at addr with the arguments args, x86-64 only; memSize, when not
// 0, is the size of the value it returns in memory, for which room is made on the stack
// and passed as the hidden first argument (args leave the first integer register for
// it). If the program stops anywhere else (a breakpoint, a signal) or ends, the call
// fails, saying so; the registers are put back either way, and a signal the program had
// stopped with stays to be delivered. The call of a function an expression names (named
// name, "" for the debugger's own calls) that reaches a breakpoint or receives a signal
// leaves the program stopped there instead, as gdb does (dummy.go): the error is an
// engine.CallStoppedError.
func (t *Target) call(addr uint64, args callArgs, memSize int64, name string) (callOut, error) {
	var out callOut
	if t.sym.Arch.Machine != elf.EM_X86_64 {
		return out, errors.New("calling a function of the program is supported on x86-64 programs only")
	}
	sp := t.scratchAt(args.scratch) - 16 // below the red zone and the expression's temporaries, where gdb's frame goes
	if memSize > 0 {
		out.mem = (sp - uint64(memSize)) &^ 0xf
		sp = out.mem - 64
		if len(args.ints) == 0 {
			args.ints = []uint64{0}
		}
		args.ints[0] = out.mem
	}
	if len(args.ints) > len(amd64ArgRegs) || len(args.sse) > 8 {
		return out, fmt.Errorf("a call takes at most %d integer and 8 floating point arguments in registers", len(amd64ArgRegs))
	}
	saved, err := t.c.ReadRegisters(t.ctx)
	if err != nil {
		return out, err
	}
	before := t.lastStopReply()
	held := t.c.holdSignal()
	stayed := false // stopped in the called function, which the program stays in (dummy.go)
	defer func() {
		if stayed {
			return
		}
		t.c.putSignal(held)
		if err := t.c.WriteRegisters(t.ctx, saved); err != nil {
			t.log.Warn("gdbremote: registers not restored after a call", "err", err)
		}
		t.newStop(before) // the stop as it was: its registers, frames and thread
	}()
	ret := t.sym.Entry()
	sp = (sp - uint64(len(args.stack))) &^ 0xf // the stack's arguments, 16-byte aligned
	if len(args.stack) > 0 {
		if err := t.WriteMemory(sp, args.stack); err != nil {
			return out, err
		}
	}
	sp -= 8 // the return address, just below them
	var word [8]byte
	binary.LittleEndian.PutUint64(word[:], ret)
	if err := t.WriteMemory(sp, word[:]); err != nil {
		return out, err
	}
	set := map[string]uint64{"rsp": sp, "rip": addr, "rax": uint64(len(args.sse))} // (al: how many SSE registers a variadic one gets)
	for i, a := range args.ints {
		set[amd64ArgRegs[i]] = a
	}
	for i, a := range args.sse {
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
	if !user && !t.dummyAt(ret) {
		if _, err := t.c.SetBreakpoint(t.ctx, ret, t.bpLen); err != nil {
			return out, err
		}
		defer func() {
			if !stayed { // (the program returns there later: the trap stays for it)
				t.c.ClearBreakpoint(t.ctx, SoftwareBreak, ret, t.bpLen)
			}
		}()
	}
	sr, err := t.resumeWait("c", 0, 0)
	var hit *engine.Stop // a breakpoint the called function stopped at
	for err == nil && name != "" {
		var at bool
		if hit, at = t.breakpointStop(sr); hit != nil || !at {
			break
		}
		if sr, err = t.stepOff(); err == nil { // its condition is false: on
			sr, err = t.resumeWait("c", 0, 0)
		}
	}
	var ex *exitedError
	switch {
	case errors.As(err, &ex):
		return out, errors.New("the program ended while in a function called from the debugger")
	case err != nil:
		return out, err
	}
	if sig := sr.Signal; hit == nil && name != "" && err == nil && sr.Kind == StopSignal && sig != 0 && sig != int(syscall.SIGTRAP) {
		// a signal: as gdb's default (unwindonsignal off) the program stays where it came
		hit = &engine.Stop{Reason: engine.ReasonException, Text: "signal " + engine.SignalText(SignalName(sig)), Signal: SignalName(sig)}
	}
	if hit != nil {
		name = t.calledName(addr, name)
		stayed = true
		t.pushDummy(dummyFrame{ret: ret, sp: sp, saved: saved, before: before, held: held, ownTrap: !user})
		t.reportStop(*hit)
		return out, engine.CallStoppedError{Func: name, Stop: *hit}
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
	if r, ok := t.desc.Reg("st0"); ok {
		out.x87, _ = t.reg(r.Num)
	}
	return out, nil
}

// calledName is the function at addr as gdb names it in its words about a call: a C++
// function by its signature; name where no function starts there.
func (t *Target) calledName(addr uint64, name string) string {
	if fn := t.sym.FuncAt(addr); fn != nil && fn.Start() == addr {
		return t.sym.Signature(fn)
	}
	return name
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
			return nil, p.syntaxError(p.pos)
		}
	}
	p.pos++ // ")"
	return args, nil
}

// call is fn(args...) after a function's value: the arguments read up to the ")", then the
// function run in the program (not in a pure evaluation, which may not run its code).
func (p *arithParser) call(fn arithOperand) (arithOperand, error) { return p.callOn(fn, nil) }

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
	if _, typed := fn.obj.FuncType(); !typed { // a function without debug information: a cast says its type
		if p.castType == "" {
			return fn, fmt.Errorf("'%s' has unknown return type; cast the call to its declared return type", name)
		}
		var rt dwarf.Type // (void): none
		if strings.TrimSpace(p.castType) != "void" {
			var err error
			if rt, err = p.e.t.sym.ParseType(p.castType); err != nil {
				return fn, err
			}
		}
		p.castType = ""
		typed := *fn.obj
		typed.SetFuncType(&dwarf.FuncType{ReturnType: rt})
		if fn.ifunc && !p.e.typeOnly { // glibc's strlen: run the resolver for the implementation
			impl, err := p.e.t.callFunction(fn.obj.Addr, nil)
			if err != nil {
				return fn, err
			}
			typed.Addr = impl
		}
		fn = arithOperand{obj: &typed}
	}
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
	ft, _ := fn.obj.FuncType()
	room, err := p.returnRoom(ft, name+"(...)")
	if err != nil {
		return fn, err
	}
	var ca callArgs
	if room > 0 {
		ca.integer(0) // where the result is built: the first argument, set by the call
	}
	if this != nil {
		ca.integer(*this)
	}
	for i, a := range args {
		param := i // its place among the parameters, this counted
		if this != nil {
			param++
		}
		if at, ok := byReference(ft, param, a); ok { // an object passed by reference: its address
			ca.integer(at)
			continue
		}
		if o := a.referred().obj; o != nil && o.Kind == "array" && !o.InMemory { // a string literal: put in the program's memory
			placed, err := p.inMemory(a)
			if err != nil {
				return fn, err
			}
			ca.integer(placed.obj.Addr)
			continue
		}
		if o := a.referred().obj; o != nil && o.Kind == "struct" { // a class object by value
			if err := p.passObject(&ca, a.referred()); err != nil {
				return fn, err
			}
			continue
		}
		n, err := p.number(a)
		if err != nil {
			return fn, err
		}
		switch pt := paramType(ft, param); {
		case pt != nil && isLongDouble(pt): // x87's extended format, on the stack
			if o := a.referred().obj; o != nil && isLongDouble(o.DWARFType()) && len(o.Bytes) == 16 {
				ca.onStackAligned(o.Bytes, 16) // a long double's own bytes: all its precision
			} else {
				ca.onStackAligned(extended80(n.float()), 16)
			}
		case pt != nil && pt.Size() == 4 && isFloat(pt): // a float parameter: the value as a float
			ca.float(uint64(math.Float32bits(float32(n.float()))))
		case pt != nil && isFloat(pt), pt == nil && n.kind == "float": // a double, as C passes one without a prototype
			ca.float(math.Float64bits(n.float()))
		case n.kind == "float": // to an integer parameter, as C converts
			ca.integer(uint64(int64(n.f)))
		default:
			ca.integer(n.uint())
		}
	}
	ca.scratch = p.e.scratch
	out, err := p.e.t.call(fn.obj.Addr, ca, room, name)
	if err != nil {
		return fn, err
	}
	return p.callResult(ft, out, name+"(...)")
}

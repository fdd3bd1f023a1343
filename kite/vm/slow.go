package vm

import (
	"slices"

	"github.com/polydbg/polydbg/kite/compile"
)

// outcome is what run does after slow.
type outcome uint8

const (
	goOn outcome = iota // run the instruction at the top frame's pc
	redo                // run the instruction slow returns (at the top frame's pc - 1)
	exit                // return slow's result and error
)

// slow runs one instruction that run's fast loop left (see interp.go): ins, at pc-1 of the
// top frame, whose pc is pc; the loop has written back vm.sp and the counters. It leaves
// the state in the VM for the loop to read again. Each case handles what the fast loop does
// not; the comment names the case the fast loop took already.
func (vm *VM) slow(ins uint32) (next uint32, o outcome, res Value, err error) {
	stack, sp := vm.stack, vm.sp
	fr := &vm.frames[len(vm.frames)-1]
	pc, fp := fr.pc, fr.fp
	switch op := compile.Opcode(ins); op {
	case compile.BREAK:
		// A trap patched over the instruction at pc-1: let the debugger look, then run the
		// original instruction.
		tpc := pc - 1
		if vm.hook != nil && vm.evalDepth == 0 {
			fr.pc = tpc
			err = vm.trap(tpc)
			sp = vm.sp
			fr = &vm.frames[len(vm.frames)-1]
			if vm.jumped { // the debugger moved the frame (Jump): go on there
				vm.jumped = false
				tpc = fr.pc
			}
			fr.pc = tpc + 1
			if err != nil {
				goto fail
			}
		}
		return vm.orig[tpc], redo, Nil, nil
	case fLL, fLKB, fLLB, fKB, fLB, fBS, fLKBS, fLLBS, fCJ, fKCJ, fLKCJ, fLLCJ, fNS, fLR, fBR, fGLKB:
		// A superinstruction outside its fast case: run its first instruction as it is in
		// the program (the others follow one by one), counted as itself.
		t := incTab[uint8(ins)]
		vm.steps -= int64(t >> 32)
		vm.cycles -= int64(uint32(t))
		return vm.orig[pc-1], redo, Nil, nil
	case compile.ADD, compile.SUB, compile.MUL, compile.DIV, compile.MOD: // fast: two ints (not / 0)
		if stack[sp-2], err = vm.arith(op, stack[sp-2], stack[sp-1]); err != nil {
			goto fail
		}
		sp--
	case compile.LT, compile.LE, compile.GT, compile.GE: // fast: two ints
		if stack[sp-2], err = compare(op, stack[sp-2], stack[sp-1]); err != nil {
			goto fail
		}
		sp--
	case compile.EQ, compile.NE: // fast: two ints
		stack[sp-2] = Bool(Equal(stack[sp-2], stack[sp-1]) != (op == compile.NE))
		sp--
	case compile.NEG: // fast: an int
		if v := &stack[sp-1]; v.k == FloatKind {
			*v = Float(-v.Float())
		} else {
			err = vm.errorf("bad operand type for unary -: %s", v.TypeName())
			goto fail
		}
	case compile.NOT: // fast: a bool
		stack[sp-1] = Bool(!stack[sp-1].Truth())
	case compile.JUMPFALSE: // fast: a bool
		sp--
		if !stack[sp].Truth() {
			pc = int(ins >> 8)
		}
	case compile.JUMPFALSEKEEP, compile.JUMPTRUEKEEP: // fast: a bool
		if stack[sp-1].Truth() == (op == compile.JUMPTRUEKEEP) {
			pc = int(ins >> 8)
		} else {
			sp--
		}
	case compile.LOOP: // fast: no safe point due
		pc = int(ins >> 8)
		if vm.cycles >= vm.checkAt || vm.interrupt.Load() {
			fr.pc = pc
			err = vm.safePoint()
			sp = vm.sp
			fr = &vm.frames[len(vm.frames)-1]
			if err != nil {
				goto fail
			}
		}
	case compile.LOADGLOBAL, compile.STOREGLOBAL: // fast: a defined global
		err = vm.errorf("undefined variable %s", vm.Prog.Globals[ins>>8].Name)
		goto fail
	case compile.LOADCELL, compile.STORECELL: // fast: a slot holding a cell
		// only corrupt bytecode gets here; never reinterpret memory
		err = vm.errorf("invalid bytecode: slot %d holds no cell", ins>>8)
		goto fail
	case compile.INITCELL:
		sp--
		stack[fp+int(ins>>8)] = cellValue(&Cell{V: stack[sp]})
	case compile.CALL: // fast: a Kite function, no check failing or due
		return vm.call(ins)
	case compile.HALT:
		vm.sp = fr.base
		vm.frames = vm.frames[:len(vm.frames)-1]
		return 0, exit, Nil, nil
	case compile.MAKELIST:
		n := int(ins >> 8)
		src := stack[sp-n : sp] // before allocating: a corrupt count fails here
		items := make([]Value, n)
		copy(items, src)
		sp -= n
		stack[sp] = ListOf(items)
		sp++
	case compile.MAKEMAP:
		n := int(ins >> 8)
		_ = stack[sp-2*n : sp] // before allocating: a corrupt count fails here
		m := NewMap(n)
		for i := sp - 2*n; i < sp; i += 2 {
			if !m.Set(stack[i], stack[i+1]) {
				err = vm.errorf("invalid map key of type %s (keys are int, string or bool)", stack[i].TypeName())
				goto fail
			}
		}
		sp -= 2 * n
		stack[sp] = MapValue(m)
		sp++
	case compile.INDEX: // fast: a list and an int in range
		if stack[sp-2], err = vm.index(stack[sp-2], stack[sp-1]); err != nil {
			goto fail
		}
		sp--
	case compile.SETINDEX:
		if err = vm.setIndex(stack[sp-3], stack[sp-2], stack[sp-1]); err != nil {
			goto fail
		}
		sp -= 3
	case compile.CLOSURE:
		f := vm.Prog.Funcs[ins>>8]
		cl := &Closure{Fn: f}
		if len(f.Free) > 0 {
			cl.Free = make([]*Cell, len(f.Free))
			for i, fv := range f.Free {
				if fv.FromLocal {
					c := stack[fp+fv.Index]
					if c.k != cellKind {
						err = vm.errorf("invalid bytecode: slot %d holds no cell", fv.Index)
						goto fail
					}
					cl.Free[i] = (*Cell)(c.p)
				} else {
					cl.Free[i] = fr.cl.Free[fv.Index]
				}
			}
		}
		stack[sp] = FuncValue(cl)
		sp++
	case compile.INTERP:
		n := int(ins >> 8)
		var s string
		if s, err = vm.interp(stack[sp-n : sp]); err != nil {
			goto fail
		}
		sp -= n
		stack[sp] = Str(s)
		sp++
	case compile.ITER, compile.ITER2:
		if stack[sp-1], err = vm.newIter(stack[sp-1], op == compile.ITER2); err != nil {
			goto fail
		}
	case compile.RANGEITER:
		if stack[sp-3], err = rangeIter(stack[sp-3], stack[sp-2], stack[sp-1]); err != nil {
			goto fail
		}
		sp -= 2
	case compile.NEXT: // fast: a range's next int; here: the end of a range, other iterators
		if stack[sp-1].k != iterKind {
			err = vm.errorf("invalid bytecode: no iterator for next")
			goto fail
		}
		it := stack[sp-1].iter()
		if k, v, ok := it.next(); ok {
			stack[sp] = k
			sp++
			if it.pairs {
				stack[sp] = v
				sp++
			}
		} else {
			sp--
			pc = int(ins >> 8)
		}
	default:
		err = vm.errorf("invalid instruction %d at pc %d", ins, pc-1)
		goto fail
	}
	fr.pc, vm.sp = pc, sp
	return 0, goOn, Nil, nil

fail:
	// The failing instruction is pc-1 of the top frame.
	fr.pc, vm.sp = pc-1, sp
	return 0, exit, Nil, vm.raise(err)
}

// call runs a call the fast loop left: a builtin, an error, a stack or frame array to grow,
// or a safe point due on entry.
func (vm *VM) call(ins uint32) (next uint32, o outcome, res Value, err error) {
	stack, sp := vm.stack, vm.sp
	fr := &vm.frames[len(vm.frames)-1]
	pc := fr.pc
	n := int(ins >> 8)
	switch callee := stack[sp-n-1]; callee.k {
	case FuncKind:
		cl := callee.Closure()
		f := cl.Fn
		switch {
		case n != f.NumParams:
			err = vm.errorf("wrong argument count: %s expects %d, got %d", fnDisplayName(f.Name), f.NumParams, n)
		case len(vm.frames) >= vm.maxDepth:
			err = vm.errorf("stack overflow (more than %d frames)", vm.maxDepth)
		case vm.pure > 0:
			err = vm.errorf("calling %s is not allowed in pure mode", fnDisplayName(f.Name))
		}
		if err != nil {
			break
		}
		vm.ensureStack(sp - n + f.NumLocals + f.MaxStack + 8)
		vm.frames = slices.Grow(vm.frames, 1)
		vm.sp = vm.enter(vm.stack, cl, sp-n, sp, pc)
		if vm.cycles >= vm.checkAt || vm.interrupt.Load() {
			if err = vm.safePoint(); err != nil {
				// reported at the callee's entry - 1, as it always was
				pc, sp = f.Entry, vm.sp
				fr = &vm.frames[len(vm.frames)-1]
				break
			}
		}
		return 0, goOn, Nil, nil
	case BuiltinKind:
		b := callee.Builtin()
		if vm.pure > 0 && !b.Pure {
			err = vm.errorf("%s is impure and cannot be called in pure mode", b.Name)
			break
		}
		fr.pc = pc - 1
		res, err = b.Fn(vm, stack[sp-n:sp])
		stack, sp = vm.stack, vm.sp
		fr = &vm.frames[len(vm.frames)-1]
		fr.pc = pc
		if err != nil {
			break
		}
		sp -= n + 1
		stack[sp] = res
		vm.sp = sp + 1
		return 0, goOn, Nil, nil
	default:
		err = vm.errorf("cannot call a value of type %s", callee.TypeName())
	}
	fr.pc, vm.sp = pc-1, sp
	return 0, exit, Nil, vm.raise(err)
}

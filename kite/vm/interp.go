package vm

import (
	"github.com/polydbg/polydbg/kite/compile"
)

// The interpreter is two parts, and each instruction's semantics lives in one of them:
//
//   - run's fast loop (this file) executes every instruction whose work needs no call into Go:
//     the loads and stores, jumps, int arithmetic and comparisons, a call of a Kite function
//     and its return, and the superinstructions (fuse.go). It calls no function (only inlined
//     ones), so the compiler keeps its state (code, stack, sp, pc, fp, the counters) in
//     registers;
//   - slow (slow.go) executes one instruction that the fast loop left: a case that calls into
//     Go (a builtin, an allocation, a non-int operand, an error, a trap, a safe point) or a
//     superinstruction outside its fast case. The loop writes its state back to the VM
//     before it and reads it again afterwards.
//
// An instruction the fast loop handles completely (loadlocal) has no case in slow; an
// instruction with a fast case (add of two ints) has its other cases in slow and nowhere
// else.

// flush moves the loop's packed counter into the VM's counters.
func (vm *VM) flush(acc uint64) {
	vm.steps += int64(acc >> 32)
	vm.cycles += int64(uint32(acc)) - int64(vm.bias)
}

// due is the bit of the packed counter that is set once a safe point is due.
const due = 1 << 31

// budget starts a packed counter: its low half (the cycles) starts at a bias such that bit
// 31 (due) is set once the cycles reach checkAt, when a safe point (at a loop's back edge or
// a call) must run. A budget above 2^31 cycles is cut to 2^31 (the loop then finds no check
// due and starts again), so that the halves cannot overflow: an instruction costs at least
// one cycle, and between two checks run only the instructions of one function's body.
func (vm *VM) budget() uint64 {
	d := vm.checkAt - vm.cycles
	switch {
	case d < 0:
		d = 0
	case d > due:
		d = due
	}
	vm.bias = uint32(due - d)
	return uint64(vm.bias)
}

// fetch returns the instruction at pc, the pc after it and the counter with it counted.
func fetch(code []uint32, pc int, acc uint64) (uint32, int, uint64) {
	ins := code[pc]
	return ins, pc + 1, acc + incTab[uint8(ins)]
}

// enter pushes the frame of a call of cl whose arguments start at fp, returning to pc, in
// place: field by field and without append (the caller made room), because a call into the
// runtime in the fast loop would make the compiler spill its state. The callee's other
// locals, up to sp, are cleared. It returns the callee's sp.
func (vm *VM) enter(stack []Value, cl *Closure, fp, sp, pc int) int {
	top := fp + cl.Fn.NumLocals
	for ; sp < top; sp++ {
		stack[sp] = Value{}
	}
	nf := len(vm.frames)
	vm.frames = vm.frames[:nf+1]
	vm.frames[nf-1].pc = pc
	nfr := &vm.frames[nf]
	nfr.cl, nfr.pc, nfr.fp, nfr.base, nfr.boundary = cl, cl.Fn.Entry, fp, fp-1, false
	return top
}

// setScalar stores a nil, bool, int or float (k, n) into *d. Over another such value (the
// usual case: a loop's counter, a local that holds an int) it writes the two words without
// the write barrier a Value's pointer word needs.
func setScalar(d *Value, k Kind, n uint64) {
	if d.k <= FloatKind {
		d.k, d.n = k, n
	} else {
		*d = Value{k: k, n: n}
	}
}

// run executes from the top frame until a boundary frame returns, and returns its result.
func (vm *VM) run() (Value, error) {
	code, stack, sp := vm.code, vm.stack, vm.sp
	fr := &vm.frames[len(vm.frames)-1]
	pc, fp := fr.pc, fr.fp
	// acc counts executed instructions (high 32 bits) and their cycles (low 32 bits) since
	// the last flush into vm.steps and vm.cycles: one add per instruction for both. Its low
	// half starts at a bias such that its bit 31 is set once a safe point is due (budget).
	acc := vm.budget()
	// The operands of a superinstruction's operator (fuse.go), and what to do with the
	// result: see the binop block.
	var (
		a, b     int64 // the operands, checked to be ints
		res      Value // the result of a return
		bop      compile.Opcode
		dst, nsp int    // where the result goes (-1: branch on it instead); sp afterwards
		npc, jt  int    // the pc after the sequence; the jumpfalse target
		extra    uint64 // the counts of the instructions after the first
	)
	// ins is the instruction to run, counted; pc is the pc after it.
	ins, pc, acc := fetch(code, pc, acc)
	for {
	fast:
		for ; ; ins, pc, acc = fetch(code, pc, acc) {
			switch op := compile.Opcode(ins); op {
			case compile.LOADLOCAL:
				stack[sp] = stack[fp+int(ins>>8)]
				sp++
				continue
			case compile.STORELOCAL:
				sp--
				stack[fp+int(ins>>8)] = stack[sp]
				continue
			case compile.SMALLINT:
				stack[sp] = Value{k: IntKind, n: uint64(int64(int32(ins) >> 8))}
				sp++
				continue
			case compile.CONST:
				stack[sp] = vm.consts[ins>>8]
				sp++
				continue
			case compile.NIL:
				stack[sp] = Value{}
				sp++
				continue
			case compile.TRUE:
				stack[sp] = True
				sp++
				continue
			case compile.FALSE:
				stack[sp] = False
				sp++
				continue
			case compile.POP:
				sp--
				continue
			case compile.DUP2:
				stack[sp], stack[sp+1] = stack[sp-2], stack[sp-1]
				sp += 2
				continue
			case compile.NOP:
				continue
			case compile.JUMP:
				pc = int(ins >> 8)
				if compile.Opcode(code[pc]) != compile.LOOP {
					continue
				}
				// A jump to a loop's back edge (the end of an if's branch): run it here.
				ins = code[pc]
				pc++
				acc += incTab[compile.LOOP]
				goto backedge
			case compile.LOOP:
				goto backedge
			case compile.JUMPFALSE:
				if v := &stack[sp-1]; v.k == BoolKind {
					sp--
					if v.n == 0 {
						pc = int(ins >> 8)
					}
					continue
				}
			case compile.JUMPFALSEKEEP, compile.JUMPTRUEKEEP:
				if v := &stack[sp-1]; v.k == BoolKind {
					if (v.n != 0) == (op == compile.JUMPTRUEKEEP) {
						pc = int(ins >> 8)
					} else {
						sp--
					}
					continue
				}
			case compile.NOT:
				if v := &stack[sp-1]; v.k == BoolKind {
					*v = Bool(v.n == 0)
					continue
				}
			case compile.NEG:
				if v := &stack[sp-1]; v.k == IntKind {
					v.n = -v.n
					continue
				}
			case compile.ADD, compile.SUB, compile.MUL, compile.DIV, compile.MOD,
				compile.LT, compile.LE, compile.GT, compile.GE, compile.EQ, compile.NE:
				if x, y := &stack[sp-2], &stack[sp-1]; x.k == IntKind && y.k == IntKind {
					a, b = int64(x.n), int64(y.n)
					// counted already: the operator alone, its result on the stack
					bop, extra, dst, nsp, npc = op, 0, sp-2, sp-1, pc
					goto binop
				}
			case compile.LOADGLOBAL:
				if v := vm.globals[ins>>8]; v.k != undefKind {
					stack[sp] = v
					sp++
					continue
				}
			case compile.STOREGLOBAL:
				if g := &vm.globals[ins>>8]; g.k != undefKind {
					sp--
					*g = stack[sp]
					continue
				}
			case compile.DEFGLOBAL:
				sp--
				vm.globals[ins>>8] = stack[sp]
				continue
			case compile.LOADBUILTIN:
				stack[sp] = vm.builtins[ins>>8]
				sp++
				continue
			case compile.LOADFREE:
				stack[sp] = vm.frames[len(vm.frames)-1].cl.Free[ins>>8].V
				sp++
				continue
			case compile.STOREFREE:
				sp--
				vm.frames[len(vm.frames)-1].cl.Free[ins>>8].V = stack[sp]
				continue
			case compile.LOADCELL:
				if c := stack[fp+int(ins>>8)]; c.k == cellKind {
					stack[sp] = (*Cell)(c.p).V
					sp++
					continue
				}
			case compile.STORECELL:
				if c := stack[fp+int(ins>>8)]; c.k == cellKind {
					sp--
					(*Cell)(c.p).V = stack[sp]
					continue
				}
			case compile.INDEX:
				if x, i := stack[sp-2], stack[sp-1]; x.k == ListKind && i.k == IntKind {
					if items := x.List().Items; i.n < uint64(len(items)) {
						stack[sp-2] = items[i.n]
						sp--
						continue
					}
				}
			case compile.NEXT:
				if v, ok := nextRange(stack[sp-1]); ok {
					stack[sp] = v
					sp++
					continue
				}
			case compile.CALL:
				n := int(ins >> 8)
				if callee := stack[sp-n-1]; callee.k == FuncKind {
					cl := callee.Closure()
					f := cl.Fn
					if nf := len(vm.frames); n != f.NumParams || nf >= vm.maxDepth || vm.pure > 0 || nf == cap(vm.frames) ||
						sp-n+f.NumLocals+f.MaxStack+8 > len(stack) || acc&due != 0 || vm.interrupt.Load() {
						break // slow checks and reports, grows, or runs the safe point
					}
					newfp := sp - n
					sp = vm.enter(stack, cl, newfp, sp, pc)
					fp, pc = newfp, f.Entry
					continue
				}
			case compile.RETURN, compile.RETURNNIL:
				res = Value{}
				if op == compile.RETURN {
					res = stack[sp-1]
				}
				goto ret
			case fLR:
				res = stack[fp+int(ins>>8)]
				acc += incTab[compile.RETURN]
				goto ret
			case fBR:
				// An operator and return (the return of a + b): the int cases that cannot fail.
				if a, b := stack[sp-2], stack[sp-1]; a.k == IntKind && b.k == IntKind {
					switch bop = compile.Opcode(ins >> 8); bop {
					case compile.ADD:
						res = Value{k: IntKind, n: a.n + b.n}
					case compile.SUB:
						res = Value{k: IntKind, n: a.n - b.n}
					case compile.MUL:
						res = Value{k: IntKind, n: uint64(int64(a.n) * int64(b.n))}
					default:
						break fast
					}
					acc += incTab[bop] + incTab[compile.RETURN]
					goto ret
				}
			case fGLKB:
				// A global (the function of a call) and a local through an operator with a
				// small int (its argument): fib(n - 1).
				g := vm.globals[ins>>8&0xffff]
				x := &stack[fp+int(code[pc]>>8&0xffff)]
				if g.k == undefKind || x.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(int32(code[pc+1])>>8)
				stack[sp] = g
				bop = compile.Opcode(ins >> 24)
				extra = incTab[compile.LOADLOCAL] + incTab[compile.SMALLINT] + incTab[bop]
				dst, nsp, npc = sp+1, sp+2, pc+3
				goto binop
			case fLKB, fLKBS, fLKCJ:
				x := &stack[fp+int(ins>>8&0xffff)]
				if x.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(int32(code[pc])>>8)
				bop = compile.Opcode(ins >> 24)
				extra = incTab[compile.SMALLINT] + incTab[bop]
				goto placed
			case fLLB, fLLBS, fLLCJ:
				x, y := &stack[fp+int(ins>>8&0xffff)], &stack[fp+int(code[pc]>>8&0xffff)]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(y.n)
				bop = compile.Opcode(ins >> 24)
				extra = incTab[compile.LOADLOCAL] + incTab[bop]
				goto placed
			case fKB, fKCJ:
				x := &stack[sp-1]
				if x.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(int32(ins)>>8)
				bop = binOp(code[pc])
				extra = incTab[bop]
				if op == fKB {
					dst, nsp, npc = sp-1, sp, pc+1
				} else {
					dst, nsp, npc, jt = -1, sp-1, pc+2, int(code[pc+1]>>8)
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fLB:
				x, y := &stack[sp-1], &stack[fp+int(ins>>8&0xffff)]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(y.n)
				bop = compile.Opcode(ins >> 24)
				extra = incTab[bop]
				dst, nsp, npc = sp-1, sp, pc+1
				goto binop
			case fBS, fCJ:
				x, y := &stack[sp-2], &stack[sp-1]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				a, b = int64(x.n), int64(y.n)
				bop = compile.Opcode(ins >> 8)
				extra = incTab[bop]
				if op == fBS {
					dst, nsp, npc = fp+int(code[pc]>>8), sp-2, pc+1
					extra += incTab[compile.STORELOCAL]
				} else {
					dst, nsp, npc, jt = -1, sp-2, pc+1, int(code[pc]>>8)
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fLL:
				stack[sp] = stack[fp+int(ins>>8)]
				stack[sp+1] = stack[fp+int(code[pc]>>8&0xffff)]
				sp += 2
				pc++
				acc += incTab[compile.LOADLOCAL]
				continue
			case fNS:
				if v, ok := nextRange(stack[sp-1]); ok {
					d := &stack[fp+int(code[pc]>>8)]
					setScalar(d, IntKind, v.n)
					pc++
					acc += incTab[compile.STORELOCAL]
					continue
				}
				if v := stack[sp-1]; v.k == iterKind { // a list's next item
					if it := v.iter(); it.kind == iterList && !it.pairs && uint64(it.i) < uint64(len(it.list.Items)) {
						stack[fp+int(code[pc]>>8)] = it.list.Items[it.i]
						it.i++
						pc++
						acc += incTab[compile.STORELOCAL]
						continue
					}
				}
			}
			break

		backedge:
			// A loop's back edge (ins, counted): the safe point, then the loop's head if it
			// is a range loop's next and store. When a check is due, slow runs it.
			if acc&due != 0 || vm.interrupt.Load() {
				break
			}
			pc = int(ins >> 8)
			if compile.Opcode(code[pc]) == fNS {
				if v, ok := nextRange(stack[sp-1]); ok {
					setScalar(&stack[fp+int(code[pc+1]>>8)], IntKind, v.n)
					pc += 2
					acc += incTab[compile.NEXT] + incTab[compile.STORELOCAL]
				}
			}
			continue

		ret:
			// Return res: to the Kite caller, or from run if the frame is a boundary (called
			// from Go: VM.Call, an evaluation, the top level).
			{
				top := &vm.frames[len(vm.frames)-1]
				sp = top.base
				stack[sp] = res
				boundary := top.boundary
				vm.frames = vm.frames[:len(vm.frames)-1]
				if boundary {
					vm.sp = sp
					vm.flush(acc)
					return res, nil
				}
				sp++
				caller := &vm.frames[len(vm.frames)-1]
				pc, fp = caller.pc, caller.fp
				continue
			}

		placed:
			// Where the result of a local's fused operation goes (the fLKB and fLLB cases):
			// pushed, stored into a local, or tested by the jump that follows. Then binop.
			switch compile.Opcode(ins) {
			case fLKB, fLLB:
				dst, nsp, npc = sp, sp+1, pc+2
			case fLKBS, fLLBS:
				dst, nsp, npc = fp+int(code[pc+2]>>8), sp, pc+3
				extra += incTab[compile.STORELOCAL]
			default:
				dst, nsp, npc, jt = -1, sp, pc+3, int(code[pc+2]>>8)
				extra += incTab[compile.JUMPFALSE]
			}

		binop:
			// The operator of a superinstruction on two ints (checked by its case).
			{
				var r uint64
				rk := BoolKind
				switch bop {
				case compile.ADD:
					r, rk = uint64(a+b), IntKind
				case compile.SUB:
					r, rk = uint64(a-b), IntKind
				case compile.MUL:
					r, rk = uint64(a*b), IntKind
				case compile.DIV:
					if b == 0 {
						break fast
					}
					r, rk = uint64(a/b), IntKind
				case compile.MOD:
					if b == 0 {
						break fast
					}
					r, rk = uint64(a%b), IntKind
				case compile.LT:
					r = b2u(a < b)
				case compile.LE:
					r = b2u(a <= b)
				case compile.GT:
					r = b2u(a > b)
				case compile.GE:
					r = b2u(a >= b)
				case compile.EQ:
					r = b2u(a == b)
				default: // NE
					r = b2u(a != b)
				}
				acc += extra
				sp, pc = nsp, npc
				if dst < 0 {
					if r == 0 {
						pc = jt
					}
					continue
				}
				if dst != sp-1 {
					// A store to a local.
					setScalar(&stack[dst], rk, r)
					switch ins = code[pc]; compile.Opcode(ins) {
					case compile.LOOP:
						// It ends a loop's body (s -= i): the back edge without a dispatch.
						pc++
						acc += incTab[compile.LOOP]
						goto backedge
					case compile.JUMP:
						// It ends an if's branch in a loop's body: the jump and the back edge.
						if t := int(ins >> 8); compile.Opcode(code[t]) == compile.LOOP {
							ins = code[t]
							pc = t + 1
							acc += incTab[compile.JUMP] + incTab[compile.LOOP]
							goto backedge
						}
					}
					continue
				}
				if rk == IntKind {
					switch compile.Opcode(code[pc]) {
					case fKCJ:
						// The result compared with a small int and branched on, at once (the
						// i % 3 == 0 of an if): run that superinstruction without a dispatch
						// (and without storing the result, which it pops).
						ins = code[pc]
						pc++
						acc += incTab[fKCJ]
						a, b = int64(r), int64(int32(ins)>>8)
						bop = binOp(code[pc])
						extra = incTab[bop] + incTab[compile.JUMPFALSE]
						dst, nsp, npc, jt = -1, sp-1, pc+2, int(code[pc+1]>>8)
						goto binop
					case fBS:
						// The result as the right operand of an operation stored to a local
						// (the s + i * 2 of s += i * 2): run it without a dispatch.
						if x := &stack[sp-2]; x.k == IntKind {
							a, b = int64(x.n), int64(r)
							ins = code[pc]
							pc++
							bop = compile.Opcode(ins >> 8)
							extra = incTab[bop] + incTab[compile.STORELOCAL]
							dst, nsp, npc = fp+int(code[pc]>>8), sp-2, pc+1
							goto binop
						}
					}
				}
				setScalar(&stack[dst], rk, r)
				continue
			}
		}

		// slow runs ins (at pc-1) with the state written back, then the fast loop goes on
		// with the next instruction or with the one slow hands it (a trapped or unfused
		// instruction's original).
		vm.frames[len(vm.frames)-1].pc, vm.sp = pc, sp
		vm.flush(acc)
		next, o, out, err := vm.slow(ins)
		if o == exit {
			return out, err
		}
		code, stack, sp = vm.code, vm.stack, vm.sp
		fr = &vm.frames[len(vm.frames)-1]
		pc, fp = fr.pc, fr.fp
		acc = vm.budget()
		if o == redo {
			ins, acc = next, acc+incTab[uint8(next)]
		} else {
			ins, pc, acc = fetch(code, pc, acc)
		}
	}
}

// b2u is 1 for true, 0 for false: a bool Value's n.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// nextRange is the next int of a range iterator, or false (another iterator, or the end):
// the fast case of next (small enough to be inlined in the fast loop).
func nextRange(v Value) (Value, bool) {
	if v.k == iterKind {
		if it := v.iter(); it.kind == iterRange && it.left > 0 {
			return it.take(), true
		}
	}
	return Value{}, false
}

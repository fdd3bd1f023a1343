package vm

import (
	"github.com/polydbg/polydbg/kite/compile"
)

// flush moves the loop's packed counter into the VM's counters.
func (vm *VM) flush(acc uint64) {
	vm.steps += int64(acc >> 32)
	vm.cycles += int64(uint32(acc))
}

// run executes from the top frame until a boundary frame returns, and returns its result.
// Hot state lives in locals; it is written back to the VM (sync) before anything that can
// look at the VM: a builtin, a hook, an error.
func (vm *VM) run() (Value, error) {
	code := vm.code
	stack := vm.stack
	sp := vm.sp
	fr := &vm.frames[len(vm.frames)-1]
	pc, fp := fr.pc, fr.fp
	// acc counts executed instructions (high 32 bits) and their cycles (low 32 bits) since
	// the last flush into vm.steps and vm.cycles: one add per instruction for both.
	var acc uint64
	var err error
	// The operands of a superinstruction's operator (fuse.go), and what to do with the
	// result: see the binop block after the switch.
	var (
		x, y     Value
		res      Value // the result of a return
		bop      compile.Opcode
		dst, nsp int    // where the result goes; sp afterwards
		npc, jt  int    // the pc after the sequence; the jumpfalse target
		jf       bool   // branch on the result instead of storing it
		extra    uint64 // the counts of the instructions after the first
	)

	// Before anything that can look at the VM (a builtin, a hook, an error) the loop writes
	// its state back (fr.pc, vm.sp, the counters) and reads it again afterwards. They are
	// written out, not closures, so that the hot locals stay in registers.
	var ins uint32
	for {
		// The fast loop: the common cases of the common instructions, with no function
		// call, so that the compiler keeps the loop's state in registers. Anything else
		// (calls into Go, errors, hooks, the uncommon cases) leaves it for the full switch
		// below with ins fetched and counted.
	fast:
		for {
			ins = code[pc]
			pc++
			acc += incTab[uint8(ins)]
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
			case compile.POP:
				sp--
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
			case compile.ADD, compile.SUB, compile.MUL, compile.LT, compile.LE, compile.GT, compile.GE, compile.EQ, compile.NE:
				x, y = stack[sp-2], stack[sp-1]
				if x.k == IntKind && y.k == IntKind {
					// counted already: the operator alone, its result on the stack
					bop, extra, dst, nsp, npc, jf = op, 0, sp-2, sp-1, pc, false
					goto binop
				}
			case compile.LOADGLOBAL:
				if v := vm.globals[ins>>8]; v.k != undefKind {
					stack[sp] = v
					sp++
					continue
				}
			case compile.LOADBUILTIN:
				stack[sp] = vm.builtins[ins>>8]
				sp++
				continue
			case compile.INDEX:
				if x, i := stack[sp-2], stack[sp-1]; x.k == ListKind && i.k == IntKind {
					if items := x.List().Items; i.n < uint64(len(items)) {
						stack[sp-2] = items[i.n]
						sp--
						continue
					}
				}
			case compile.DUP2:
				stack[sp], stack[sp+1] = stack[sp-2], stack[sp-1]
				sp += 2
				continue
			case compile.LOADFREE:
				stack[sp] = vm.frames[len(vm.frames)-1].cl.Free[ins>>8].V
				sp++
				continue
			case compile.CALL:
				n := int(ins >> 8)
				if callee := stack[sp-n-1]; callee.k == FuncKind {
					cl := callee.Closure()
					f := cl.Fn
					newfp := sp - n
					nf := len(vm.frames)
					if n != f.NumParams || nf >= vm.maxDepth || vm.pure > 0 || nf == cap(vm.frames) ||
						newfp+f.NumLocals+f.MaxStack+8 > len(stack) || vm.cycles+int64(uint32(acc)) >= vm.checkAt || vm.interrupt.Load() {
						break // the full switch checks and reports, grows, or stops
					}
					for i := sp; i < newfp+f.NumLocals; i++ {
						stack[i] = Value{}
					}
					sp = newfp + f.NumLocals
					vm.frames = vm.frames[:nf+1]
					vm.frames[nf-1].pc = pc
					// field by field: a literal would zero the frame through a runtime
					// call, and any call in this loop makes the compiler spill its state
					nfr := &vm.frames[nf]
					nfr.cl, nfr.pc, nfr.fp, nfr.base, nfr.boundary = cl, f.Entry, newfp, newfp-1, false
					fp, pc = newfp, f.Entry
					vm.flush(acc)
					acc = 0
					continue
				}
			case compile.RETURN, compile.RETURNNIL:
				if !vm.frames[len(vm.frames)-1].boundary {
					res = Value{}
					if op == compile.RETURN {
						res = stack[sp-1]
					}
					goto ret
				}
			case fLR:
				if !vm.frames[len(vm.frames)-1].boundary {
					res = stack[fp+int(ins>>8)]
					acc += incTab[compile.RETURN]
					goto ret
				}
				break fast
			case fBR:
				// An operator and return (the return of a + b): the int cases that cannot fail.
				if a, b := stack[sp-2], stack[sp-1]; a.k == IntKind && b.k == IntKind && !vm.frames[len(vm.frames)-1].boundary {
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
				break fast
			case fGLKB:
				// A global (the function of a call) and a local through an operator with a
				// small int (its argument): fib(n - 1).
				g := vm.globals[ins>>8]
				x, y = stack[fp+int(code[pc]>>8)], Value{k: IntKind, n: uint64(int64(int32(code[pc+1]) >> 8))}
				if g.k == undefKind || x.k != IntKind {
					break fast
				}
				stack[sp] = g
				bop = binOp(code[pc+2])
				extra = incTab[compile.LOADLOCAL] + incTab[compile.SMALLINT] + incTab[bop]
				dst, nsp, npc, jf = sp+1, sp+2, pc+3, false
				goto binop
			case fLKB, fLKBS, fLKCJ:
				x, y = stack[fp+int(ins>>8)], Value{k: IntKind, n: uint64(int64(int32(code[pc]) >> 8))}
				if x.k != IntKind {
					break fast
				}
				bop = binOp(code[pc+1])
				extra = incTab[compile.SMALLINT] + incTab[bop]
				switch op {
				case fLKB:
					dst, nsp, npc, jf = sp, sp+1, pc+2, false
				case fLKBS:
					dst, nsp, npc, jf = fp+int(code[pc+2]>>8), sp, pc+3, false
					extra += incTab[compile.STORELOCAL]
				default:
					nsp, npc, jt, jf = sp, pc+3, int(code[pc+2]>>8), true
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fLLB, fLLBS, fLLCJ:
				x, y = stack[fp+int(ins>>8)], stack[fp+int(code[pc]>>8)]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				bop = binOp(code[pc+1])
				extra = incTab[compile.LOADLOCAL] + incTab[bop]
				switch op {
				case fLLB:
					dst, nsp, npc, jf = sp, sp+1, pc+2, false
				case fLLBS:
					dst, nsp, npc, jf = fp+int(code[pc+2]>>8), sp, pc+3, false
					extra += incTab[compile.STORELOCAL]
				default:
					nsp, npc, jt, jf = sp, pc+3, int(code[pc+2]>>8), true
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fKB, fKCJ:
				x, y = stack[sp-1], Value{k: IntKind, n: uint64(int64(int32(ins) >> 8))}
				if x.k != IntKind {
					break fast
				}
				bop = binOp(code[pc])
				extra = incTab[bop]
				if op == fKB {
					dst, nsp, npc, jf = sp-1, sp, pc+1, false
				} else {
					nsp, npc, jt, jf = sp-1, pc+2, int(code[pc+1]>>8), true
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fLB:
				x, y = stack[sp-1], stack[fp+int(ins>>8)]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				bop = binOp(code[pc])
				extra = incTab[bop]
				dst, nsp, npc, jf = sp-1, sp, pc+1, false
				goto binop
			case fBS, fCJ:
				x, y = stack[sp-2], stack[sp-1]
				if x.k != IntKind || y.k != IntKind {
					break fast
				}
				bop = compile.Opcode(ins >> 8)
				extra = incTab[bop]
				if op == fBS {
					dst, nsp, npc, jf = fp+int(code[pc]>>8), sp-2, pc+1, false
					extra += incTab[compile.STORELOCAL]
				} else {
					nsp, npc, jt, jf = sp-2, pc+1, int(code[pc]>>8), true
					extra += incTab[compile.JUMPFALSE]
				}
				goto binop
			case fLL:
				stack[sp] = stack[fp+int(ins>>8)]
				stack[sp+1] = stack[fp+int(code[pc]>>8)]
				sp += 2
				pc++
				acc += incTab[compile.LOADLOCAL]
				continue
			case fNS:
				if v, ok := nextRange(stack[sp-1]); ok {
					stack[fp+int(code[pc]>>8)] = v
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
				break fast
			}
			break

		backedge:
			// A loop's back edge (ins, counted): the safe point, then the loop's head if it
			// is a range loop's next and store. When a check is due, the full switch runs it.
			if vm.cycles+int64(uint32(acc)) >= vm.checkAt || vm.interrupt.Load() {
				break
			}
			pc = int(ins >> 8)
			vm.flush(acc)
			acc = 0
			if w := code[pc]; compile.Opcode(w) == fNS {
				if v, ok := nextRange(stack[sp-1]); ok {
					stack[fp+int(code[pc+1]>>8)] = v
					pc += 2
					acc += incTab[compile.NEXT] + incTab[compile.STORELOCAL]
				}
			}
			continue

		ret:
			// Return res from a frame that is not a boundary.
			{
				sp = vm.frames[len(vm.frames)-1].base
				stack[sp] = res
				sp++
				vm.frames = vm.frames[:len(vm.frames)-1]
				caller := &vm.frames[len(vm.frames)-1]
				pc, fp = caller.pc, caller.fp
				continue
			}

		binop:
			// The operator of a superinstruction on two ints (checked by its case).
			{
				a, b := int64(x.n), int64(y.n)
				var r Value
				switch bop {
				case compile.ADD:
					r = Value{k: IntKind, n: uint64(a + b)}
				case compile.SUB:
					r = Value{k: IntKind, n: uint64(a - b)}
				case compile.MUL:
					r = Value{k: IntKind, n: uint64(a * b)}
				case compile.DIV:
					if b == 0 {
						break fast
					}
					r = Value{k: IntKind, n: uint64(a / b)}
				case compile.MOD:
					if b == 0 {
						break fast
					}
					r = Value{k: IntKind, n: uint64(a % b)}
				case compile.LT:
					r = Bool(a < b)
				case compile.LE:
					r = Bool(a <= b)
				case compile.GT:
					r = Bool(a > b)
				case compile.GE:
					r = Bool(a >= b)
				case compile.EQ:
					r = Bool(a == b)
				default: // NE
					r = Bool(a != b)
				}
				acc += extra
				sp, pc = nsp, npc
				if jf {
					if r.n == 0 {
						pc = jt
					}
					continue
				}
				stack[dst] = r
				if dst != sp-1 {
					if compile.Opcode(code[pc]) == compile.LOOP {
						// A store to a local that ends a loop's body (s -= i): the back
						// edge without a dispatch.
						ins = code[pc]
						pc++
						acc += incTab[compile.LOOP]
						goto backedge
					}
					continue
				}
				if r.k != IntKind {
					continue
				}
				switch compile.Opcode(code[pc]) {
				case fBS:
					// The result as the right operand of an operation stored to a local
					// (the s + i * 2 of s += i * 2): run it without a dispatch.
					if x = stack[sp-2]; x.k != IntKind {
						continue // the next dispatch runs it as it is
					}
					ins = code[pc]
					pc++
					y = r
					bop = compile.Opcode(ins >> 8)
					extra = incTab[bop] + incTab[compile.STORELOCAL]
					dst, nsp, npc, jf = fp+int(code[pc]>>8), sp-2, pc+1, false
					goto binop
				case fKCJ:
					// The result compared with a small int and branched on, at once (the
					// i % 3 == 0 of an if): run that superinstruction without a dispatch.
					ins = code[pc]
					pc++
					acc += incTab[fKCJ]
					x, y = r, Value{k: IntKind, n: uint64(int64(int32(ins) >> 8))}
					bop = binOp(code[pc])
					extra = incTab[bop] + incTab[compile.JUMPFALSE]
					nsp, npc, jt, jf = sp-1, pc+2, int(code[pc+1]>>8), true
					goto binop
				}
				continue
			}

		}

		// The frame of the running function, for the full switch (the fast loop keeps it in
		// vm.frames only, which leaves a register free).
		fr = &vm.frames[len(vm.frames)-1]
	dispatch:
		switch op := compile.Opcode(ins); op {
		case compile.BREAK:
			// A trap patched over the instruction at pc-1: let the debugger look, then run
			// the original instruction.
			tpc := pc - 1
			if vm.hook != nil && vm.evalDepth == 0 {
				fr.pc, vm.sp = tpc, sp
				vm.flush(acc)
				acc = 0
				err = vm.trap(tpc)
				code, stack, sp = vm.code, vm.stack, vm.sp
				fr = &vm.frames[len(vm.frames)-1]
				if err != nil {
					pc = tpc + 1
					goto fail
				}
				if vm.jumped { // the debugger moved the frame (Jump): go on there
					vm.jumped = false
					tpc = fr.pc
					pc = tpc + 1
				}
			}
			ins = vm.orig[tpc]
			acc += incTab[uint8(ins)]
			goto dispatch
		case fLL, fLKB, fLLB, fKB, fLB, fBS, fLKBS, fLLBS, fCJ, fKCJ, fLKCJ, fLLCJ, fNS, fLR, fBR, fGLKB:
			goto unfuse // the fast loop left it: not its fast case
		case compile.LOADLOCAL:
			stack[sp] = stack[fp+int(ins>>8)]
			sp++
		case compile.STORELOCAL:
			sp--
			stack[fp+int(ins>>8)] = stack[sp]
		case compile.SMALLINT:
			stack[sp] = Value{k: IntKind, n: uint64(int64(int32(ins) >> 8))}
			sp++
		case compile.CONST:
			stack[sp] = vm.consts[ins>>8]
			sp++
		case compile.ADD:
			x, y := &stack[sp-2], &stack[sp-1]
			if x.k == IntKind && y.k == IntKind {
				x.n += y.n
			} else if *x, err = vm.arith(op, *x, *y); err != nil {
				goto fail
			}
			sp--
		case compile.SUB:
			x, y := &stack[sp-2], &stack[sp-1]
			if x.k == IntKind && y.k == IntKind {
				x.n -= y.n
			} else if *x, err = vm.arith(op, *x, *y); err != nil {
				goto fail
			}
			sp--
		case compile.MUL:
			x, y := &stack[sp-2], &stack[sp-1]
			if x.k == IntKind && y.k == IntKind {
				x.n = uint64(int64(x.n) * int64(y.n))
			} else if *x, err = vm.arith(op, *x, *y); err != nil {
				goto fail
			}
			sp--
		case compile.DIV, compile.MOD:
			x, y := &stack[sp-2], &stack[sp-1]
			if x.k == IntKind && y.k == IntKind && y.n != 0 {
				if op == compile.DIV {
					x.n = uint64(int64(x.n) / int64(y.n))
				} else {
					x.n = uint64(int64(x.n) % int64(y.n))
				}
			} else if *x, err = vm.arith(op, *x, *y); err != nil {
				goto fail
			}
			sp--
		case compile.LT, compile.LE, compile.GT, compile.GE:
			x, y := &stack[sp-2], &stack[sp-1]
			if x.k == IntKind && y.k == IntKind {
				a, b := int64(x.n), int64(y.n)
				var r bool
				switch op {
				case compile.LT:
					r = a < b
				case compile.LE:
					r = a <= b
				case compile.GT:
					r = a > b
				default:
					r = a >= b
				}
				*x = Bool(r)
			} else if *x, err = compare(op, *x, *y); err != nil {
				goto fail
			}
			sp--
		case compile.EQ, compile.NE:
			x, y := &stack[sp-2], &stack[sp-1]
			var r bool
			if x.k == IntKind && y.k == IntKind {
				r = x.n == y.n
			} else {
				r = Equal(*x, *y)
			}
			*x = Bool(r != (op == compile.NE))
			sp--
		case compile.JUMPFALSE:
			sp--
			if v := &stack[sp]; v.k == BoolKind {
				if v.n == 0 {
					pc = int(ins >> 8)
				}
			} else if !v.Truth() {
				pc = int(ins >> 8)
			}
		case compile.JUMP:
			pc = int(ins >> 8)
		case compile.LOOP:
			pc = int(ins >> 8)
			vm.flush(acc)
			acc = 0
			if vm.cycles >= vm.checkAt || vm.interrupt.Load() {
				fr.pc, vm.sp = pc, sp
				err = vm.safePoint()
				code, stack, sp = vm.code, vm.stack, vm.sp
				fr = &vm.frames[len(vm.frames)-1]
				if err != nil {
					goto fail
				}
			}
		case compile.LOADGLOBAL:
			v := vm.globals[ins>>8]
			if v.k == undefKind {
				err = vm.errorf("undefined variable %s", vm.Prog.Globals[ins>>8].Name)
				goto fail
			}
			stack[sp] = v
			sp++
		case compile.STOREGLOBAL:
			g := &vm.globals[ins>>8]
			if g.k == undefKind {
				err = vm.errorf("undefined variable %s", vm.Prog.Globals[ins>>8].Name)
				goto fail
			}
			sp--
			*g = stack[sp]
		case compile.DEFGLOBAL:
			sp--
			vm.globals[ins>>8] = stack[sp]
		case compile.LOADBUILTIN:
			stack[sp] = vm.builtins[ins>>8]
			sp++
		case compile.CALL:
			n := int(ins >> 8)
			callee := stack[sp-n-1]
			if callee.k == FuncKind {
				cl := callee.Closure()
				f := cl.Fn
				if n != f.NumParams {
					err = vm.errorf("wrong argument count: %s expects %d, got %d", fnDisplayName(f.Name), f.NumParams, n)
					goto fail
				}
				if len(vm.frames) >= vm.maxDepth {
					err = vm.errorf("stack overflow (more than %d frames)", vm.maxDepth)
					goto fail
				}
				if vm.pure > 0 {
					err = vm.errorf("calling %s is not allowed in pure mode", fnDisplayName(f.Name))
					goto fail
				}
				newfp := sp - n
				if need := newfp + f.NumLocals + f.MaxStack + 8; need > len(stack) {
					vm.sp = sp
					vm.ensureStack(need)
					stack = vm.stack
				}
				for i := sp; i < newfp+f.NumLocals; i++ {
					stack[i] = Value{}
				}
				sp = newfp + f.NumLocals
				fr.pc = pc
				vm.frames = append(vm.frames, Frame{cl: cl, pc: f.Entry, fp: newfp, base: newfp - 1})
				fr = &vm.frames[len(vm.frames)-1]
				fp, pc = newfp, f.Entry
				vm.flush(acc)
				acc = 0
				if vm.cycles >= vm.checkAt || vm.interrupt.Load() {
					fr.pc, vm.sp = pc, sp
					err = vm.safePoint()
					code, stack, sp = vm.code, vm.stack, vm.sp
					fr = &vm.frames[len(vm.frames)-1]
					if err != nil {
						goto fail
					}
				}
			} else if callee.k == BuiltinKind {
				b := callee.Builtin()
				if vm.pure > 0 && !b.Pure {
					err = vm.errorf("%s is impure and cannot be called in pure mode", b.Name)
					goto fail
				}
				fr.pc, vm.sp = pc-1, sp
				vm.flush(acc)
				acc = 0
				var res Value
				res, err = b.Fn(vm, stack[sp-n:sp])
				code, stack, sp = vm.code, vm.stack, vm.sp
				fr = &vm.frames[len(vm.frames)-1]
				fr.pc = pc
				if err != nil {
					goto fail
				}
				sp -= n + 1
				stack[sp] = res
				sp++
			} else {
				err = vm.errorf("cannot call a value of type %s", callee.TypeName())
				goto fail
			}
		case compile.RETURN, compile.RETURNNIL:
			var res Value
			if op == compile.RETURN {
				res = stack[sp-1]
			}
			sp = fr.base
			stack[sp] = res
			boundary := fr.boundary
			vm.frames = vm.frames[:len(vm.frames)-1]
			if boundary {
				vm.sp = sp
				vm.flush(acc)
				return res, nil
			}
			sp++
			fr = &vm.frames[len(vm.frames)-1]
			pc, fp = fr.pc, fr.fp
		case compile.HALT:
			vm.sp = fr.base
			vm.frames = vm.frames[:len(vm.frames)-1]
			vm.flush(acc)
			return Nil, nil
		case compile.POP:
			sp--
		case compile.NIL:
			stack[sp] = Value{}
			sp++
		case compile.TRUE:
			stack[sp] = True
			sp++
		case compile.FALSE:
			stack[sp] = False
			sp++
		case compile.DUP2:
			stack[sp], stack[sp+1] = stack[sp-2], stack[sp-1]
			sp += 2
		case compile.LOADCELL:
			c := stack[fp+int(ins>>8)]
			if c.k != cellKind { // only corrupt bytecode gets here; never reinterpret memory
				err = vm.errorf("invalid bytecode: slot %d holds no cell", ins>>8)
				goto fail
			}
			stack[sp] = (*Cell)(c.p).V
			sp++
		case compile.STORECELL:
			c := stack[fp+int(ins>>8)]
			if c.k != cellKind {
				err = vm.errorf("invalid bytecode: slot %d holds no cell", ins>>8)
				goto fail
			}
			sp--
			(*Cell)(c.p).V = stack[sp]
		case compile.INITCELL:
			sp--
			stack[fp+int(ins>>8)] = cellValue(&Cell{V: stack[sp]})
		case compile.LOADFREE:
			stack[sp] = fr.cl.Free[ins>>8].V
			sp++
		case compile.STOREFREE:
			sp--
			fr.cl.Free[ins>>8].V = stack[sp]
		case compile.NEG:
			v := &stack[sp-1]
			switch v.k {
			case IntKind:
				v.n = uint64(-int64(v.n))
			case FloatKind:
				*v = Float(-v.Float())
			default:
				err = vm.errorf("bad operand type for unary -: %s", v.TypeName())
				goto fail
			}
		case compile.NOT:
			stack[sp-1] = Bool(!stack[sp-1].Truth())
		case compile.JUMPFALSEKEEP:
			if !stack[sp-1].Truth() {
				pc = int(ins >> 8)
			} else {
				sp--
			}
		case compile.JUMPTRUEKEEP:
			if stack[sp-1].Truth() {
				pc = int(ins >> 8)
			} else {
				sp--
			}
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
		case compile.INDEX:
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
		case compile.NEXT:
			if stack[sp-1].k != iterKind {
				err = vm.errorf("invalid bytecode: no iterator for next")
				goto fail
			}
			it := stack[sp-1].iter()
			if it.kind == iterRange {
				if it.left > 0 { // a count, not a comparison: no overflow at the int64 limits
					it.left--
					stack[sp] = Value{k: IntKind, n: uint64(it.i)}
					it.i += it.step
					sp++
				} else {
					sp--
					pc = int(ins >> 8)
				}
			} else if k, v, ok := it.next(); ok {
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
		case compile.NOP:
		default:
			err = vm.errorf("invalid instruction %d at pc %d", ins, pc-1)
			goto fail
		}
		continue

	unfuse:
		// A superinstruction outside its fast case: run its first instruction as it is in
		// the program (the others follow one by one), counted as itself.
		acc += incTab[uint8(vm.orig[pc-1])] - incTab[uint8(ins)]
		ins = vm.orig[pc-1]
		goto dispatch

	fail:
		// The failing instruction is pc-1 of the top frame.
		fr.pc, vm.sp = pc-1, sp
		vm.flush(acc)
		return Nil, vm.raise(err)
	}
}

// nextRange is the next int of a range iterator, or false (another iterator, or the end):
// the fast case of next (small enough to be inlined in the fast loop).
func nextRange(v Value) (Value, bool) {
	if v.k == iterKind {
		if it := v.iter(); it.kind == iterRange && it.left > 0 {
			it.left--
			r := Value{k: IntKind, n: uint64(it.i)}
			it.i += it.step
			return r, true
		}
	}
	return Value{}, false
}

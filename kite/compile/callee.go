package compile

// Callee finds the instruction that pushed the function the CALL at code[call] calls, by
// walking back over the code of its arguments, so that a debugger can tell which function
// a call will enter before it runs. ok is false when the code alone does not tell: a jump,
// a jump target or an instruction that copies values is in the way.
func Callee(code []uint32, call int) (pc int, ok bool) {
	if call < 0 || call >= len(code) || Op(code[call]) != CALL {
		return 0, false
	}
	slot := Arg(code[call]) + 1 // the callee's place on the stack, 1 being the top
	for i := call - 1; i >= 0; i-- {
		op, arg := Op(code[i]), Arg(code[i])
		n := produces(op)
		switch {
		case n < 0:
			return 0, false
		case slot <= n && (n > 1 || jumpsInto(code, i, call)):
			return 0, false
		case slot <= n:
			return i, true
		}
		slot -= stackEffect(op, arg)
	}
	return 0, false
}

// produces is how many values on top of the stack an instruction made (a loaded value, a
// result, copies), the values below being those it left alone; -1 for one that jumps, ends
// a function or pushes a count of values only known at run time.
func produces(op Opcode) int {
	switch op {
	case NOP, POP, STORELOCAL, STORECELL, INITCELL, STOREFREE, STOREGLOBAL, DEFGLOBAL, SETINDEX:
		return 0
	case CONST, SMALLINT, NIL, TRUE, FALSE, LOADLOCAL, LOADCELL, LOADFREE, LOADGLOBAL,
		LOADBUILTIN, ADD, SUB, MUL, DIV, MOD, NEG, NOT, EQ, NE, LT, LE, GT, GE, CALL,
		MAKELIST, MAKEMAP, INDEX, CLOSURE, INTERP, ITER, ITER2, RANGEITER:
		return 1
	case DUP2:
		return 2
	}
	return -1
}

// jumpsInto reports whether a jump of code lands after from and at or before to: the stack
// there may then come from elsewhere.
func jumpsInto(code []uint32, from, to int) bool {
	for _, ins := range code {
		switch Op(ins) {
		case JUMP, LOOP, JUMPFALSE, JUMPFALSEKEEP, JUMPTRUEKEEP, NEXT:
			if t := Arg(ins); t > from && t <= to {
				return true
			}
		}
	}
	return false
}

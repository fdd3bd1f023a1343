// Package compile turns a Kite syntax tree into bytecode for the stack VM (kite/vm), with the
// line table and variable scopes a debugger needs.
package compile

import "fmt"

// Opcode is one VM operation. An instruction is a uint32: the opcode in the low 8 bits and a
// 24-bit argument above it (a slot, a count, a constant index or an absolute pc).
type Opcode uint8

const (
	NOP   Opcode = iota
	BREAK        // debugger trap: the original instruction is kept aside by the VM

	// Constants and stack.
	CONST    // push Consts[arg]
	SMALLINT // push int(arg), arg sign-extended from 24 bits
	NIL
	TRUE
	FALSE
	POP
	DUP2 // a b -> a b a b

	// Variables.
	LOADLOCAL   // push locals[arg]
	STORELOCAL  // locals[arg] = pop
	LOADCELL    // push locals[arg].cell.value
	STORECELL   // locals[arg].cell.value = pop
	INITCELL    // locals[arg] = new cell holding pop
	LOADFREE    // push closure.free[arg].value
	STOREFREE   // closure.free[arg].value = pop
	LOADGLOBAL  // push globals[arg]; error if undefined
	STOREGLOBAL // globals[arg] = pop; error if undefined
	DEFGLOBAL   // globals[arg] = pop (let, const, fn at top level)
	LOADBUILTIN // push builtins[arg]

	// Operators.
	ADD
	SUB
	MUL
	DIV
	MOD
	NEG
	NOT
	EQ
	NE
	LT
	LE
	GT
	GE

	// Control.
	JUMP          // pc = arg (forward)
	LOOP          // pc = arg (backward: a safe point where pause and budgets are checked)
	JUMPFALSE     // if !truth(pop) pc = arg
	JUMPFALSEKEEP // if !truth(top) pc = arg else pop   (and)
	JUMPTRUEKEEP  // if truth(top) pc = arg else pop    (or)
	CALL          // call with arg arguments: callee a1..an -> result
	RETURN        // return pop
	RETURNNIL     // return nil
	HALT          // end of the program

	// Containers and functions.
	MAKELIST  // arg items -> list
	MAKEMAP   // arg key/value pairs -> map
	INDEX     // x i -> x[i]
	SETINDEX  // x i v -> (x[i] = v)
	CLOSURE   // push a closure of Funcs[arg], capturing its free variables
	INTERP    // arg values -> the string of their printed forms joined
	ITER      // x -> iterator over x (list items, map keys, string chars)
	ITER2     // x -> iterator over (key, value) pairs of a map or (index, item) of a list
	RANGEITER // a b step -> iterator over range(a, b, step) without building a list
	NEXT      // iterator -> iterator item [item2], or pop the iterator and pc = arg when done

	NumOpcodes
)

var opNames = [...]string{
	NOP: "nop", BREAK: "break", CONST: "const", SMALLINT: "smallint", NIL: "nil", TRUE: "true",
	FALSE: "false", POP: "pop", DUP2: "dup2", LOADLOCAL: "loadlocal", STORELOCAL: "storelocal",
	LOADCELL: "loadcell", STORECELL: "storecell", INITCELL: "initcell", LOADFREE: "loadfree",
	STOREFREE: "storefree", LOADGLOBAL: "loadglobal", STOREGLOBAL: "storeglobal",
	DEFGLOBAL: "defglobal", LOADBUILTIN: "loadbuiltin", ADD: "add", SUB: "sub", MUL: "mul",
	DIV: "div", MOD: "mod", NEG: "neg", NOT: "not", EQ: "eq", NE: "ne", LT: "lt", LE: "le",
	GT: "gt", GE: "ge", JUMP: "jump", LOOP: "loop", JUMPFALSE: "jumpfalse",
	JUMPFALSEKEEP: "jumpfalsekeep", JUMPTRUEKEEP: "jumptruekeep", CALL: "call",
	RETURN: "return", RETURNNIL: "returnnil", HALT: "halt", MAKELIST: "makelist",
	MAKEMAP: "makemap", INDEX: "index", SETINDEX: "setindex", CLOSURE: "closure",
	INTERP: "interp", ITER: "iter", ITER2: "iter2", RANGEITER: "rangeiter", NEXT: "next",
}

func (op Opcode) String() string {
	if op < NumOpcodes && opNames[op] != "" {
		return opNames[op]
	}
	return fmt.Sprintf("op(%d)", op)
}

// Cycles is the documented cost of each opcode in console cycles (docs/kite.md has the
// table). Simple stack and arithmetic operations cost 1; calls, allocations and iteration
// cost more because they do more work.
var Cycles = [256]uint8{
	NOP: 1, BREAK: 0, CONST: 1, SMALLINT: 1, NIL: 1, TRUE: 1, FALSE: 1, POP: 1, DUP2: 1,
	LOADLOCAL: 1, STORELOCAL: 1, LOADCELL: 2, STORECELL: 2, INITCELL: 3, LOADFREE: 2,
	STOREFREE: 2, LOADGLOBAL: 2, STOREGLOBAL: 2, DEFGLOBAL: 2, LOADBUILTIN: 1,
	ADD: 1, SUB: 1, MUL: 2, DIV: 4, MOD: 4, NEG: 1, NOT: 1,
	EQ: 1, NE: 1, LT: 1, LE: 1, GT: 1, GE: 1,
	JUMP: 1, LOOP: 1, JUMPFALSE: 1, JUMPFALSEKEEP: 1, JUMPTRUEKEEP: 1,
	CALL: 5, RETURN: 2, RETURNNIL: 2, HALT: 1,
	MAKELIST: 4, MAKEMAP: 6, INDEX: 2, SETINDEX: 3, CLOSURE: 4, INTERP: 4,
	ITER: 3, ITER2: 3, RANGEITER: 3, NEXT: 2,
}

// Instruction encoding.
const (
	ArgBits = 24
	MaxArg  = 1<<ArgBits - 1
)

// Encode packs an opcode and its argument into one instruction word.
func Encode(op Opcode, arg int) uint32 { return uint32(op) | uint32(arg)<<8 }

// Op returns an instruction's opcode.
func Op(ins uint32) Opcode { return Opcode(ins) }

// Arg returns an instruction's unsigned argument.
func Arg(ins uint32) int { return int(ins >> 8) }

// SignedArg returns an instruction's argument sign-extended from 24 bits (SMALLINT).
func SignedArg(ins uint32) int { return int(int32(ins) >> 8) }

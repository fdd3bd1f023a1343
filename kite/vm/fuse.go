package vm

import "github.com/polydbg/polydbg/kite/compile"

// Superinstructions: common short sequences of instructions (a local and a small int
// through an operator, a comparison and its branch, an operator and the store of its
// result) run as one dispatch of the interpreter loop. They exist only in the VM's live
// code: when the VM loads a program, the first instruction of each sequence gets a fused
// opcode (above compile.NumOpcodes) and keeps its argument (a sequence headed by a local or
// a global that goes through an operator also keeps the operator, in the word's top byte:
// see packed in fuseAt); the other instructions stay in place. So pcs, the line table, a jump into the middle of a sequence, Steps and Cycles
// (a fused instruction counts every instruction it stands for) and the disassembly are the
// same as without fusion. A fused instruction runs only the fast case (int operands); any
// other case runs the original instructions one by one. A fused word is live only while no
// instruction after the first of its sequence is trapped: patch re-decides the words a trap
// covers, so a breakpoint or a step stops at every pc it would stop at without fusion.
const (
	fLL   = compile.NumOpcodes + iota // loadlocal a; loadlocal b
	fLKB                              // loadlocal a; smallint k; BIN
	fLLB                              // loadlocal a; loadlocal b; BIN
	fKB                               // smallint k; BIN
	fLB                               // loadlocal a; BIN
	fBS                               // BIN; storelocal b           (the word's argument is BIN)
	fLKBS                             // loadlocal a; smallint k; BIN; storelocal b
	fLLBS                             // loadlocal a; loadlocal b; BIN; storelocal c
	fCJ                               // CMP; jumpfalse t            (the word's argument is CMP)
	fKCJ                              // smallint k; CMP; jumpfalse t
	fLKCJ                             // loadlocal a; smallint k; CMP; jumpfalse t
	fLLCJ                             // loadlocal a; loadlocal b; CMP; jumpfalse t
	fNS                               // next t; storelocal b        (range iterators)
	fLR                               // loadlocal a; return
	fBR                               // BIN; return                 (the word's argument is BIN)
	fGLKB                             // loadglobal g; loadlocal a; smallint k; BIN
	numFused
)

// fusedLen is the number of instructions a fused opcode stands for (0: not fused).
var fusedLen = [256]uint8{
	fLL: 2, fLKB: 3, fLLB: 3, fKB: 2, fLB: 2, fBS: 2, fLKBS: 4, fLLBS: 4,
	fCJ: 2, fKCJ: 3, fLKCJ: 4, fLLCJ: 4, fNS: 2, fLR: 2, fBR: 2, fGLKB: 4,
}

// maxFused is the longest sequence.
const maxFused = 4

// headOp maps a fused opcode to the opcode of its first instruction, and any other opcode to
// itself (fBS, fCJ and fBR start with an operator, kept in their argument).
var headOp = func() (t [256]compile.Opcode) {
	for i := range t {
		t[i] = compile.Opcode(i)
	}
	t[fLL], t[fLKB], t[fLLB], t[fLB], t[fLKBS], t[fLLBS] = compile.LOADLOCAL, compile.LOADLOCAL, compile.LOADLOCAL, compile.LOADLOCAL, compile.LOADLOCAL, compile.LOADLOCAL
	t[fLKCJ], t[fLLCJ] = compile.LOADLOCAL, compile.LOADLOCAL
	t[fKB], t[fKCJ] = compile.SMALLINT, compile.SMALLINT
	t[fNS], t[fLR], t[fGLKB] = compile.NEXT, compile.LOADLOCAL, compile.LOADGLOBAL
	t[fBS], t[fCJ], t[fBR] = compile.NOP, compile.NOP, compile.NOP
	return t
}()

// incTab[op] adds one step and op's cycles to the loop's packed counter. A fused opcode
// counts its first instruction (fBS, fCJ, fBR count nothing: their operator varies); the case
// that runs it adds the rest. BREAK counts nothing: the instruction it covers is counted.
var incTab = func() (t [256]uint64) {
	for op, c := range compile.Cycles {
		t[op] = 1<<32 | uint64(c)
	}
	t[compile.BREAK] = 0
	for op := compile.Opcode(compile.NumOpcodes); op < numFused; op++ {
		if h := headOp[op]; h != compile.NOP {
			t[op] = t[h]
		} else {
			t[op] = 0
		}
	}
	return t
}()

// binOp is the operator of a live word that is part of a sequence at an operator's place:
// the operator itself, or a sequence that starts with it (fBS, fCJ keep it in their argument).
func binOp(w uint32) compile.Opcode {
	if op := compile.Opcode(w); op < compile.NumOpcodes {
		return op
	}
	return compile.Opcode(w >> 8)
}

func isBin(op compile.Opcode) bool {
	switch op {
	case compile.ADD, compile.SUB, compile.MUL, compile.DIV, compile.MOD:
		return true
	}
	return isCmp(op)
}

func isCmp(op compile.Opcode) bool {
	switch op {
	case compile.LT, compile.LE, compile.GT, compile.GE, compile.EQ, compile.NE:
		return true
	}
	return false
}

// fuse returns the fused words of a program's code: code[pc] where no sequence starts at
// pc. Sequences never cross the end of a function.
func fuse(p *compile.Program) []uint32 {
	out := append([]uint32(nil), p.Code...)
	for _, f := range p.Funcs {
		for pc := f.Entry; pc < f.End; pc++ {
			out[pc] = fuseAt(p.Code[pc:f.End])
		}
	}
	return out
}

// fuseAt returns the word for code[0]: fused if a sequence starts there.
func fuseAt(code []uint32) uint32 {
	op := func(i int) compile.Opcode {
		if i < len(code) {
			if o := compile.Op(code[i]); o != compile.LOADLOCAL || code[i]>>8 < 1<<16 {
				return o
			}
		}
		// a local from 65,536 on is in no sequence: the fast loop reads a loadlocal's index
		// in a sequence as 16 bits (a packed word keeps its operator above them)
		return compile.NOP
	}
	word := func(f compile.Opcode) uint32 { return uint32(f) | code[0]&^0xff }
	// packed keeps the operator at code[i] in the word's top byte, beside an argument of
	// 16 bits (a local's or a global's index): the fast loop reads both from one word.
	packed := func(f compile.Opcode, i int) uint32 {
		if code[0]>>8 >= 1<<16 {
			return code[0]
		}
		return uint32(f) | code[0]&^0xff | uint32(op(i))<<24
	}
	binWord := func(f compile.Opcode) uint32 { return uint32(f) | uint32(op(0))<<8 }
	switch op(0) {
	case compile.LOADLOCAL:
		switch {
		case op(1) == compile.RETURN:
			return word(fLR)
		case op(1) == compile.SMALLINT && isCmp(op(2)) && op(3) == compile.JUMPFALSE:
			return packed(fLKCJ, 2)
		case op(1) == compile.LOADLOCAL && isCmp(op(2)) && op(3) == compile.JUMPFALSE:
			return packed(fLLCJ, 2)
		case op(1) == compile.SMALLINT && isBin(op(2)) && op(3) == compile.STORELOCAL:
			return packed(fLKBS, 2)
		case op(1) == compile.LOADLOCAL && isBin(op(2)) && op(3) == compile.STORELOCAL:
			return packed(fLLBS, 2)
		case op(1) == compile.SMALLINT && isBin(op(2)):
			return packed(fLKB, 2)
		case op(1) == compile.LOADLOCAL && isBin(op(2)):
			return packed(fLLB, 2)
		case isBin(op(1)):
			return packed(fLB, 1)
		case op(1) == compile.LOADLOCAL:
			return word(fLL)
		}
	case compile.SMALLINT:
		switch {
		case isCmp(op(1)) && op(2) == compile.JUMPFALSE:
			return word(fKCJ)
		case isBin(op(1)):
			return word(fKB)
		}
	case compile.LOADGLOBAL:
		if op(1) == compile.LOADLOCAL && op(2) == compile.SMALLINT && isBin(op(3)) {
			return packed(fGLKB, 3)
		}
	case compile.NEXT:
		if op(1) == compile.STORELOCAL {
			return word(fNS)
		}
	default:
		switch {
		case isCmp(op(0)) && op(1) == compile.JUMPFALSE:
			return binWord(fCJ)
		case isBin(op(0)) && op(1) == compile.STORELOCAL:
			return binWord(fBS)
		case isBin(op(0)) && op(1) == compile.RETURN:
			return binWord(fBR)
		}
	}
	return code[0]
}

// liveWord is the word the live code holds at a program pc: a trap, the fused word if no
// instruction it covers after the first is trapped, or the original instruction.
func (vm *VM) liveWord(pc int) uint32 {
	if vm.trapped(pc) {
		return compile.Encode(compile.BREAK, 0)
	}
	w := vm.fused[pc]
	for k := 1; k < int(fusedLen[uint8(w)]); k++ {
		if vm.trapped(pc + k) {
			return vm.orig[pc]
		}
	}
	return w
}

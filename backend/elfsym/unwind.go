package elfsym

import (
	"debug/elf"
	"fmt"
	"maps"
	"sync"
)

// Frame is one frame of a backtrace.
type Frame struct {
	Index int
	// PC is the frame's pc at run time: the current pc for frame 0 and for a frame an
	// exception interrupted, the return address for the other callers (its source position
	// is looked up at PC-1, the call).
	PC   uint64
	CFA  uint64 // canonical frame address (0 when unknown)
	Func *Func  // nil when no function covers the pc
	Loc  Location
	// Interrupted is set when a Cortex-M exception interrupted this frame: the frame above
	// it is the exception handler (gdb shows "<signal handler called>" between them).
	Interrupted bool
	// Dummy is set on the frame a debugger's call of a function made (gdb's "<function
	// called from gdb>"): the frames below it are the caller's, unwound from the registers
	// before the call.
	Dummy bool
	// TailCall is set on the frame of a function that ended with a jump to the function of
	// the frame above it (tailcalls.go): its own frame is gone, its pc is the jump's return
	// address, its registers its caller's.
	TailCall bool
	// Library is the shared library whose code the frame runs ("" for the program's own),
	// LibraryPath the file read for it, and Symbol its function there, by the library's
	// symbols, starting at SymbolAddr.
	Library, LibraryPath, Symbol string
	SymbolAddr                   uint64
	regs                         *regSet
	lookup                       uint64        // run-time pc to look up: PC, or PC-1 for a caller
	inline                       *Inline       // the inlined copy this frame is (nil for a function's own frame)
	caller                       *Frame        // the frame of the function that called this frame's function
	more                         func() *Frame // finds caller when the unwind stopped at this frame
}

// LookupPC is where the frame's source position and variables are looked up: its pc, or
// for a caller the call before the return address.
func (fr *Frame) LookupPC() uint64 {
	if fr.lookup == 0 {
		return fr.PC
	}
	return fr.lookup
}

// Inline is the inlined copy of a function this frame stands for (nil for a frame of a
// function's own code).
func (fr *Frame) Inline() *Inline { return fr.inline }

// Name is the frame's function as a backtrace shows it: the inlined copy's function, else
// the function's ("" when no function covers the pc).
func (fr *Frame) Name() string {
	switch {
	case fr.inline != nil:
		return fr.inline.Name
	case fr.Func != nil:
		return fr.Func.Name
	}
	return fr.Symbol
}

// Register returns the value of a DWARF register in this frame, where it is known.
func (fr *Frame) Register(n int) (uint64, bool) { return fr.regs.Register(n) }

// Regs returns the registers known in this frame, by DWARF number (each of the
// architecture's read, where a frame reads them lazily).
func (fr *Frame) Regs() map[int]uint64 { return fr.regs.all() }

// regSet is a frame's registers by DWARF number: those its unwinding set, and where the
// others are read when first asked for, the frame below's (a register the call kept) or,
// for the innermost frame, the target's. A step unwinds a frame or two by the stack and
// frame pointers, which a stub sends with its stop: reading every register at once made
// it ask for all of them (gdbserver's 'g', a third of a native step's time).
type regSet struct {
	mu    sync.Mutex // a frame's registers are read from several goroutines (a stop's frames are shared)
	known map[int]uint64
	gone  map[int]bool // undefined in this frame (a rule of the call frame information)
	from  Registers    // where one neither known nor gone is read; nil: nowhere
	names int          // how many registers the architecture names (all's range)
}

// newRegSet is a register set read from from (nil: only what is set) lazily.
func newRegSet(from Registers, names int) *regSet {
	return &regSet{known: map[int]uint64{}, from: from, names: names}
}

// regsOf is a register set of fixed values.
func regsOf(m map[int]uint64) *regSet {
	r := newRegSet(nil, 0)
	for n, v := range m {
		r.known[n] = v
		r.names = max(r.names, n+1)
	}
	return r
}

// Register implements Registers.
func (r *regSet) Register(n int) (uint64, bool) {
	if r == nil {
		return 0, false
	}
	r.mu.Lock()
	v, ok := r.known[n]
	unknown := !ok && !r.gone[n] && r.from != nil
	r.mu.Unlock()
	if !unknown {
		return v, ok
	}
	v, ok = r.from.Register(n) // (not under mu: from is another frame's, or the target)
	r.mu.Lock()
	if ok {
		r.known[n] = v
	} else {
		r.dropLocked(n)
	}
	r.mu.Unlock()
	return v, ok
}

func (r *regSet) set(n int, v uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.known[n] = v
	delete(r.gone, n)
}

func (r *regSet) drop(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropLocked(n)
}

func (r *regSet) dropLocked(n int) {
	delete(r.known, n)
	if r.gone == nil {
		r.gone = map[int]bool{}
	}
	r.gone[n] = true
}

// all reads every register the architecture names and returns those known (a copy).
func (r *regSet) all() map[int]uint64 {
	if r == nil {
		return nil
	}
	for n := range r.names {
		r.Register(n)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.known)
}

// Unwind walks the stack from the current registers: through CFI (.debug_frame /
// .eh_frame), through Cortex-M exception entries (EXC_RETURN in lr), and with a frame
// pointer or lr fallback where there is no CFI. It stops after main (like gdb), at an
// undefined return address, or after max frames.
func (f *File) Unwind(regs Registers, mem Memory, max int) ([]Frame, error) {
	a := f.Arch
	cur := newRegSet(regs, len(a.RegNames)) // read as asked for
	var psp uint64
	var havePSP bool
	if a.Machine == elf.EM_ARM {
		psp, havePSP = regs.Register(RegARMPSP)
	}
	pcReg := a.PC
	if pcReg < 0 {
		pcReg = a.RA // aarch64: the pc is not a DWARF register; the caller provides it as RA
	}
	pc, ok := cur.Register(pcReg)
	if !ok {
		return nil, fmt.Errorf("elfsym: unwind: no pc")
	}
	pc = f.clearThumb(pc)
	interrupted := false
	var frames []Frame
	var prevCFA uint64
	for i := 0; i < max; i++ {
		lookup := pc
		if i > 0 && !interrupted {
			lookup = pc - 1
		}
		fr := Frame{Index: i, PC: pc, regs: cur, Interrupted: interrupted, lookup: lookup}
		code := f // the file whose frame information describes this frame
		if lib := f.libraryAt(lookup); lib != nil {
			lf := lib.debugged()
			code, fr.Library, fr.LibraryPath = lf, lib.name(), lib.path
			fr.Symbol, fr.SymbolAddr = lib.symbolAt(lookup)
			fr.Loc = Location{Function: fr.Symbol}
			if fn := lf.FuncAt(lookup); fn != nil && lf.DWARF != nil {
				fr.Func = fn // a library with debug information: its functions and lines
				fr.Loc, _ = lf.PCToLine(lookup)
			}
		} else {
			fr.Func = f.FuncAt(lookup)
			fr.Loc, _ = f.PCToLine(lookup)
		}
		fr.Loc.PC = pc
		// main is the last frame shown: its CFA is all there is to know (no memory read for
		// its caller's registers, which a step in main would pay for).
		last := max == 1 || fr.Func != nil && fr.Func.Name == "main"
		caller, ra, cfa, ok := code.unwindStep(i, lookup, cur, mem, last)
		fr.CFA = cfa
		frames = append(frames, fr)
		if max == 1 {
			break
		}
		if !ok || ra == 0 || (fr.Func != nil && fr.Func.Name == "main") || f.plantedReturn(ra) {
			break
		}
		if a.Machine == elf.EM_ARM && ra >= 0xFFFFFFE0 {
			// EXC_RETURN: the caller is the code the exception interrupted; its registers
			// were stacked by the hardware on MSP (bit 2 clear) or PSP (bit 2 set).
			sp := cfa
			if ra&4 != 0 {
				if !havePSP {
					break
				}
				sp = psp
			}
			b, err := mem.ReadMemory(sp, 32)
			if err != nil || len(b) < 32 {
				break
			}
			w := func(k int) uint64 { return uint64(a.ByteOrder.Uint32(b[4*k:])) }
			for k, reg := range []int{0, 1, 2, 3, 12, 14} {
				caller.set(reg, w(k))
			}
			xpsr := w(7)
			size := uint64(0x20)
			if ra&0x10 == 0 {
				size = 0x68 // extended frame with the FP registers
			}
			if xpsr&(1<<9) != 0 {
				size += 4 // the hardware aligned the stack
			}
			caller.set(13, sp+size)
			pc = w(6) &^ 1
			caller.set(15, pc)
			interrupted = true
			prevCFA = 0
			cur = caller
			continue
		}
		if i > 0 && !interrupted && cfa != 0 && cfa <= prevCFA {
			break // the stack must grow towards the callers: stop a loop
		}
		prevCFA = cfa
		interrupted = false
		pc = f.clearThumb(ra)
		caller.set(pcReg, pc)
		cur = caller
	}
	out := f.expandInlines(f.insertTailCalls(frames))
	linkCallers(out)
	if max == 1 {
		// the innermost frame alone: its caller, for entry values, only when asked
		for i := range out {
			out[i].more = func() *Frame {
				fs, err := f.Unwind(regs, mem, 64)
				if err != nil || i >= len(fs) {
					return nil
				}
				return fs[i].caller
			}
		}
	}
	return out, nil
}

// unwindStep computes the caller's registers, the return address and the CFA of the frame
// whose registers are cur and whose pc (for lookup) is lookup.
// With cfaOnly it computes just the CFA (no memory is read for the caller's registers).
func (f *File) unwindStep(i int, lookup uint64, cur *regSet, mem Memory, cfaOnly bool) (caller *regSet, ra, cfa uint64, ok bool) {
	a := f.Arch
	caller = newRegSet(cur, cur.names) // what no rule changes: as the callee has it

	readPtr := func(addr uint64) (uint64, bool) {
		b, err := mem.ReadMemory(addr, a.PtrSize)
		if err != nil || len(b) < a.PtrSize {
			return 0, false
		}
		if a.PtrSize == 8 {
			return a.ByteOrder.Uint64(b), true
		}
		return uint64(a.ByteOrder.Uint32(b)), true
	}
	if fde := f.frames.find(lookup - f.Bias); fde != nil {
		row, err := f.frames.rowAt(fde, lookup-f.Bias)
		if err != nil {
			return nil, 0, 0, false
		}
		if row.cfa.expr != nil {
			v, err := f.evalExpr(row.cfa.expr, &exprEnv{regs: cur, mem: mem}, nil)
			if err != nil || v.Kind != LocMemory {
				return nil, 0, 0, false
			}
			cfa = v.Addr
		} else {
			base, ok := cur.Register(row.cfa.reg)
			if !ok {
				return nil, 0, 0, false
			}
			cfa = uint64(int64(base) + row.cfa.off)
		}
		if a.PtrSize == 4 {
			cfa &= 0xffffffff
		}
		if cfaOnly {
			return caller, 0, cfa, false
		}
		raUndefined := false
		for reg, rule := range row.regs {
			switch rule.kind {
			case ruleUndefined:
				caller.drop(reg)
				if reg == row.ra {
					raUndefined = true
				}
			case ruleSame, ruleUndefinedDefault:
			case ruleOffset:
				v, ok := readPtr(uint64(int64(cfa) + rule.off))
				if !ok {
					return nil, 0, 0, false
				}
				caller.set(reg, v)
			case ruleValOffset:
				caller.set(reg, uint64(int64(cfa)+rule.off))
			case ruleRegister:
				if v, ok := cur.Register(rule.reg); ok {
					caller.set(reg, v)
				} else {
					caller.drop(reg)
				}
			case ruleExpr, ruleValExpr:
				l, err := f.evalExpr(rule.expr, &exprEnv{regs: cur, mem: mem}, []uint64{cfa})
				if err != nil {
					caller.drop(reg)
					continue
				}
				if rule.kind == ruleValExpr {
					caller.set(reg, l.Addr)
				} else if v, ok := readPtr(l.Addr); ok {
					caller.set(reg, v)
				}
			}
		}
		if raUndefined {
			return caller, 0, cfa, false
		}
		ra, ok = caller.Register(row.ra)
		if !ok {
			return caller, 0, cfa, false
		}
		caller.set(a.SP, cfa)
		return caller, ra, cfa, true
	}
	// No CFI.
	switch a.Machine {
	case elf.EM_ARM:
		if i == 0 { // a leaf: the return address is still in lr
			ra, ok = cur.Register(14)
			sp, _ := cur.Register(13)
			return caller, ra, sp, ok
		}
	case elf.EM_X86_64, elf.EM_386:
		if f.isLibrary && i == 0 {
			// Library code between CFI regions (right after a syscall, as in clone3)
			// has pushed nothing: the return address is at the top of the stack.
			sp, _ := cur.Register(a.SP)
			if ra, ok = readPtr(sp); !ok {
				return nil, 0, 0, false
			}
			caller.set(a.SP, sp+uint64(a.PtrSize))
			return caller, ra, sp + uint64(a.PtrSize), true
		}
		fp, ok := cur.Register(a.FP)
		if !ok || fp == 0 {
			return nil, 0, 0, false
		}
		savedFP, ok1 := readPtr(fp)
		ra, ok2 := readPtr(fp + uint64(a.PtrSize))
		if !ok1 || !ok2 {
			return nil, 0, 0, false
		}
		cfa = fp + 2*uint64(a.PtrSize)
		caller.set(a.FP, savedFP)
		caller.set(a.SP, cfa)
		return caller, ra, cfa, true
	}
	return nil, 0, 0, false
}

// plantedReturn reports whether the return address ra is one an RTOS plants at the bottom
// of a task's stack rather than a call's: FreeRTOS's portTASK_RETURN_ADDRESS,
// prvTaskExitError's first instruction. The task function is then the outermost frame, as
// gdb's "backtrace past-entry" rule ends it (a caller looked up at ra-1 would be the
// unrelated function before prvTaskExitError).
func (f *File) plantedReturn(ra uint64) bool {
	fn := f.FuncAt(ra)
	return fn != nil && fn.Name == "prvTaskExitError" && fn.Low+f.Bias == f.clearThumb(ra)
}

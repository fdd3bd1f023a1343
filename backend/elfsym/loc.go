package elfsym

import (
	"fmt"
)

func (f *File) readUint(mem Memory, addr uint64, n int) (uint64, error) {
	if mem == nil {
		return 0, fmt.Errorf("elfsym: no memory here")
	}
	b, err := mem.ReadMemory(addr, n)
	if err != nil {
		return 0, err
	}
	if len(b) < n {
		return 0, fmt.Errorf("elfsym: short read at %#x", addr)
	}
	return uintFrom(b, f.Arch), nil
}

func uintFrom(b []byte, a *Arch) uint64 {
	var v uint64
	if a.ByteOrder.String() == "BigEndian" {
		for _, c := range b {
			v = v<<8 | uint64(c)
		}
		return v
	}
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// Locate evaluates the variable's location in frame fr (nil for globals). A variable
// that has no location at the frame's pc is LocOptimized.
func (f *File) Locate(v *Var, fr *Frame, mem Memory) (Loc, error) {
	if o := f.fileOfVar(v); o != f {
		return o.Locate(v, fr, mem)
	}
	var pc uint64
	if fr != nil {
		pc = f.clearThumb(fr.LookupPC() - f.Bias) // for a caller, where the call is
	}
	expr, err := f.locExpr(v, pc)
	if err != nil {
		return Loc{}, fmt.Errorf("elfsym: %s: %w", v.Name, err)
	}
	if expr == nil {
		return Loc{Kind: LocOptimized}, nil
	}
	return f.evalExpr(expr, f.frameEnv(fr, mem, v.cu, v.fn, 0), nil)
}

// frameEnv is what an expression evaluated in frame fr (nil for none) of function fn can
// use: its registers, the memory, its CFA and frame base, and the values its function's
// parameters had on entry (depth counts the callers already asked, for DW_OP_entry_value).
func (f *File) frameEnv(fr *Frame, mem Memory, cu *cuInfo, fn *Func, depth int) *exprEnv {
	env := &exprEnv{mem: mem, cu: cu}
	if fr != nil {
		env.entryValue = func(sub []byte) (uint64, error) { return f.entryValue(fr, mem, sub, depth) }
		env.regs = fr
		cfa := fr.CFA
		env.cfa = func() (uint64, error) {
			if cfa == 0 {
				return 0, fmt.Errorf("elfsym: the frame's CFA is unknown")
			}
			return cfa, nil
		}
		if fn != nil && fn.frameBase != nil {
			fb := fn.frameBase
			env.frameBase = func() (uint64, error) {
				l, err := f.evalExpr(fb, &exprEnv{regs: fr, mem: mem, cfa: env.cfa, cu: cu}, nil)
				if err != nil {
					return 0, err
				}
				switch l.Kind {
				case LocRegister:
					r, ok := fr.Register(l.Reg)
					if !ok {
						return 0, fmt.Errorf("elfsym: frame base register %d unknown", l.Reg)
					}
					return r, nil
				case LocMemory:
					return l.Addr, nil
				}
				return 0, fmt.Errorf("%w: frame base", ErrUnsupportedExpr)
			}
		}
	}
	return env
}

// StaticLoc is where a variable lives at a given pc, as a register plus an offset, without
// reading the target: what a breakpoint condition evaluated by a stub needs.
type StaticLoc struct {
	InReg  bool  // the value is DWARF register Reg
	Reg    int   // DWARF register, -1 for an absolute address
	Offset int64 // address = Reg's value + Offset (or Offset alone)
}

// StaticLocation computes v's location at the run-time pc from its location expression,
// the function's frame base and the CFI rule for the CFA at pc. Only the simple forms gcc
// emits without optimisation are handled (DW_OP_addr, DW_OP_fbreg over DW_OP_call_frame_cfa
// or a register, DW_OP_breg*, DW_OP_reg*).
func (f *File) StaticLocation(v *Var, pc uint64) (StaticLoc, error) {
	if o := f.fileOfVar(v); o != f {
		return o.StaticLocation(v, pc)
	}
	if v.fn != nil && f.FuncAt(pc) != v.fn {
		return StaticLoc{}, fmt.Errorf("elfsym: %s is not visible at %#x", v.Name, pc)
	}
	expr, err := f.locExpr(v, f.clearThumb(pc-f.Bias))
	if err != nil {
		return StaticLoc{}, fmt.Errorf("elfsym: %s: %w", v.Name, err)
	}
	l, err := f.staticExpr(expr, v.fn, pc)
	if err != nil {
		return l, fmt.Errorf("elfsym: %s: %w", v.Name, err)
	}
	return l, nil
}

func (f *File) staticExpr(expr []byte, fn *Func, pc uint64) (StaticLoc, error) {
	if len(expr) == 0 {
		return StaticLoc{}, fmt.Errorf("no location")
	}
	r := &cfiReader{b: expr, order: f.Arch.ByteOrder}
	op := r.u8()
	var out StaticLoc
	switch {
	case op == 0x03:
		out = StaticLoc{Reg: -1, Offset: int64(r.addr(f.Arch.PtrSize) + f.Bias)}
	case op >= 0x50 && op <= 0x6f:
		out = StaticLoc{InReg: true, Reg: int(op - 0x50)}
	case op == 0x90:
		out = StaticLoc{InReg: true, Reg: int(r.uleb())}
	case op >= 0x70 && op <= 0x8f:
		out = StaticLoc{Reg: int(op - 0x70), Offset: r.sleb()}
	case op == 0x92:
		reg := int(r.uleb())
		out = StaticLoc{Reg: reg, Offset: r.sleb()}
	case op == 0x9c:
		fde := f.frames.find(f.clearThumb(pc - f.Bias))
		if fde == nil {
			return out, fmt.Errorf("no CFI at %#x", pc)
		}
		row, err := f.frames.rowAt(fde, f.clearThumb(pc-f.Bias))
		if err != nil || row.cfa.expr != nil {
			return out, fmt.Errorf("CFA at %#x is not register+offset", pc)
		}
		out = StaticLoc{Reg: row.cfa.reg, Offset: row.cfa.off}
	case op == 0x91:
		off := r.sleb()
		if fn == nil || fn.frameBase == nil {
			return out, fmt.Errorf("no frame base")
		}
		fb, err := f.staticExpr(fn.frameBase, fn, pc)
		if err != nil {
			return out, err
		}
		if fb.InReg {
			fb = StaticLoc{Reg: fb.Reg}
		}
		out = StaticLoc{Reg: fb.Reg, Offset: fb.Offset + off}
	default:
		return out, fmt.Errorf("%w: opcode %#x", ErrUnsupportedExpr, op)
	}
	if r.err != nil || r.pos != len(expr) {
		return StaticLoc{}, fmt.Errorf("%w: not a simple location", ErrUnsupportedExpr)
	}
	return out, nil
}

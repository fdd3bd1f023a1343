package elfsym

import (
	"errors"
	"fmt"
)

// LocKind says where a DWARF location expression puts a value.
type LocKind int

const (
	LocMemory   LocKind = iota // at Addr
	LocRegister                // in DWARF register Reg
	LocValue                   // the value itself (DW_OP_stack_value / implicit_value)
)

// Loc is the result of a location expression.
type Loc struct {
	Kind  LocKind
	Addr  uint64 // LocMemory; the value for LocValue
	Reg   int
	Bytes []byte // DW_OP_implicit_value
}

// ErrUnsupportedExpr is wrapped for location expressions outside what the evaluator knows.
var ErrUnsupportedExpr = errors.New("elfsym: unsupported DWARF expression")

type exprEnv struct {
	regs      Registers
	mem       Memory
	frameBase func() (uint64, error)
	cfa       func() (uint64, error)
}

// evalExpr evaluates a DWARF expression. initial is pushed first (the CFA for CFI rules).
func (f *File) evalExpr(expr []byte, env *exprEnv, initial []uint64) (Loc, error) {
	a := f.Arch
	stack := append([]uint64(nil), initial...)
	r := &cfiReader{b: expr, order: a.ByteOrder}
	pop := func() (uint64, error) {
		if len(stack) == 0 {
			return 0, fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
		}
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v, nil
	}
	reg := func(n int) (uint64, error) {
		if env.regs == nil {
			return 0, fmt.Errorf("elfsym: register %d is not available here", n)
		}
		v, ok := env.regs.Register(n)
		if !ok {
			return 0, fmt.Errorf("elfsym: register %s (%d) is not available in this frame", a.RegName(n), n)
		}
		return v, nil
	}
	mask := func(v uint64) uint64 {
		if a.PtrSize == 4 {
			return v & 0xffffffff
		}
		return v
	}
	for r.pos < len(expr) {
		op := r.u8()
		switch {
		case op >= 0x30 && op <= 0x4f: // lit0..31
			stack = append(stack, uint64(op-0x30))
			continue
		case op >= 0x50 && op <= 0x6f: // reg0..31
			if r.pos == len(expr) {
				return Loc{Kind: LocRegister, Reg: int(op - 0x50)}, nil
			}
			return Loc{}, fmt.Errorf("%w: register pieces", ErrUnsupportedExpr)
		case op >= 0x70 && op <= 0x8f: // breg0..31
			off := r.sleb()
			v, err := reg(int(op - 0x70))
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, mask(uint64(int64(v)+off)))
			continue
		}
		switch op {
		case 0x03: // addr
			stack = append(stack, r.addr(a.PtrSize)+f.Bias)
		case 0x06: // deref
			addr, err := pop()
			if err != nil {
				return Loc{}, err
			}
			v, err := f.readUint(env.mem, addr, a.PtrSize)
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, v)
		case 0x94: // deref_size
			n := int(r.u8())
			addr, err := pop()
			if err != nil {
				return Loc{}, err
			}
			v, err := f.readUint(env.mem, addr, n)
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, v)
		case 0x08:
			stack = append(stack, uint64(r.u8()))
		case 0x09:
			stack = append(stack, uint64(int64(int8(r.u8()))))
		case 0x0a:
			stack = append(stack, r.u16())
		case 0x0b:
			stack = append(stack, uint64(int64(int16(r.u16()))))
		case 0x0c:
			stack = append(stack, r.u32())
		case 0x0d:
			stack = append(stack, uint64(int64(int32(r.u32()))))
		case 0x0e, 0x0f:
			stack = append(stack, r.u64())
		case 0x10:
			stack = append(stack, r.uleb())
		case 0x11:
			stack = append(stack, uint64(r.sleb()))
		case 0x12: // dup
			if len(stack) == 0 {
				return Loc{}, fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
			}
			stack = append(stack, stack[len(stack)-1])
		case 0x13: // drop
			if _, err := pop(); err != nil {
				return Loc{}, err
			}
		case 0x14: // over
			if len(stack) < 2 {
				return Loc{}, fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
			}
			stack = append(stack, stack[len(stack)-2])
		case 0x16: // swap
			if len(stack) < 2 {
				return Loc{}, fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
			}
			n := len(stack)
			stack[n-1], stack[n-2] = stack[n-2], stack[n-1]
		case 0x1a, 0x1c, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x27: // and minus mul or plus shl shr xor
			b, err := pop()
			if err != nil {
				return Loc{}, err
			}
			x, err := pop()
			if err != nil {
				return Loc{}, err
			}
			var v uint64
			switch op {
			case 0x1a:
				v = x & b
			case 0x1c:
				v = x - b
			case 0x1e:
				v = x * b
			case 0x21:
				v = x | b
			case 0x22:
				v = x + b
			case 0x24:
				v = x << b
			case 0x25:
				v = x >> b
			case 0x27:
				v = x ^ b
			}
			stack = append(stack, mask(v))
		case 0x1f: // neg
			x, err := pop()
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, mask(-x))
		case 0x23: // plus_uconst
			x, err := pop()
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, mask(x+r.uleb()))
		case 0x90: // regx
			n := int(r.uleb())
			if r.pos == len(expr) {
				return Loc{Kind: LocRegister, Reg: n}, nil
			}
			return Loc{}, fmt.Errorf("%w: register pieces", ErrUnsupportedExpr)
		case 0x91: // fbreg
			off := r.sleb()
			if env.frameBase == nil {
				return Loc{}, fmt.Errorf("elfsym: no frame base here")
			}
			fb, err := env.frameBase()
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, mask(uint64(int64(fb)+off)))
		case 0x92: // bregx
			n := int(r.uleb())
			off := r.sleb()
			v, err := reg(n)
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, mask(uint64(int64(v)+off)))
		case 0x96: // nop
		case 0x9c: // call_frame_cfa
			if env.cfa == nil {
				return Loc{}, fmt.Errorf("elfsym: no CFA here")
			}
			v, err := env.cfa()
			if err != nil {
				return Loc{}, err
			}
			stack = append(stack, v)
		case 0x9e: // implicit_value
			n := r.uleb()
			return Loc{Kind: LocValue, Bytes: r.bytes(int(n))}, r.err
		case 0x9f: // stack_value
			v, err := pop()
			if err != nil {
				return Loc{}, err
			}
			return Loc{Kind: LocValue, Addr: v}, nil
		default:
			return Loc{}, fmt.Errorf("%w: opcode %#x", ErrUnsupportedExpr, op)
		}
		if r.err != nil {
			return Loc{}, fmt.Errorf("%w: truncated", ErrUnsupportedExpr)
		}
	}
	if len(stack) == 0 {
		return Loc{}, fmt.Errorf("%w: empty location (optimized out)", ErrUnsupportedExpr)
	}
	return Loc{Kind: LocMemory, Addr: stack[len(stack)-1]}, nil
}

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

// Locate evaluates the variable's location in frame fr (nil for globals).
func (f *File) Locate(v *Var, fr *Frame, mem Memory) (Loc, error) {
	if v.loc == nil {
		return Loc{}, fmt.Errorf("elfsym: %s has no location (optimized out)", v.Name)
	}
	env := &exprEnv{mem: mem}
	if fr != nil {
		env.regs = fr
		cfa := fr.CFA
		env.cfa = func() (uint64, error) {
			if cfa == 0 {
				return 0, fmt.Errorf("elfsym: the frame's CFA is unknown")
			}
			return cfa, nil
		}
		if v.fn != nil && v.fn.frameBase != nil {
			fb := v.fn.frameBase
			env.frameBase = func() (uint64, error) {
				l, err := f.evalExpr(fb, &exprEnv{regs: fr, mem: mem, cfa: env.cfa}, nil)
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
	return f.evalExpr(v.loc, env, nil)
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
	if v.fn != nil && f.FuncAt(pc) != v.fn {
		return StaticLoc{}, fmt.Errorf("elfsym: %s is not visible at %#x", v.Name, pc)
	}
	l, err := f.staticExpr(v.loc, v.fn, pc)
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

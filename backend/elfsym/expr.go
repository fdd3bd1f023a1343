package elfsym

// The DWARF expression stack machine (DWARF 5 section 2.5 and 2.6, with the GNU
// extensions GCC emits): what polydbg needs that Go's debug/dwarf does not do. It
// evaluates location descriptions to memory, register, implicit value, implicit pointer
// and composite (DW_OP_piece) locations, on a target reached through Memory and Registers.

import (
	"errors"
	"fmt"
)

// LocKind says where a DWARF location expression puts a value.
type LocKind int

const (
	LocMemory          LocKind = iota // at Addr
	LocRegister                       // in DWARF register Reg
	LocValue                          // the value itself (DW_OP_stack_value / implicit_value)
	LocPieces                         // in parts (DW_OP_piece / bit_piece): Pieces
	LocOptimized                      // nowhere: <optimized out> (an empty description)
	LocImplicitPointer                // a pointer to a value that has no address (gdb's <synthetic pointer>)
)

// Loc is the result of a location expression.
type Loc struct {
	Kind   LocKind
	Addr   uint64 // LocMemory; the value for LocValue
	Reg    int
	Bytes  []byte  // DW_OP_implicit_value
	Pieces []Piece // LocPieces
}

// Piece is one part of a composite location: Size bytes (or BitSize bits) taken from Loc.
type Piece struct {
	Loc     Loc
	Size    int // bytes (0 for a bit piece)
	BitSize int
	BitOff  int
}

// ErrUnsupportedExpr is wrapped for location expressions outside what the evaluator knows.
var ErrUnsupportedExpr = errors.New("elfsym: unsupported DWARF expression")

// ThreadLocals is implemented by a Memory that can find thread-local storage (a __thread
// variable's location, DW_OP_form_tls_address): the address of the block of the module
// (a library's path, "" for the program) in the thread being looked at.
type ThreadLocals interface {
	ThreadLocalBlock(module string) (uint64, error)
}

// ErrNoThreadLocals is gdb's answer where a target cannot find thread-local storage.
var ErrNoThreadLocals = errors.New("Cannot find thread-local variables on this target")

// ErrOptimizedOut is wrapped when a variable has no location at the pc: gdb's
// <optimized out>.
var ErrOptimizedOut = errors.New("optimized out")

type exprEnv struct {
	regs      Registers
	mem       Memory
	frameBase func() (uint64, error)
	cfa       func() (uint64, error)
	cu        *cuInfo // for DW_OP_addrx / constx
	// entryValue is the value the DWARF expression sub (a register) had on entry to the
	// frame's function (DW_OP_entry_value), recovered from the caller's call site.
	entryValue func(sub []byte) (uint64, error)
}

// maxExprSteps bounds an evaluation: DW_OP_skip and DW_OP_bra can loop.
const maxExprSteps = 10000

// exprMachine is one evaluation.
type exprMachine struct {
	f      *File
	env    *exprEnv
	stack  []uint64
	pieces []Piece
	loc    *Loc // the location the last op described (reg, implicit), awaiting a piece
}

func (m *exprMachine) push(v uint64) { m.stack = append(m.stack, m.mask(v)) }

func (m *exprMachine) mask(v uint64) uint64 {
	if m.f.Arch.PtrSize == 4 {
		return v & 0xffffffff
	}
	return v
}

func (m *exprMachine) pop() (uint64, error) {
	if len(m.stack) == 0 {
		return 0, fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
	}
	v := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	return v, nil
}

func (m *exprMachine) reg(n int) (uint64, error) {
	if m.env.regs == nil {
		return 0, fmt.Errorf("elfsym: register %d is not available here", n)
	}
	v, ok := m.env.regs.Register(n)
	if !ok {
		return 0, fmt.Errorf("elfsym: register %s (%d) is not available in this frame", m.f.Arch.RegName(n), n)
	}
	return v, nil
}

// evalExpr evaluates a DWARF expression. initial is pushed first (the CFA for CFI rules).
func (f *File) evalExpr(expr []byte, env *exprEnv, initial []uint64) (Loc, error) {
	if len(expr) == 0 {
		return Loc{Kind: LocOptimized}, nil
	}
	m := &exprMachine{f: f, env: env, stack: append([]uint64(nil), initial...)}
	r := &cfiReader{b: expr, order: f.Arch.ByteOrder}
	for steps := 0; r.pos < len(expr); steps++ {
		if steps > maxExprSteps {
			return Loc{}, fmt.Errorf("%w: more than %d steps (a loop?)", ErrUnsupportedExpr, maxExprSteps)
		}
		if err := m.step(r); err != nil {
			return Loc{}, err
		}
		if r.err != nil {
			return Loc{}, fmt.Errorf("%w: truncated", ErrUnsupportedExpr)
		}
	}
	if m.pieces != nil {
		return Loc{Kind: LocPieces, Pieces: m.pieces}, nil
	}
	if m.loc != nil {
		return *m.loc, nil
	}
	if len(m.stack) == 0 {
		return Loc{Kind: LocOptimized}, nil
	}
	return Loc{Kind: LocMemory, Addr: m.stack[len(m.stack)-1]}, nil
}

// current is the location described so far, for a piece: the pending register or
// implicit location, else the top of the stack as an address, else nothing.
func (m *exprMachine) current() Loc {
	if m.loc != nil {
		l := *m.loc
		m.loc = nil
		return l
	}
	if len(m.stack) > 0 {
		v, _ := m.pop()
		return Loc{Kind: LocMemory, Addr: v}
	}
	return Loc{Kind: LocOptimized}
}

func (m *exprMachine) step(r *cfiReader) error {
	f, a := m.f, m.f.Arch
	op := r.u8()
	switch {
	case op >= 0x30 && op <= 0x4f: // lit0..31
		m.push(uint64(op - 0x30))
		return nil
	case op >= 0x50 && op <= 0x6f: // reg0..31
		m.loc = &Loc{Kind: LocRegister, Reg: int(op - 0x50)}
		return nil
	case op >= 0x70 && op <= 0x8f: // breg0..31
		off := r.sleb()
		v, err := m.reg(int(op - 0x70))
		if err != nil {
			return err
		}
		m.push(uint64(int64(v) + off))
		return nil
	}
	switch op {
	case 0x03: // addr
		m.push(r.addr(a.PtrSize) + f.Bias)
	case 0x06, 0x94: // deref, deref_size
		n := a.PtrSize
		if op == 0x94 {
			n = int(r.u8())
		}
		return m.deref(n)
	case 0xa6, 0xf6: // deref_type, GNU_deref_type
		n := int(r.u8())
		r.uleb()
		return m.deref(n)
	case 0x08:
		m.push(uint64(r.u8()))
	case 0x09:
		m.push(uint64(int64(int8(r.u8()))))
	case 0x0a:
		m.push(r.u16())
	case 0x0b:
		m.push(uint64(int64(int16(r.u16()))))
	case 0x0c:
		m.push(r.u32())
	case 0x0d:
		m.push(uint64(int64(int32(r.u32()))))
	case 0x0e, 0x0f:
		m.push(r.u64())
	case 0x10:
		m.push(r.uleb())
	case 0x11:
		m.push(uint64(r.sleb()))
	case 0x12: // dup
		return m.pick(0)
	case 0x13: // drop
		_, err := m.pop()
		return err
	case 0x14: // over
		return m.pick(1)
	case 0x15: // pick
		return m.pick(int(r.u8()))
	case 0x16: // swap
		if len(m.stack) < 2 {
			return fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
		}
		n := len(m.stack)
		m.stack[n-1], m.stack[n-2] = m.stack[n-2], m.stack[n-1]
	case 0x17: // rot
		if len(m.stack) < 3 {
			return fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
		}
		n := len(m.stack)
		m.stack[n-1], m.stack[n-2], m.stack[n-3] = m.stack[n-2], m.stack[n-3], m.stack[n-1]
	case 0x19, 0x1f, 0x20: // abs, neg, not
		x, err := m.pop()
		if err != nil {
			return err
		}
		switch op {
		case 0x19:
			if m.signed(x) < 0 {
				x = -x
			}
		case 0x1f:
			x = -x
		default:
			x = ^x
		}
		m.push(x)
	case 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x21, 0x22, 0x24, 0x25, 0x26, 0x27,
		0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e:
		return m.binary(op)
	case 0x23: // plus_uconst
		x, err := m.pop()
		if err != nil {
			return err
		}
		m.push(x + r.uleb())
	case 0x2f: // skip
		return m.jump(r, int16(r.u16()))
	case 0x28: // bra
		off := int16(r.u16())
		x, err := m.pop()
		if err != nil {
			return err
		}
		if x != 0 {
			return m.jump(r, off)
		}
	case 0x90: // regx
		m.loc = &Loc{Kind: LocRegister, Reg: int(r.uleb())}
	case 0x91: // fbreg
		off := r.sleb()
		if m.env.frameBase == nil {
			return fmt.Errorf("elfsym: no frame base here")
		}
		fb, err := m.env.frameBase()
		if err != nil {
			return err
		}
		m.push(uint64(int64(fb) + off))
	case 0x92: // bregx
		n := int(r.uleb())
		off := r.sleb()
		v, err := m.reg(n)
		if err != nil {
			return err
		}
		m.push(uint64(int64(v) + off))
	case 0x93: // piece
		m.pieces = append(m.pieces, Piece{Loc: m.current(), Size: int(r.uleb())})
	case 0x9d: // bit_piece
		size, off := int(r.uleb()), int(r.uleb())
		m.pieces = append(m.pieces, Piece{Loc: m.current(), BitSize: size, BitOff: off})
	case 0x96: // nop
	case 0x9b, 0xe0: // form_tls_address, GNU_push_tls_address: a __thread variable's offset in its module's block
		off, err := m.pop()
		if err != nil {
			return err
		}
		tl, ok := m.env.mem.(ThreadLocals)
		if !ok {
			return ErrNoThreadLocals
		}
		module := ""
		if f.isLibrary {
			module = f.Path
		}
		block, err := tl.ThreadLocalBlock(module)
		if err != nil {
			return err
		}
		m.push(block + off)
	case 0x9c: // call_frame_cfa
		if m.env.cfa == nil {
			return fmt.Errorf("elfsym: no CFA here")
		}
		v, err := m.env.cfa()
		if err != nil {
			return err
		}
		m.push(v)
	case 0x9e: // implicit_value
		n := r.uleb()
		m.loc = &Loc{Kind: LocValue, Bytes: r.bytes(int(n))}
	case 0x9f: // stack_value
		v, err := m.pop()
		if err != nil {
			return err
		}
		m.loc = &Loc{Kind: LocValue, Addr: v}
	case 0xa0, 0xf2: // implicit_pointer, GNU_implicit_pointer
		r.bytes(4) // the DIE of the value pointed to (32-bit DWARF)
		r.sleb()
		m.loc = &Loc{Kind: LocImplicitPointer}
	case 0xa1, 0xa2, 0xfb, 0xfc: // addrx, constx, GNU_addr_index, GNU_const_index
		v, err := f.debugAddr(m.env.cu, r.uleb())
		if err != nil {
			return err
		}
		if op == 0xa1 || op == 0xfb {
			v += f.Bias
		}
		m.push(v)
	case 0xa3, 0xf3: // entry_value, GNU_entry_value
		sub := r.bytes(int(r.uleb()))
		if m.env.entryValue == nil || r.err != nil {
			return fmt.Errorf("%w: entry value", ErrOptimizedOut)
		}
		v, err := m.env.entryValue(sub)
		if err != nil {
			return err
		}
		m.push(v)
	case 0xa4, 0xf4: // const_type, GNU_const_type
		r.uleb()
		b := r.bytes(int(r.u8()))
		m.push(uintFrom(b, a))
	case 0xa5, 0xf5: // regval_type, GNU_regval_type
		n := int(r.uleb())
		r.uleb()
		v, err := m.reg(n)
		if err != nil {
			return err
		}
		m.push(v)
	case 0xa8, 0xa9, 0xf7, 0xf9: // convert, reinterpret (and GNU forms): values stay raw bits
		r.uleb()
	default:
		return fmt.Errorf("%w: opcode %#x", ErrUnsupportedExpr, op)
	}
	return nil
}

func (m *exprMachine) signed(v uint64) int64 {
	if m.f.Arch.PtrSize == 4 {
		return int64(int32(v))
	}
	return int64(v)
}

func (m *exprMachine) pick(i int) error {
	if i >= len(m.stack) {
		return fmt.Errorf("%w: stack underflow", ErrUnsupportedExpr)
	}
	m.stack = append(m.stack, m.stack[len(m.stack)-1-i])
	return nil
}

func (m *exprMachine) deref(n int) error {
	addr, err := m.pop()
	if err != nil {
		return err
	}
	v, err := m.f.readUint(m.env.mem, addr, n)
	if err != nil {
		return err
	}
	m.push(v)
	return nil
}

func (m *exprMachine) jump(r *cfiReader, off int16) error {
	to := r.pos + int(off)
	if to < 0 || to > len(r.b) {
		return fmt.Errorf("%w: branch out of the expression", ErrUnsupportedExpr)
	}
	r.pos = to
	return nil
}

func (m *exprMachine) binary(op byte) error {
	b, err := m.pop()
	if err != nil {
		return err
	}
	x, err := m.pop()
	if err != nil {
		return err
	}
	sx, sb := m.signed(x), m.signed(b)
	cmp := func(c bool) uint64 {
		if c {
			return 1
		}
		return 0
	}
	var v uint64
	switch op {
	case 0x1a:
		v = x & b
	case 0x1b, 0x1d: // div (signed), mod
		if b == 0 {
			return fmt.Errorf("%w: division by zero", ErrUnsupportedExpr)
		}
		if op == 0x1b {
			v = uint64(sx / sb)
		} else {
			v = x % b
		}
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
	case 0x26:
		v = uint64(sx >> b)
	case 0x27:
		v = x ^ b
	case 0x29:
		v = cmp(sx == sb)
	case 0x2a:
		v = cmp(sx >= sb)
	case 0x2b:
		v = cmp(sx > sb)
	case 0x2c:
		v = cmp(sx <= sb)
	case 0x2d:
		v = cmp(sx < sb)
	case 0x2e:
		v = cmp(sx != sb)
	}
	m.push(v)
	return nil
}

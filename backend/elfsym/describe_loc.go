package elfsym

// Where a variable lives, in gdb's words (info address, info scope): static storage at an
// address, a register, a constant, and otherwise its DWARF expression disassembled, or a
// list of them by range of code.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// DescribeLocation says where v lives, as gdb's info address and info scope say it after
// "is ": "static storage at address 0x4018", "a variable in $rdi", "a complex DWARF
// expression:\n     0: DW_OP_fbreg -36\n", or "multi-location:\n  Range ...". A
// multi-line description ends with its newline.
func (f *File) DescribeLocation(v *Var) string {
	if o := f.fileOfVar(v); o != f {
		return o.DescribeLocation(v)
	}
	if v.locList < 0 {
		switch {
		case v.constant:
			return "constant"
		case v.loc == nil:
			return "optimized out"
		}
		if addr, ok := f.staticAddr(v.loc); ok {
			return fmt.Sprintf("static storage at address %#x", addr)
		}
		return f.describeExpr(v.loc)
	}
	var b strings.Builder
	b.WriteString("multi-location:\n")
	err := f.walkLocList(v, func(e locEntry) bool {
		if e.isBase {
			fmt.Fprintf(&b, "  Base address %#x", e.base)
			return true
		}
		fmt.Fprintf(&b, "  Range %#x-%#x: %s\n", f.clearThumb(e.lo)+f.Bias, f.clearThumb(e.hi)+f.Bias, f.describeExpr(e.expr))
		return true
	})
	if err != nil {
		fmt.Fprintf(&b, "  <%v>\n", err)
	}
	return b.String()
}

// staticAddr is the run-time address of a location that is DW_OP_addr (or DW_OP_addrx)
// alone: gdb's static storage.
func (f *File) staticAddr(expr []byte) (uint64, bool) {
	n := f.Arch.PtrSize
	if len(expr) == 1+n && expr[0] == opAddr {
		return uintFrom(expr[1:], f.Arch) + f.Bias, true
	}
	return 0, false
}

// DWARF operations the describer names.
const (
	opAddr              = 0x03
	opDeref             = 0x06
	opConst1u           = 0x08
	opConst1s           = 0x09
	opConst2u           = 0x0a
	opConst2s           = 0x0b
	opConst4u           = 0x0c
	opConst4s           = 0x0d
	opConst8u           = 0x0e
	opConst8s           = 0x0f
	opConstu            = 0x10
	opConsts            = 0x11
	opPlusUconst        = 0x23
	opLit0              = 0x30
	opReg0              = 0x50
	opBreg0             = 0x70
	opRegx              = 0x90
	opFbreg             = 0x91
	opBregx             = 0x92
	opPiece             = 0x93
	opCallFrameCFA      = 0x9c
	opImplicitValue     = 0x9e
	opStackValue        = 0x9f
	opEntryValue        = 0xa3
	opFormTLSAddress    = 0x9b
	opGNUPushTLSAddress = 0xe0
	opGNUEntryValue     = 0xf3
)

// describeExpr is one location expression as gdb describes it: the simple forms in words
// (a register, a constant), anything else disassembled.
func (f *File) describeExpr(expr []byte) string {
	switch {
	case len(expr) == 1 && expr[0] >= opReg0 && expr[0] < opReg0+32:
		return "a variable in $" + f.regName(int(expr[0]-opReg0))
	case len(expr) > 1 && expr[0] == opRegx:
		r := &cfiReader{b: expr, pos: 1, order: f.Arch.ByteOrder}
		if n := r.uleb(); r.err == nil && r.pos == len(expr) {
			return "a variable in $" + f.regName(int(n))
		}
	case len(expr) == 2 && expr[0] >= opLit0 && expr[0] < opLit0+32 && expr[1] == opStackValue:
		return fmt.Sprintf("the constant %d", expr[0]-opLit0)
	case len(expr) > 1 && expr[0] >= opBreg0 && expr[0] < opBreg0+32:
		r := &cfiReader{b: expr, pos: 1, order: f.Arch.ByteOrder}
		if off := r.sleb(); r.err == nil && r.pos == len(expr) {
			return fmt.Sprintf("a variable at offset %d from base reg $%s", off, f.regName(int(expr[0]-opBreg0)))
		}
	}
	if n := len(expr); n > 1 && (expr[n-1] == opFormTLSAddress || expr[n-1] == opGNUPushTLSAddress) {
		if l, err := f.evalExpr(expr[:n-1], &exprEnv{}, nil); err == nil && l.Kind == LocMemory {
			return fmt.Sprintf("a thread-local variable at offset %#x in the thread-local storage for `%s'", l.Addr, f.absPath())
		}
	}
	var b strings.Builder
	b.WriteString("a complex DWARF expression:\n")
	f.disassembleExpr(&b, expr, 0, 0)
	return b.String()
}

// absPath is the file's path made absolute (gdb's name of an objfile): its separate debug
// file's, when the information came from one.
func (f *File) absPath() string {
	if f.DebugPath != "" {
		return f.DebugPath
	}
	if abs, err := filepath.Abs(f.Path); err == nil {
		return abs
	}
	return f.Path
}

func (f *File) regName(n int) string {
	if name := f.Arch.RegName(n); name != "" {
		return name
	}
	return fmt.Sprint(n)
}

// disassembleExpr writes expr's operations a line each, as gdb's: the offset of each in
// the outermost expression (expr starts at base of it), its name and its operands; an
// entry value's expression nested below it.
func (f *File) disassembleExpr(b *strings.Builder, expr []byte, base, indent int) {
	r := &cfiReader{b: expr, order: f.Arch.ByteOrder}
	for r.pos < len(expr) && r.err == nil {
		at := r.pos
		op := r.u8()
		fmt.Fprintf(b, "  %*d: %s", indent+4, base+at, opName(op))
		switch {
		case op == opAddr:
			fmt.Fprintf(b, " 0x%x", r.addr(f.Arch.PtrSize))
		case op == opConst1u, op == 0x15: // const1u, pick
			fmt.Fprintf(b, " %d", r.u8())
		case op == opConst1s:
			fmt.Fprintf(b, " %d", int8(r.u8()))
		case op == opConst2u:
			fmt.Fprintf(b, " %d", r.u16())
		case op == opConst2s:
			fmt.Fprintf(b, " %d", int16(r.u16()))
		case op == opConst4u:
			fmt.Fprintf(b, " %d", r.u32())
		case op == opConst4s:
			fmt.Fprintf(b, " %d", int32(r.u32()))
		case op == opConst8u, op == opConst8s:
			fmt.Fprintf(b, " %d", int64(r.addr(8)))
		case op == opConstu, op == opPlusUconst, op == opPiece:
			fmt.Fprintf(b, " %d", r.uleb())
			if op == opPiece {
				b.WriteString(" (bytes)")
			}
		case op == opConsts, op == opFbreg:
			fmt.Fprintf(b, " %d", r.sleb())
		case op >= opReg0 && op < opReg0+32:
			fmt.Fprintf(b, " [$%s]", f.regName(int(op-opReg0)))
		case op >= opBreg0 && op < opBreg0+32:
			fmt.Fprintf(b, " %d [$%s]", r.sleb(), f.regName(int(op-opBreg0)))
		case op == opRegx:
			n := r.uleb()
			fmt.Fprintf(b, " %d [$%s]", n, f.regName(int(n)))
		case op == opBregx:
			n := r.uleb()
			fmt.Fprintf(b, " register %d [$%s] offset %d", n, f.regName(int(n)), r.sleb())
		case op == opImplicitValue:
			n := r.uleb()
			fmt.Fprintf(b, " %d", n)
			r.bytes(int(n))
		case op == opEntryValue, op == opGNUEntryValue:
			n := r.uleb()
			from := r.pos
			sub := r.bytes(int(n))
			b.WriteString("\n")
			f.disassembleExpr(b, sub, base+from, indent+2)
			continue
		}
		b.WriteString("\n")
		if _, known := opNames[op]; !known && !(op >= opLit0 && op < opBreg0+32) {
			return // operands unknown: the rest cannot be read
		}
	}
}

// opNames are the names of the operations, by code, as DWARF 5 names them.
var opNames = map[byte]string{0x03: "DW_OP_addr", 0x06: "DW_OP_deref", 0x08: "DW_OP_const1u", 0x09: "DW_OP_const1s",
	0x0a: "DW_OP_const2u", 0x0b: "DW_OP_const2s", 0x0c: "DW_OP_const4u", 0x0d: "DW_OP_const4s", 0x0e: "DW_OP_const8u",
	0x0f: "DW_OP_const8s", 0x10: "DW_OP_constu", 0x11: "DW_OP_consts", 0x12: "DW_OP_dup", 0x13: "DW_OP_drop",
	0x14: "DW_OP_over", 0x15: "DW_OP_pick", 0x16: "DW_OP_swap", 0x17: "DW_OP_rot", 0x19: "DW_OP_abs", 0x1a: "DW_OP_and",
	0x1b: "DW_OP_div", 0x1c: "DW_OP_minus", 0x1d: "DW_OP_mod", 0x1e: "DW_OP_mul", 0x1f: "DW_OP_neg", 0x20: "DW_OP_not",
	0x21: "DW_OP_or", 0x22: "DW_OP_plus", 0x23: "DW_OP_plus_uconst", 0x24: "DW_OP_shl", 0x25: "DW_OP_shr",
	0x26: "DW_OP_shra", 0x27: "DW_OP_xor", 0x29: "DW_OP_eq", 0x2a: "DW_OP_ge", 0x2b: "DW_OP_gt", 0x2c: "DW_OP_le",
	0x2d: "DW_OP_lt", 0x2e: "DW_OP_ne", 0x90: "DW_OP_regx", 0x91: "DW_OP_fbreg", 0x92: "DW_OP_bregx", 0x93: "DW_OP_piece",
	0x96: "DW_OP_nop", 0x9b: "DW_OP_form_tls_address", 0x9c: "DW_OP_call_frame_cfa", 0xe0: "DW_OP_GNU_push_tls_address", 0x9e: "DW_OP_implicit_value", 0x9f: "DW_OP_stack_value",
	0xa3: "DW_OP_entry_value", 0xf3: "DW_OP_GNU_entry_value"}

func opName(op byte) string {
	switch {
	case op >= opLit0 && op < opLit0+32:
		return fmt.Sprintf("DW_OP_lit%d", op-opLit0)
	case op >= opReg0 && op < opReg0+32:
		return fmt.Sprintf("DW_OP_reg%d", op-opReg0)
	case op >= opBreg0 && op < opBreg0+32:
		return fmt.Sprintf("DW_OP_breg%d", op-opBreg0)
	}
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("0x%02x", op)
}

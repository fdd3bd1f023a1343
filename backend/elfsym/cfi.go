package elfsym

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// Call frame information: .debug_frame and .eh_frame parsed into FDEs, and a CFA program
// interpreter that computes the unwinding rules at an address.

type cie struct {
	codeAlign  uint64
	dataAlign  int64
	raReg      int
	fdeEnc     byte // eh_frame 'R' augmentation
	signal     bool // 'S' augmentation
	hasAugData bool
	addrSize   int
	initial    []byte
}

type fde struct {
	cie       *cie
	low, high uint64 // link-time
	insns     []byte
}

type cfiTable struct {
	fdes  []*fde // sorted by low
	order binary.ByteOrder
	ptr   int
}

var errCFI = errors.New("elfsym: bad call frame information")

// readCFI reads the call frame information of the files (a stripped file's .eh_frame,
// its separate debug file's .debug_frame).
func readCFI(files []*elf.File, arch *Arch) (*cfiTable, error) {
	t := &cfiTable{order: arch.ByteOrder, ptr: arch.PtrSize}
	for _, ef := range files {
		for _, name := range []string{".debug_frame", ".eh_frame"} {
			s := ef.Section(name)
			if s == nil || s.Type == elf.SHT_NOBITS {
				continue
			}
			data, err := s.Data()
			if err != nil {
				continue
			}
			if err := t.parse(data, name == ".eh_frame", s.Addr, arch); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	sort.Slice(t.fdes, func(i, j int) bool { return t.fdes[i].low < t.fdes[j].low })
	return t, nil
}

type cfiReader struct {
	b     []byte
	pos   int
	order binary.ByteOrder
	err   error
}

func (r *cfiReader) need(n int) bool {
	if r.err != nil || n < 0 || r.pos+n > len(r.b) {
		if r.err == nil {
			r.err = errCFI
		}
		return false
	}
	return true
}

func (r *cfiReader) u8() byte {
	if !r.need(1) {
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

func (r *cfiReader) u16() uint64 {
	if !r.need(2) {
		return 0
	}
	r.pos += 2
	return uint64(r.order.Uint16(r.b[r.pos-2:]))
}

func (r *cfiReader) u32() uint64 {
	if !r.need(4) {
		return 0
	}
	r.pos += 4
	return uint64(r.order.Uint32(r.b[r.pos-4:]))
}

func (r *cfiReader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	r.pos += 8
	return r.order.Uint64(r.b[r.pos-8:])
}

func (r *cfiReader) uleb() uint64 {
	var v uint64
	var shift uint
	for {
		c := r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= uint64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			return v
		}
	}
}

func (r *cfiReader) sleb() int64 {
	var v int64
	var shift uint
	var c byte
	for {
		c = r.u8()
		if r.err != nil {
			return 0
		}
		if shift < 64 {
			v |= int64(c&0x7f) << shift
		}
		shift += 7
		if c&0x80 == 0 {
			break
		}
	}
	if shift < 64 && c&0x40 != 0 {
		v |= -1 << shift
	}
	return v
}

func (r *cfiReader) addr(size int) uint64 {
	if size == 8 {
		return r.u64()
	}
	return r.u32()
}

func (r *cfiReader) bytes(n int) []byte {
	if !r.need(n) {
		return nil
	}
	r.pos += n
	return r.b[r.pos-n : r.pos]
}

func (r *cfiReader) cstring() string {
	start := r.pos
	for r.pos < len(r.b) && r.b[r.pos] != 0 {
		r.pos++
	}
	if r.pos >= len(r.b) {
		r.err = errCFI
		return ""
	}
	r.pos++
	return string(r.b[start : r.pos-1])
}

// encoded reads a pointer in DW_EH_PE encoding enc; secAddr is the section's address.
func (r *cfiReader) encoded(enc byte, ptrSize int, secAddr uint64) uint64 {
	if enc == 0xff { // omit
		return 0
	}
	fieldAddr := secAddr + uint64(r.pos)
	var v uint64
	switch enc & 0x0f {
	case 0x00:
		v = r.addr(ptrSize)
	case 0x01:
		v = r.uleb()
	case 0x02:
		v = r.u16()
	case 0x03:
		v = r.u32()
	case 0x04:
		v = r.u64()
	case 0x09:
		v = uint64(r.sleb())
	case 0x0a:
		v = uint64(int64(int16(r.u16())))
	case 0x0b:
		v = uint64(int64(int32(r.u32())))
	case 0x0c:
		v = r.u64()
	default:
		r.err = errCFI
		return 0
	}
	switch enc & 0x70 {
	case 0x10: // pcrel
		v += fieldAddr
	}
	if ptrSize == 4 {
		v &= 0xffffffff
	}
	return v
}

func (t *cfiTable) parse(data []byte, eh bool, secAddr uint64, arch *Arch) error {
	cies := map[int]*cie{}
	r := &cfiReader{b: data, order: t.order}
	for r.pos < len(data) && r.err == nil {
		start := r.pos
		length := r.u32()
		is64 := false
		if length == 0xffffffff {
			length = r.u64()
			is64 = true
		}
		if length == 0 {
			if eh {
				break // terminator
			}
			continue
		}
		bodyStart := r.pos
		if length > uint64(len(data)-bodyStart) {
			return errCFI
		}
		end := bodyStart + int(length)
		idPos := r.pos
		var id uint64
		if is64 {
			id = r.u64()
		} else {
			id = r.u32()
		}
		isCIE := (eh && id == 0) || (!eh && (id == 0xffffffff || (is64 && id == ^uint64(0))))
		if isCIE {
			c, err := t.parseCIE(data[r.pos:end], eh, arch)
			if err != nil {
				return err
			}
			cies[start] = c
		} else {
			var cieOff int
			if eh {
				cieOff = idPos - int(id)
			} else {
				cieOff = int(id)
			}
			c := cies[cieOff]
			if c == nil {
				// A CIE after its FDE (allowed in .debug_frame): parse it now.
				cr := &cfiReader{b: data, order: t.order, pos: cieOff}
				l := cr.u32()
				if cr.err == nil && l != 0xffffffff && cieOff+4+int(l) <= len(data) {
					cr.u32()
					if cc, err := t.parseCIE(data[cr.pos:cieOff+4+int(l)], eh, arch); err == nil {
						c = cc
						cies[cieOff] = c
					}
				}
				if c == nil {
					r.pos = end
					continue
				}
			}
			f := &fde{cie: c}
			if eh {
				enc := c.fdeEnc
				f.low = r.encoded(enc, t.ptr, secAddr)
				f.high = f.low + r.encoded(enc&0x0f, t.ptr, secAddr)
				if c.hasAugData {
					n := r.uleb()
					r.bytes(int(n))
				}
			} else {
				f.low = r.addr(c.addrSize)
				f.high = f.low + r.addr(c.addrSize)
			}
			if r.err != nil {
				return r.err
			}
			if arch.Machine == elf.EM_ARM {
				f.low &^= 1
				f.high &^= 1
			}
			f.insns = data[r.pos:end]
			if f.high > f.low {
				t.fdes = append(t.fdes, f)
			}
		}
		r.pos = end
	}
	return r.err
}

func (t *cfiTable) parseCIE(b []byte, eh bool, arch *Arch) (*cie, error) {
	r := &cfiReader{b: b, order: t.order}
	c := &cie{addrSize: t.ptr, fdeEnc: 0}
	version := r.u8()
	aug := r.cstring()
	if version >= 4 {
		c.addrSize = int(r.u8())
		r.u8() // segment size
	}
	c.codeAlign = r.uleb()
	c.dataAlign = r.sleb()
	if version == 1 {
		c.raReg = int(r.u8())
	} else {
		c.raReg = int(r.uleb())
	}
	if len(aug) > 0 && aug[0] == 'z' {
		c.hasAugData = true
		n := int(r.uleb())
		ad := r.bytes(n)
		ar := &cfiReader{b: ad, order: t.order}
		for _, ch := range aug[1:] {
			switch ch {
			case 'R':
				c.fdeEnc = ar.u8()
			case 'L':
				ar.u8()
			case 'P':
				enc := ar.u8()
				ar.encoded(enc&0x7f, t.ptr, 0)
			case 'S':
				c.signal = true
			}
		}
	} else if aug == "eh" {
		r.addr(t.ptr)
	}
	if r.err != nil {
		return nil, r.err
	}
	c.initial = b[r.pos:]
	return c, nil
}

// find returns the FDE covering the link-time address a.
func (t *cfiTable) find(a uint64) *fde {
	i := sort.Search(len(t.fdes), func(i int) bool { return t.fdes[i].low > a }) - 1
	for j := i; j >= 0 && j > i-8; j-- {
		if f := t.fdes[j]; a >= f.low && a < f.high {
			return f
		}
	}
	return nil
}

// Register rules.
type ruleKind uint8

const (
	ruleUndefinedDefault ruleKind = iota // not mentioned: same value
	ruleUndefined
	ruleSame
	ruleOffset    // saved at CFA+off
	ruleValOffset // value is CFA+off
	ruleRegister  // in register reg
	ruleExpr      // saved at address computed by expr
	ruleValExpr   // value computed by expr
)

type regRule struct {
	kind ruleKind
	off  int64
	reg  int
	expr []byte
}

type cfaRule struct {
	reg  int
	off  int64
	expr []byte // DW_CFA_def_cfa_expression
}

type frameRow struct {
	cfa  cfaRule
	regs map[int]regRule
	ra   int
}

func (r *frameRow) clone() frameRow {
	n := frameRow{cfa: r.cfa, ra: r.ra, regs: make(map[int]regRule, len(r.regs))}
	for k, v := range r.regs {
		n.regs[k] = v
	}
	return n
}

// rowAt runs the CIE's initial instructions and the FDE's instructions up to the
// link-time address a.
func (t *cfiTable) rowAt(f *fde, a uint64) (frameRow, error) {
	row := frameRow{regs: map[int]regRule{}, ra: f.cie.raReg}
	if err := t.exec(f, f.cie.initial, &row, nil, ^uint64(0), f.low); err != nil {
		return row, err
	}
	initial := row.clone()
	return row, t.exec(f, f.insns, &row, &initial, a, f.low)
}

func (t *cfiTable) exec(f *fde, insns []byte, row *frameRow, initial *frameRow, target, loc uint64) error {
	c := f.cie
	r := &cfiReader{b: insns, order: t.order}
	var stack []frameRow
	for r.pos < len(insns) && r.err == nil {
		op := r.u8()
		hi, lo := op&0xc0, op&0x3f
		switch hi {
		case 0x40: // advance_loc
			loc += uint64(lo) * c.codeAlign
			if loc > target {
				return nil
			}
			continue
		case 0x80: // offset
			row.regs[int(lo)] = regRule{kind: ruleOffset, off: int64(r.uleb()) * c.dataAlign}
			continue
		case 0xc0: // restore
			restoreReg(row, initial, int(lo))
			continue
		}
		switch op {
		case 0x00: // nop
		case 0x01: // set_loc
			loc = r.addr(c.addrSize)
			if loc > target {
				return nil
			}
		case 0x02, 0x03, 0x04: // advance_loc1/2/4
			var d uint64
			switch op {
			case 0x02:
				d = uint64(r.u8())
			case 0x03:
				d = r.u16()
			default:
				d = r.u32()
			}
			loc += d * c.codeAlign
			if loc > target {
				return nil
			}
		case 0x05: // offset_extended
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleOffset, off: int64(r.uleb()) * c.dataAlign}
		case 0x06: // restore_extended
			restoreReg(row, initial, int(r.uleb()))
		case 0x07: // undefined
			row.regs[int(r.uleb())] = regRule{kind: ruleUndefined}
		case 0x08: // same_value
			row.regs[int(r.uleb())] = regRule{kind: ruleSame}
		case 0x09: // register
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleRegister, reg: int(r.uleb())}
		case 0x0a: // remember_state
			stack = append(stack, row.clone())
		case 0x0b: // restore_state
			if len(stack) == 0 {
				return errCFI
			}
			// The CFA rule is part of the remembered state, as libgcc's unwinder and gdb
			// keep it: GCC's epilogues remember, change the CFA offset, then restore.
			*row = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		case 0x0c: // def_cfa
			row.cfa = cfaRule{reg: int(r.uleb()), off: int64(r.uleb())}
		case 0x0d: // def_cfa_register
			row.cfa.reg = int(r.uleb())
			row.cfa.expr = nil
		case 0x0e: // def_cfa_offset
			row.cfa.off = int64(r.uleb())
		case 0x0f: // def_cfa_expression
			n := r.uleb()
			row.cfa = cfaRule{expr: r.bytes(int(n))}
		case 0x10: // expression
			reg := int(r.uleb())
			n := r.uleb()
			row.regs[reg] = regRule{kind: ruleExpr, expr: r.bytes(int(n))}
		case 0x11: // offset_extended_sf
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleOffset, off: r.sleb() * c.dataAlign}
		case 0x12: // def_cfa_sf
			row.cfa = cfaRule{reg: int(r.uleb()), off: r.sleb() * c.dataAlign}
		case 0x13: // def_cfa_offset_sf
			row.cfa.off = r.sleb() * c.dataAlign
		case 0x14: // val_offset
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleValOffset, off: int64(r.uleb()) * c.dataAlign}
		case 0x15: // val_offset_sf
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleValOffset, off: r.sleb() * c.dataAlign}
		case 0x16: // val_expression
			reg := int(r.uleb())
			n := r.uleb()
			row.regs[reg] = regRule{kind: ruleValExpr, expr: r.bytes(int(n))}
		case 0x2e: // GNU_args_size
			r.uleb()
		case 0x2f: // GNU_negative_offset_extended
			reg := int(r.uleb())
			row.regs[reg] = regRule{kind: ruleOffset, off: -int64(r.uleb()) * c.dataAlign}
		default:
			return fmt.Errorf("%w: unknown CFA opcode %#x", errCFI, op)
		}
	}
	return r.err
}

func restoreReg(row, initial *frameRow, reg int) {
	if initial == nil {
		delete(row.regs, reg)
		return
	}
	if rule, ok := initial.regs[reg]; ok {
		row.regs[reg] = rule
	} else {
		delete(row.regs, reg)
	}
}

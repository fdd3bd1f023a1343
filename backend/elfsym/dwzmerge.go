package elfsym

// Merging a file's DWARF with its supplementary file's (dwz.go): the two files' info,
// abbrev, str, line and line_str sections one after the other, every offset that crosses
// from one to the other moved, the supplementary file's own forms made ordinary ones.

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// The forms a supplementary file brings, and those of DWARF the merge reads past.
const (
	formAddr          = 0x01
	formBlock2        = 0x03
	formBlock4        = 0x04
	formData2         = 0x05
	formData4         = 0x06
	formData8         = 0x07
	formString        = 0x08
	formBlock         = 0x09
	formBlock1        = 0x0a
	formData1         = 0x0b
	formFlag          = 0x0c
	formSdata         = 0x0d
	formStrp          = 0x0e
	formUdata         = 0x0f
	formRefAddr       = 0x10
	formRef1          = 0x11
	formRef2          = 0x12
	formRef4          = 0x13
	formRef8          = 0x14
	formRefUdata      = 0x15
	formIndirect      = 0x16
	formSecOffset     = 0x17
	formExprloc       = 0x18
	formFlagPresent   = 0x19
	formStrx          = 0x1a
	formAddrx         = 0x1b
	formRefSup4       = 0x1c
	formStrpSup       = 0x1d
	formData16        = 0x1e
	formLineStrp      = 0x1f
	formRefSig8       = 0x20
	formImplicitConst = 0x21
	formLoclistx      = 0x22
	formRnglistx      = 0x23
	formRefSup8       = 0x24
	formStrx1         = 0x25
	formStrx2         = 0x26
	formStrx3         = 0x27
	formStrx4         = 0x28
	formAddrx1        = 0x29
	formAddrx2        = 0x2a
	formAddrx3        = 0x2b
	formAddrx4        = 0x2c
	formGNUAddrIndex  = 0x1f01
	formGNUStrIndex   = 0x1f02
	formGNURefAlt     = 0x1f20
	formGNUStrpAlt    = 0x1f21

	attrStmtList = 0x10
)

// mergeSupplementary merges the DWARF sections of a file (own) with those of its
// supplementary file (sup): info, abbrev, str, line and line_str are each own's followed by
// sup's, and the offsets in them rewritten to match; own's other sections are kept as they are.
func mergeSupplementary(own, sup map[string][]byte, order binary.ByteOrder) (mergedSections, error) {
	out := mergedSections{}
	for name, b := range own {
		out[name] = b
	}
	shift := supShift{
		info:    int64(len(own[".debug_info"])),
		str:     int64(len(own[".debug_str"])),
		line:    int64(len(own[".debug_line"])),
		lineStr: int64(len(own[".debug_line_str"])),
	}
	var abbrev bytes.Buffer
	ownInfo, err := rewriteUnits(own[".debug_info"], own[".debug_abbrev"], &abbrev, order, shift, false)
	if err != nil {
		return nil, fmt.Errorf("its DWARF: %w", err)
	}
	supInfo, err := rewriteUnits(sup[".debug_info"], sup[".debug_abbrev"], &abbrev, order, shift, true)
	if err != nil {
		return nil, fmt.Errorf("the supplementary DWARF: %w", err)
	}
	supLine := bytes.Clone(sup[".debug_line"])
	if err := shiftLineHeaders(supLine, order, shift); err != nil {
		return nil, fmt.Errorf("the supplementary line tables: %w", err)
	}
	out[".debug_info"] = append(ownInfo, supInfo...)
	out[".debug_abbrev"] = abbrev.Bytes()
	out[".debug_str"] = concat(own[".debug_str"], sup[".debug_str"])
	out[".debug_line"] = concat(own[".debug_line"], supLine)
	out[".debug_line_str"] = concat(own[".debug_line_str"], sup[".debug_line_str"])
	return out, nil
}

// concat is a followed by b, in a new slice; nil when both are empty.
func concat(a, b []byte) []byte {
	if len(a)+len(b) == 0 {
		return nil
	}
	return append(append(make([]byte, 0, len(a)+len(b)), a...), b...)
}

// supShift is how far the supplementary file's offsets move in the merged sections (the
// lengths of the file's own sections before them).
type supShift struct{ info, str, line, lineStr int64 }

// abbrevDecl is one abbreviation of an abbreviation table.
type abbrevDecl struct {
	code, tag uint64
	children  byte
	attrs     []abbrevAttr
}

type abbrevAttr struct {
	attr, form uint64
	implicit   int64 // DW_FORM_implicit_const's value
}

// readAbbrevTable reads the table at off of an abbrev section.
func readAbbrevTable(sec []byte, off uint64) (map[uint64]*abbrevDecl, []*abbrevDecl, error) {
	if off >= uint64(len(sec)) {
		return nil, nil, fmt.Errorf("abbreviation table at %#x past the section's end", off)
	}
	r := &cfiReader{b: sec, pos: int(off)}
	byCode := map[uint64]*abbrevDecl{}
	var list []*abbrevDecl
	for {
		code := r.uleb()
		if code == 0 || r.err != nil {
			break
		}
		a := &abbrevDecl{code: code, tag: r.uleb(), children: r.u8()}
		for r.err == nil {
			at, form := r.uleb(), r.uleb()
			if at == 0 && form == 0 {
				break
			}
			x := abbrevAttr{attr: at, form: form}
			if form == formImplicitConst {
				x.implicit = r.sleb()
			}
			a.attrs = append(a.attrs, x)
		}
		byCode[code] = a
		list = append(list, a)
	}
	if r.err != nil {
		return nil, nil, fmt.Errorf("abbreviation table at %#x: %w", off, r.err)
	}
	return byCode, list, nil
}

// writeAbbrevTable appends the table, its forms changed by mapForm, to w.
func writeAbbrevTable(w *bytes.Buffer, list []*abbrevDecl, mapForm func(uint64) uint64) {
	for _, a := range list {
		w.Write(binary.AppendUvarint(nil, a.code))
		w.Write(binary.AppendUvarint(nil, a.tag))
		w.WriteByte(a.children)
		for _, x := range a.attrs {
			w.Write(binary.AppendUvarint(nil, x.attr))
			w.Write(binary.AppendUvarint(nil, mapForm(x.form)))
			if x.form == formImplicitConst {
				w.Write(binary.AppendVarint(nil, x.implicit))
			}
		}
		w.Write([]byte{0, 0})
	}
	w.WriteByte(0)
}

// rewriteUnits copies the units of an info section, their abbreviation tables appended to
// abbrev (each unit's header pointing to its table's new place). In the file's own units a
// reference or string in the supplementary file becomes an ordinary one, moved past the
// file's own by shift; in the supplementary file's (sup) its offsets into its own sections
// are moved by shift.
func rewriteUnits(info, abbrevSec []byte, abbrev *bytes.Buffer, order binary.ByteOrder, shift supShift, sup bool) ([]byte, error) {
	out := bytes.Clone(info)
	type table struct {
		byCode map[uint64]*abbrevDecl
		at     int
	}
	tables := map[uint64]table{}
	for pos := 0; pos < len(out); {
		h, err := readUnitHeader(out, pos, order)
		if err != nil {
			return nil, err
		}
		t, ok := tables[h.abbrevOff]
		if !ok {
			byCode, list, err := readAbbrevTable(abbrevSec, h.abbrevOff)
			if err != nil {
				return nil, err
			}
			t = table{byCode: byCode, at: abbrev.Len()}
			writeAbbrevTable(abbrev, list, func(form uint64) uint64 {
				if sup {
					return form
				}
				return h.plainForm(form)
			})
			tables[h.abbrevOff] = t
		}
		putOffset(out[h.abbrevAt:], h.offSize, order, uint64(t.at))
		u := unitWalk{b: out, h: h, order: order, abbrevs: t.byCode, shift: shift, sup: sup}
		if err := u.walk(); err != nil {
			return nil, fmt.Errorf("unit at %#x: %w", pos, err)
		}
		pos = h.end
	}
	return out, nil
}

// unitHeader is what the merge needs of a unit's header.
type unitHeader struct {
	start, end, dies int // the unit's first byte, its end, its first entry
	version          int
	offSize          int // 4 or 8 (64-bit DWARF)
	addrSize         int
	abbrevAt         int // where its abbrev offset is
	abbrevOff        uint64
}

func readUnitHeader(b []byte, pos int, order binary.ByteOrder) (unitHeader, error) {
	h := unitHeader{start: pos, offSize: 4}
	r := &cfiReader{b: b, pos: pos, order: order}
	length := uint64(r.u32())
	if length == 0xffffffff {
		length, h.offSize = r.u64(), 8
	}
	if r.err != nil || length > uint64(len(b)-r.pos) {
		return h, fmt.Errorf("unit at %#x: length past the section's end", pos)
	}
	h.end = r.pos + int(length)
	h.version = int(r.u16())
	if h.version >= 5 {
		unitType := r.u8()
		h.addrSize = int(r.u8())
		h.abbrevAt = r.pos
		h.abbrevOff = r.addr(h.offSize)
		switch unitType {
		case 0x02, 0x06: // type units: signature, type offset
			skip(r, 8+h.offSize)
		case 0x04, 0x05: // skeleton, split: dwo id
			skip(r, 8)
		}
	} else {
		h.abbrevAt = r.pos
		h.abbrevOff = r.addr(h.offSize)
		h.addrSize = int(r.u8())
	}
	if r.err != nil || h.version < 2 || h.version > 5 {
		return h, fmt.Errorf("unit at %#x: bad header (version %d)", pos, h.version)
	}
	h.dies = r.pos
	return h, nil
}

// plainForm is the ordinary form a supplementary-file form becomes once the files are
// merged (the same size in this unit), or form itself.
func (h unitHeader) plainForm(form uint64) uint64 {
	switch {
	case form == formGNURefAlt && (h.version >= 3 || h.addrSize == h.offSize),
		form == formRefSup4 && h.offSize == 4 && h.version >= 3,
		form == formRefSup8 && h.offSize == 8 && h.version >= 3:
		return formRefAddr
	case form == formGNUStrpAlt, form == formStrpSup:
		return formStrp
	}
	return form
}

// unitWalk reads a unit's entries and moves the offsets the merge changes, in place.
type unitWalk struct {
	b       []byte
	h       unitHeader
	order   binary.ByteOrder
	abbrevs map[uint64]*abbrevDecl
	shift   supShift
	sup     bool // the supplementary file's unit (else the file's own)
}

func (u *unitWalk) walk() error {
	r := &cfiReader{b: u.b[:u.h.end], pos: u.h.dies, order: u.order}
	for r.pos < u.h.end && r.err == nil {
		code := r.uleb()
		if code == 0 {
			continue
		}
		a := u.abbrevs[code]
		if a == nil {
			return fmt.Errorf("entry at %#x: no abbreviation %d", r.pos, code)
		}
		for _, x := range a.attrs {
			form := x.form
			for form == formIndirect && r.err == nil {
				form = r.uleb()
			}
			u.value(r, x.attr, form)
		}
	}
	return r.err
}

// value reads past one attribute's value, moving it when the merge changes it.
func (u *unitWalk) value(r *cfiReader, attr, form uint64) {
	at := r.pos
	move := int64(0)
	switch form {
	case formAddr:
		skip(r, u.h.addrSize)
	case formBlock1:
		skip(r, int(r.u8()))
	case formBlock2:
		skip(r, int(r.u16()))
	case formBlock4:
		skip(r, int(r.u32()))
	case formBlock, formExprloc:
		skip(r, int(r.uleb()))
	case formData1, formRef1, formFlag, formStrx1, formAddrx1:
		skip(r, 1)
	case formData2, formRef2, formStrx2, formAddrx2:
		skip(r, 2)
	case formStrx3, formAddrx3:
		skip(r, 3)
	case formData4, formRef4, formStrx4, formAddrx4, formRefSup4:
		skip(r, 4)
	case formData8, formRef8, formRefSig8, formRefSup8:
		skip(r, 8)
	case formData16:
		skip(r, 16)
	case formString:
		r.cstring()
	case formSdata, formUdata, formRefUdata, formStrx, formAddrx, formLoclistx, formRnglistx, formGNUAddrIndex, formGNUStrIndex:
		r.uleb()
	case formFlagPresent, formImplicitConst:
	case formRefAddr:
		if u.h.version == 2 {
			skip(r, u.h.addrSize)
		} else {
			skip(r, u.h.offSize)
		}
	case formStrp, formLineStrp, formSecOffset, formGNURefAlt, formGNUStrpAlt, formStrpSup:
		skip(r, u.h.offSize)
	default:
		r.err = fmt.Errorf("form %#x not known", form)
		return
	}
	if r.err != nil {
		return
	}
	if !u.sup { // the file's own: what was the supplementary file's moves past its own
		switch u.h.plainForm(form) {
		case formRefAddr:
			if form != formRefAddr {
				move = u.shift.info
			}
		case formStrp:
			if form != formStrp {
				move = u.shift.str
			}
		}
	} else {
		switch {
		case form == formStrp:
			move = u.shift.str
		case form == formLineStrp:
			move = u.shift.lineStr
		case form == formRefAddr && u.h.version >= 3:
			move = u.shift.info
		case form == formSecOffset && attr == attrStmtList:
			move = u.shift.line
		}
	}
	if move != 0 {
		size := u.h.offSize
		if form == formRefSup4 {
			size = 4
		} else if form == formRefSup8 {
			size = 8
		}
		v := readOffset(u.b[at:], size, u.order)
		putOffset(u.b[at:], size, u.order, v+uint64(move))
	}
}

// shiftLineHeaders moves the string offsets of the supplementary file's line table
// headers (DWARF 5's directory and file entries in .debug_line_str or .debug_str).
func shiftLineHeaders(b []byte, order binary.ByteOrder, shift supShift) error {
	for pos := 0; pos < len(b); {
		r := &cfiReader{b: b, pos: pos, order: order}
		offSize := 4
		length := uint64(r.u32())
		if length == 0xffffffff {
			length, offSize = r.u64(), 8
		}
		if r.err != nil || length > uint64(len(b)-r.pos) {
			return fmt.Errorf("line table at %#x: length past the section's end", pos)
		}
		end := r.pos + int(length)
		version := r.u16()
		if version >= 5 {
			addrSize := int(r.u8())
			skip(r, 1) // segment selector size
			r.addr(offSize)
			skip(r, 4) // minimum instruction length, maximum operations, default_is_stmt, line_base
			r.u8()     // line_range
			opcodeBase := r.u8()
			skip(r, int(opcodeBase)-1)
			// the entries' values read as the supplementary file's unit values are: a string's
			// offset moved past the file's own strings
			lw := unitWalk{b: b, h: unitHeader{version: 5, offSize: offSize, addrSize: addrSize}, order: order, shift: shift, sup: true}
			for list := 0; list < 2 && r.err == nil; list++ { // directories, then files
				var forms []uint64
				n := int(r.u8())
				for i := 0; i < n && r.err == nil; i++ {
					r.uleb() // content type
					forms = append(forms, r.uleb())
				}
				count := r.uleb()
				for i := uint64(0); i < count && r.err == nil; i++ {
					for _, form := range forms {
						lw.value(r, 0, form)
					}
				}
			}
			if r.err != nil {
				return fmt.Errorf("line table at %#x: %w", pos, r.err)
			}
		}
		pos = end
	}
	return nil
}

func readOffset(b []byte, size int, order binary.ByteOrder) uint64 {
	if size == 8 {
		return order.Uint64(b)
	}
	return uint64(order.Uint32(b))
}

func putOffset(b []byte, size int, order binary.ByteOrder, v uint64) {
	if size == 8 {
		order.PutUint64(b, v)
	} else {
		order.PutUint32(b, uint32(v))
	}
}

// skip reads past n bytes.
func skip(r *cfiReader, n int) { r.bytes(n) }

package elfsym

// Location lists: where a variable of optimised code lives changes with the pc. DWARF 4
// keeps the lists in .debug_loc, DWARF 5 in .debug_loclists (reached by DW_FORM_sec_offset
// or, through the unit's offset table, DW_FORM_loclistx), with addresses possibly in
// .debug_addr. Go's debug/dwarf reads neither, so this file does.

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
)

// cuInfo is what reading a unit's location lists and address table needs.
type cuInfo struct {
	version      int
	base         uint64 // DW_AT_low_pc: the base of DWARF 4 lists and offset pairs
	addrBase     uint64 // DW_AT_addr_base
	loclistsBase uint64 // DW_AT_loclists_base
	lang         string // DW_AT_language, as gdb names it ("c")
	name, dir    string // DW_AT_name, DW_AT_comp_dir
	producer     string // DW_AT_producer: the compiler and its flags
	macros       bool   // DW_AT_macros or DW_AT_macro_info
	file         *File  // the file the unit is in (a library's, for a library's variables)
}

// section returns the contents of a section of the ELF file (nil when absent), cached.
func (f *File) section(name string) []byte {
	f.lazy.Lock()
	defer f.lazy.Unlock()
	if b, ok := f.sections[name]; ok {
		return b
	}
	var b []byte
	if s := f.symELF().Section(name); s != nil && s.Type != elf.SHT_NOBITS {
		b, _ = s.Data()
	}
	f.sections[name] = b
	return b
}

// dwarfType reads the type at off. debug/dwarf caches the types it has read in a map of
// its own, not safe for concurrent use: front ends and device services read variables at
// the same time.
func (f *File) dwarfType(off dwarf.Offset) (dwarf.Type, error) {
	f.lazy.Lock()
	defer f.lazy.Unlock()
	t, err := f.DWARF.Type(off)
	if err == nil && f.cplus {
		t = f.fixCXXType(off, t)
	} else if err == nil {
		f.restoreFlexible(off, t)
		if q := f.restoredInner(t, off); q != nil { // _Atomic int x
			t = q
		}
	}
	return t, err
}

func (f *File) newCU(cu *dwarf.Entry) *cuInfo {
	ci := &cuInfo{version: f.unitVersion(cu.Offset), file: f}
	ci.base, _ = cu.Val(dwarf.AttrLowpc).(uint64)
	ci.lang = languageOf(cu)
	ci.name, _ = cu.Val(dwarf.AttrName).(string)
	ci.dir, _ = cu.Val(dwarf.AttrCompDir).(string)
	ci.producer, _ = cu.Val(dwarf.AttrProducer).(string)
	ci.macros = cu.Val(dwarf.AttrMacros) != nil || cu.Val(dwarf.AttrMacroInfo) != nil
	if v, ok := cu.Val(dwarf.AttrAddrBase).(int64); ok {
		ci.addrBase = uint64(v)
	}
	if v, ok := cu.Val(dwarf.AttrLoclistsBase).(int64); ok {
		ci.loclistsBase = uint64(v)
	}
	return ci
}

// debugAddr is entry idx of the unit's .debug_addr table (link-time).
func (f *File) debugAddr(cu *cuInfo, idx uint64) (uint64, error) {
	sec := f.section(".debug_addr")
	if cu == nil {
		return 0, fmt.Errorf("%w: address index without a unit", ErrUnsupportedExpr)
	}
	n := uint64(f.Arch.PtrSize)
	off := cu.addrBase + idx*n
	if off+n > uint64(len(sec)) {
		return 0, fmt.Errorf("%w: address index %d out of .debug_addr", ErrUnsupportedExpr, idx)
	}
	r := &cfiReader{b: sec, pos: int(off), order: f.Arch.ByteOrder}
	return r.addr(int(n)), nil
}

// locExpr is the location expression of a variable at link-time pc: its DW_AT_location
// block, or the entry of its location list that covers pc (nil when none does: the
// variable is optimized out there).
func (f *File) locExpr(v *Var, pc uint64) ([]byte, error) {
	if v.locList < 0 {
		return v.loc, nil
	}
	var found, deflt []byte
	err := f.walkLocList(v, func(e locEntry) bool {
		switch {
		case e.isDefault:
			deflt = e.expr
		case !e.isBase && f.inRange(e.lo, e.hi, pc):
			found = e.expr
			return false
		}
		return true
	})
	if found != nil {
		return found, nil
	}
	return deflt, err
}

// locEntry is one entry of a location list: a base address for the entries after it
// (isBase, base as the list gives it), the default location (isDefault), or a range of
// the program's code (file addresses lo to hi) where expr says where the variable is.
type locEntry struct {
	isBase, isDefault bool
	base, lo, hi      uint64
	expr              []byte
}

// walkLocList calls fn for each entry of v's location list, in order, until fn returns
// false or the list ends (DWARF 4's .debug_loc or DWARF 5's .debug_loclists).
func (f *File) walkLocList(v *Var, fn func(locEntry) bool) error {
	if v.cu == nil {
		return fmt.Errorf("%w: location list without a unit", ErrUnsupportedExpr)
	}
	if v.cu.version >= 5 {
		return f.walkLoclist5(v.cu, v.locList, v.locIndexed, fn)
	}
	return f.walkLoclist4(v.cu, uint64(v.locList), fn)
}

func (f *File) walkLoclist4(cu *cuInfo, off uint64, fn func(locEntry) bool) error {
	sec := f.section(".debug_loc")
	if off >= uint64(len(sec)) {
		return fmt.Errorf("%w: location list offset %#x out of .debug_loc", ErrUnsupportedExpr, off)
	}
	n := f.Arch.PtrSize
	maxAddr := uint64(1)<<(8*n) - 1
	if n == 8 {
		maxAddr = ^uint64(0)
	}
	r := &cfiReader{b: sec, pos: int(off), order: f.Arch.ByteOrder}
	base := cu.base
	for r.err == nil {
		lo, hi := r.addr(n), r.addr(n)
		switch {
		case lo == 0 && hi == 0:
			return nil
		case lo == maxAddr:
			base = hi
			if !fn(locEntry{isBase: true, base: base}) {
				return nil
			}
			continue
		}
		expr := r.bytes(int(r.u16()))
		if r.err == nil && !fn(locEntry{lo: base + lo, hi: base + hi, expr: expr}) {
			return nil
		}
	}
	return fmt.Errorf("%w: truncated location list", ErrUnsupportedExpr)
}

func (f *File) walkLoclist5(cu *cuInfo, off int64, indexed bool, fn func(locEntry) bool) error {
	sec := f.section(".debug_loclists")
	if indexed {
		// DW_FORM_loclistx: an index into the offset table at DW_AT_loclists_base.
		p := cu.loclistsBase + uint64(off)*4
		if p+4 > uint64(len(sec)) {
			return fmt.Errorf("%w: location list index %d out of range", ErrUnsupportedExpr, off)
		}
		r := &cfiReader{b: sec, pos: int(p), order: f.Arch.ByteOrder}
		off = int64(cu.loclistsBase + r.u32())
	}
	if off < 0 || off >= int64(len(sec)) {
		return fmt.Errorf("%w: location list offset %#x out of .debug_loclists", ErrUnsupportedExpr, off)
	}
	n := f.Arch.PtrSize
	r := &cfiReader{b: sec, pos: int(off), order: f.Arch.ByteOrder}
	base := cu.base
	addrx := func() uint64 {
		a, err := f.debugAddr(cu, r.uleb())
		if err != nil {
			r.err = err
		}
		return a
	}
	for r.err == nil {
		var lo, hi uint64
		switch kind := r.u8(); kind {
		case 0: // end_of_list
			return nil
		case 1, 6: // base_addressx, base_address
			if kind == 1 {
				base = addrx()
			} else {
				base = r.addr(n)
			}
			if !fn(locEntry{isBase: true, base: base}) {
				return nil
			}
			continue
		case 2: // startx_endx
			lo = addrx()
			hi = addrx()
		case 3: // startx_length
			lo = addrx()
			hi = lo + r.uleb()
		case 4: // offset_pair
			lo = base + r.uleb()
			hi = base + r.uleb()
		case 5: // default_location
			if e := r.bytes(int(r.uleb())); r.err == nil && !fn(locEntry{isDefault: true, expr: e}) {
				return nil
			}
			continue
		case 7: // start_end
			lo, hi = r.addr(n), r.addr(n)
		case 8: // start_length
			lo = r.addr(n)
			hi = lo + r.uleb()
		default:
			return fmt.Errorf("%w: location list entry kind %#x", ErrUnsupportedExpr, kind)
		}
		expr := r.bytes(int(r.uleb()))
		if r.err == nil && !fn(locEntry{lo: lo, hi: hi, expr: expr}) {
			return nil
		}
	}
	return fmt.Errorf("%w: truncated location list: %v", ErrUnsupportedExpr, r.err)
}

func (f *File) inRange(lo, hi, pc uint64) bool {
	return pc >= f.clearThumb(lo) && pc < f.clearThumb(hi)
}

// unitVersion is the DWARF version of the unit whose first entry is at off (Go's
// debug/dwarf keeps it to itself), read from the unit headers of .debug_info.
func (f *File) unitVersion(off dwarf.Offset) int {
	if f.versions == nil {
		f.versions = map[dwarf.Offset]int{}
		info := f.section(".debug_info")
		r := &cfiReader{b: info, order: f.Arch.ByteOrder}
		for r.pos < len(info) && r.err == nil {
			start, offSize := r.pos, 4
			length := r.u32()
			if length == 0xffffffff {
				length, offSize = r.u64(), 8
			}
			next := r.pos + int(length)
			version := int(r.u16())
			hdr := 1 + offSize // DWARF 2-4: abbrev offset, address size
			if version >= 5 {
				hdr = 2 + offSize // unit type, address size, abbrev offset
				switch r.u8() {
				case 0x02, 0x06: // type, split_type: signature, type offset
					hdr += 8 + offSize
				case 0x04, 0x05: // skeleton, split_compile: dwo id
					hdr += 8
				}
				r.pos--
			}
			f.versions[dwarf.Offset(r.pos+hdr)] = version
			if next <= start {
				break
			}
			r.pos = next
		}
	}
	if v, ok := f.versions[off]; ok {
		return v
	}
	return 4
}

package elfsym

// A dynamically linked program calls a library's function through its procedure linkage
// table: an entry "puts@plt" that jumps through the GOT slot the dynamic linker fills. gdb
// names these entries (x/i, disassembly, a backtrace inside one) and, before the program
// runs, binds "break puts" to the entry until the library that defines puts is loaded.
// Their names are in no symbol table: they are read from the code (an indirect jump
// through a slot) and the relocations that say which function fills the slot.

import (
	"debug/elf"
	"encoding/binary"
)

// pltEntry is one PLT entry (link-time address), named after the function it calls.
type pltEntry struct {
	addr, size uint64
	name       string // "puts", without "@plt"
}

// PLTEntry is the run-time address of the PLT entry through which the program calls the
// library function name; false when the program has none.
func (f *File) PLTEntry(name string) (uint64, bool) {
	for _, e := range f.pltEntries() {
		if e.name == name {
			return e.addr + f.Bias, true
		}
	}
	return 0, false
}

// PLTFunction names the function whose PLT entry (of the program or of a library with
// debug information) starts at the run-time pc: foo for foo@plt.
func (f *File) PLTFunction(pc uint64) (string, bool) {
	g := f
	if lf := f.debugLibraryAt(pc); lf != nil {
		g = lf
	}
	for _, e := range g.pltEntries() {
		if e.addr+g.Bias == pc {
			return e.name, true
		}
	}
	return "", false
}

// pltEntries reads the PLT of an x86-64 program, once (nil for other machines and static
// programs).
func (f *File) pltEntries() []pltEntry {
	f.pltOnce.Do(func() { f.plt = readPLT(f.ELF) })
	return f.plt
}

// readPLT finds the entries of the PLT sections (.plt for lazy binding, .plt.sec with
// indirect branch tracking, .plt.got for functions also taken by address): each is an
// indirect jump through a GOT slot ("jmp *disp(%rip)", maybe after "bnd" and "endbr64")
// that a JUMP_SLOT or GLOB_DAT relocation fills with a function.
func readPLT(ef *elf.File) []pltEntry {
	if ef.Machine != elf.EM_X86_64 || ef.Class != elf.ELFCLASS64 {
		return nil
	}
	slots := gotSlots(ef)
	if len(slots) == 0 {
		return nil
	}
	var out []pltEntry
	seen := map[string]bool{}
	for _, name := range []string{".plt.sec", ".plt", ".plt.got"} {
		sec := ef.Section(name)
		if sec == nil || sec.Type != elf.SHT_PROGBITS {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		size := sec.Entsize
		if size == 0 {
			size = 16
		}
		for i := 0; i+6 <= len(data); i++ {
			if data[i] != 0xff || data[i+1] != 0x25 { // jmp *disp32(%rip)
				continue
			}
			next := sec.Addr + uint64(i) + 6
			slot := next + uint64(int64(int32(binary.LittleEndian.Uint32(data[i+2:]))))
			fn, ok := slots[slot]
			if !ok {
				continue
			}
			start := i
			if start >= 1 && data[start-1] == 0xf2 { // bnd
				start--
			}
			if start >= 4 && string(data[start-4:start]) == "\xf3\x0f\x1e\xfa" { // endbr64
				start -= 4
			}
			if !seen[fn] {
				seen[fn] = true
				out = append(out, pltEntry{addr: sec.Addr + uint64(start), size: size, name: fn})
			}
			i += 5
		}
	}
	return out
}

// gotSlots maps each GOT slot a function's address is written into (the JUMP_SLOT and
// GLOB_DAT relocations of the dynamic relocation sections) to that function's name.
func gotSlots(ef *elf.File) map[uint64]string {
	dyn, err := ef.DynamicSymbols()
	if err != nil {
		return nil
	}
	slots := map[uint64]string{}
	for _, sec := range ef.Sections {
		if sec.Type != elf.SHT_RELA || sec.Flags&elf.SHF_ALLOC == 0 {
			continue
		}
		data, err := sec.Data()
		if err != nil {
			continue
		}
		for i := 0; i+24 <= len(data); i += 24 {
			off := binary.LittleEndian.Uint64(data[i:])
			info := binary.LittleEndian.Uint64(data[i+8:])
			typ, sym := elf.R_X86_64(info&0xffffffff), int(info>>32)
			if typ != elf.R_X86_64_JMP_SLOT && typ != elf.R_X86_64_GLOB_DAT || sym < 1 || sym > len(dyn) {
				continue
			}
			if s := dyn[sym-1]; s.Name != "" && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				slots[off] = s.Name
			}
		}
	}
	return slots
}

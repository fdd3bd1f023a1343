package elfsym

// Addresses named by the symbol table, as gdb names a pointer's target: <vals+4>, <main>.

import (
	"debug/elf"
	"fmt"
	"sort"
	"strings"
)

// symRange is one function or object of the ELF symbol table (link-time addresses).
type symRange struct {
	addr, size uint64
	name       string
	// sized is false for a symbol given no size, which reaches to the next one within its
	// section: section is its index.
	sized   bool
	section elf.SectionIndex
}

// symbols returns the functions and objects of the symbol table and the PLT's entries
// (puts@plt) sorted by address, read once.
func (f *File) symbols() []symRange {
	f.symOnce.Do(func() {
		syms, _ := f.symtab() // none in a stripped program: its PLT is still named
		if len(syms) == 0 && f.isLibrary {
			syms, _ = f.ELF.DynamicSymbols() // a stripped library keeps its exported ones
		}
		for _, s := range syms {
			switch elf.ST_TYPE(s.Info) {
			case elf.STT_FUNC, elf.STT_OBJECT:
			default:
				continue
			}
			if s.Value == 0 || s.Name == "" || s.Section == elf.SHN_UNDEF {
				continue
			}
			f.syms = append(f.syms, symRange{addr: f.clearThumb(s.Value), size: s.Size, name: f.cxxSymbolName(s), sized: s.Size > 0, section: s.Section})
		}
		for _, e := range f.pltEntries() {
			f.syms = append(f.syms, symRange{addr: e.addr, size: e.size, name: e.name + "@plt", sized: true})
		}
		sort.Slice(f.syms, func(i, j int) bool { return f.syms[i].addr < f.syms[j].addr })
		// One without a size (frame_dummy, written in assembly or by the linker) reaches to
		// the next symbol, as gdb names what follows it.
		for i := range f.syms {
			if f.syms[i].size == 0 {
				for j := i + 1; j < len(f.syms); j++ {
					if f.syms[j].addr > f.syms[i].addr {
						f.syms[i].size = f.syms[j].addr - f.syms[i].addr
						break
					}
				}
			}
		}
	})
	return f.syms
}

// cxxSymbolName is the name gdb gives a function symbol of a C++ program that has no
// mangled name (main, an extern "C" function): its signature, main(); others' as they are.
func (f *File) cxxSymbolName(s elf.Symbol) string {
	if !f.cplus || elf.ST_TYPE(s.Info) != elf.STT_FUNC || strings.HasPrefix(s.Name, "_Z") {
		return s.Name
	}
	if fn := f.FuncAt(f.clearThumb(s.Value) + f.Bias); fn != nil && fn.cplus && fn.Low == f.clearThumb(s.Value) && fn.linkage == "" {
		return f.Signature(fn)
	}
	return s.Name
}

// SymbolAt names the run-time address addr by the function or object that holds it:
// "vals+4", "main"; a symbol-table name as gdb prints it (gdbSymbolName: count.0 is
// count). ok is false for an address no symbol covers (the stack, the heap).
func (f *File) SymbolAt(addr uint64) (string, bool) { return f.symbolAt(addr, true, true) }

// TableSymbolAt is SymbolAt by the symbol table alone, as gdb's info symbol names an
// address: a clone's first address is its own (weigh.constprop), not its function's.
func (f *File) TableSymbolAt(addr uint64) (string, bool) { return f.symbolAt(addr, true, false) }

// AsmSymbolAt is SymbolAt with symbol-table names as they are (count.0), as gdb's
// disassembly names what an instruction refers to.
func (f *File) AsmSymbolAt(addr uint64) (string, bool) { return f.symbolAt(addr, false, true) }

// SetFileAddresses says whether an address below the load bias is one of the file's, to
// be named as the address it will have loaded: before the program runs, as gdb names
// 0x1139 <main+4> then.
func (f *File) SetFileAddresses(on bool) { f.fileAddrs.Store(on) }

// LoadedAddress is addr as the program has it loaded: a file's address before it runs
// (SetFileAddresses) moved by the load bias, else addr.
func (f *File) LoadedAddress(addr uint64) uint64 {
	if f.fileAddrs.Load() && addr < f.Bias {
		return addr + f.Bias
	}
	return addr
}

// symbolAt names addr by the symbol that holds it: decoded as gdb shows symbol-table names
// (decode), a clone's first address by its function (byFunction).
func (f *File) symbolAt(addr uint64, decode, byFunction bool) (string, bool) {
	addr = f.LoadedAddress(addr)
	a := addr - f.Bias
	syms := f.symbols()
	i := sort.Search(len(syms), func(i int) bool { return syms[i].addr > a }) - 1
	if i < 0 || a >= syms[i].addr+syms[i].size || !syms[i].sized && !f.inSection(syms[i].section, a) {
		if img := f.ImageAt(addr); img != f {
			return img.symbolAt(addr, decode, byFunction) // a loaded library's function or object
		}
		if f.program != nil && !f.inImage(addr) {
			return f.program.symbolAt(addr, decode, byFunction) // a library's pointer to the program (qsort's cmp)
		}
		return "", false
	}
	name := syms[i].name
	if decode {
		name = gdbSymbolName(name)
	}
	if strings.IndexByte(name, '.') < 0 || !byFunction {
		// (no clone: the usual case asks nothing more)
	} else if fn := f.FuncAt(addr); fn != nil && fn.Low == syms[i].addr && strings.HasPrefix(name, fn.Name+".") {
		name = fn.Name // a clone GCC made (weigh.constprop.0): gdb names it by its function
	}
	if off := a - syms[i].addr; off > 0 {
		return fmt.Sprintf("%s+%d", name, off), true
	}
	return name, true
}

// inImage reports whether the run-time address addr is in what the file maps.
func (f *File) inImage(addr uint64) bool {
	for _, p := range f.ELF.Progs {
		if p.Type == elf.PT_LOAD && addr-f.Bias >= p.Vaddr && addr-f.Bias < p.Vaddr+p.Memsz {
			return true
		}
	}
	return false
}

// inSection reports whether the link-time address a is in section i (as gdb names an
// address by a symbol without a size only within the symbol's section: not .got's by
// _DYNAMIC).
func (f *File) inSection(i elf.SectionIndex, a uint64) bool {
	secs := f.symELF().Sections // the table's own: a debug file has the same headers
	if int(i) <= 0 || int(i) >= len(secs) {
		return true // an absolute symbol, or one the table places nowhere
	}
	s := secs[i]
	return a >= s.Addr && a < s.Addr+s.Size
}

// ImageAt is the file whose image holds the run-time address addr: a loaded library's
// (AddLibrary) for its code and data, else f.
func (f *File) ImageAt(addr uint64) *File {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	for _, l := range f.libs.list {
		if addr >= l.imageLo && addr < l.imageHi {
			return l.file()
		}
	}
	return f
}

// SectionAt is the name of the allocated section that holds the run-time address addr
// (".text", ".data"), "" for none.
func (f *File) SectionAt(addr uint64) string {
	a := addr - f.Bias
	for _, s := range f.ELF.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && a >= s.Addr && a < s.Addr+s.Size {
			return s.Name
		}
	}
	return ""
}

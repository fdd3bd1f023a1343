package elfsym

// Names of the symbol tables that no debug information describes, as gdb lists them under
// "Non-debugging symbols:" in info functions and info variables: the program's startup
// code and linker symbols (_start, _init, __bss_start), its PLT entries (puts@plt), and
// once the program runs every loaded library's functions and data.

import (
	"debug/elf"
	"fmt"
	"sort"
	"sync"

	"github.com/polydbg/polydbg/internal/cxxname"
)

// MinSym is a non-debugging symbol at its run-time address: a function (code) or data.
type MinSym struct {
	Name string
	Addr uint64
	Data bool
	// IFunc marks a GNU indirect function: its address is a resolver's, which returns the
	// implementation's for this machine (glibc's strlen).
	IFunc bool
}

type minSyms struct {
	once sync.Once
	list []MinSym // link-time addresses, sorted
}

// MinSyms are f's non-debugging symbols, by address (the names of one address in order),
// followed by those of each library added (AddLibrary), the dynamic linker's first.
func (f *File) MinSyms() []MinSym {
	out := f.ownMinSyms()
	f.libs.mu.Lock()
	libs := append([]*library(nil), f.libs.list...)
	f.libs.mu.Unlock()
	interp := f.Interpreter()
	sort.SliceStable(libs, func(i, j int) bool { return libs[i].path == interp && libs[j].path != interp })
	for _, l := range libs {
		out = append(out, l.file().ownMinSyms()...)
	}
	return out
}

// ownMinSyms are f's own non-debugging symbols at run time.
func (f *File) ownMinSyms() []MinSym {
	ms := &f.minSyms
	ms.once.Do(func() { ms.list = f.readMinSyms() })
	out := make([]MinSym, len(ms.list))
	for i, s := range ms.list {
		s.Addr += f.Bias
		out[i] = s
	}
	return out
}

func (f *File) readMinSyms() []MinSym {
	syms, err := f.symtab()
	if err != nil || len(syms) == 0 {
		syms, _ = f.ELF.DynamicSymbols() // a stripped library keeps its exported ones
	}
	described := map[string]bool{}
	at := map[uint64]bool{} // C++'s functions' symbols are other names for them (_ZN3geo6SquareC1Ei)
	for _, fn := range f.funcs {
		if fn.entry != 0 { // not one known only from the symbol table
			described[fn.Name] = true
			if fn.cplus {
				at[fn.Low] = true
			}
		}
	}
	vars := f.readVarDecls().names
	var out []MinSym
	seen := map[MinSym]bool{}
	for _, s := range syms {
		if s.Name == "" || s.Section == elf.SHN_UNDEF {
			continue
		}
		name := gdbSymbolName(s.Name) // (a function's static calls.0 is gdb's calls)
		var m MinSym
		switch elf.ST_TYPE(s.Info) {
		case elf.STT_FUNC, elf.STT_GNU_IFUNC:
			if described[name] || at[f.clearThumb(s.Value)] {
				continue
			}
			m = MinSym{Name: name, Addr: f.clearThumb(s.Value), IFunc: elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC}
		case elf.STT_OBJECT, elf.STT_NOTYPE, elf.STT_TLS:
			code := f.executableSection(s.Section)
			if !code && (vars[name] || vars[cxxname.Symbol(name)]) || code && described[name] {
				continue
			}
			m = MinSym{Name: name, Addr: s.Value, Data: !code}
		default:
			continue
		}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	for _, e := range f.pltEntries() {
		out = append(out, MinSym{Name: e.name + "@plt", Addr: e.addr})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Addr < b.Addr || a.Addr == b.Addr && a.Name < b.Name
	})
	return out
}

// executableSection reports whether section i holds code.
func (f *File) executableSection(i elf.SectionIndex) bool {
	secs := f.symELF().Sections // the table's own: a debug file has the same headers
	return int(i) < len(secs) && i != elf.SHN_ABS && secs[i].Flags&elf.SHF_EXECINSTR != 0
}

// FunctionSymbol is the function of the program or a loaded library that only its symbol
// table names (libc's puts): the program's own first, then the libraries'.
func (f *File) FunctionSymbol(name string) (MinSym, bool) {
	for _, m := range f.MinSyms() {
		if !m.Data && m.Name == name {
			return m, true
		}
	}
	return MinSym{}, false
}

// NoDebugFunc is the value of a function known only by its symbol, as gdb shows one:
// {<text variable, no debug info>} 0x7ffff7e4b980 <puts>. It has no type: a call of it
// needs its return type said by a cast.
func NoDebugFunc(m MinSym) Value {
	typ := "<text variable, no debug info>"
	if m.IFunc {
		typ = "<text gnu-indirect-function variable, no debug info>"
	}
	return Value{Name: m.Name, Type: typ, Kind: "func", Addr: m.Addr, InMemory: true,
		Text: fmt.Sprintf("{%s} %#x <%s>", typ, m.Addr, m.Name)}
}

package elfsym

// Names of the symbol tables that no debug information describes, as gdb lists them under
// "Non-debugging symbols:" in info functions and info variables: the program's startup
// code and linker symbols (_start, _init, __bss_start), its PLT entries (puts@plt), and
// once the program runs every loaded library's functions and data.

import (
	"debug/dwarf"
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
	// TLS marks a thread-local variable: its value is an offset in each thread's block.
	TLS bool
	// symbol is the name in the symbol table, when Name is gdb's reading of it (count.0
	// is shown as count, but found only by its own name).
	symbol string
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
			if described[name] || at[f.clearThumb(s.Value)] || f.describedCodeAt(f.clearThumb(s.Value)) {
				continue // (gdb lists no function symbol in code its debug information covers)
			}
			m = MinSym{Name: name, Addr: f.clearThumb(s.Value), IFunc: elf.ST_TYPE(s.Info) == elf.STT_GNU_IFUNC}
		case elf.STT_OBJECT, elf.STT_NOTYPE, elf.STT_TLS:
			code := f.executableSection(s.Section)
			if !code && (vars[name] || vars[cxxname.Symbol(name)]) || code && described[name] {
				continue
			}
			m = MinSym{Name: name, Addr: s.Value, Data: !code, TLS: elf.ST_TYPE(s.Info) == elf.STT_TLS}
			if name != s.Name {
				m.symbol = s.Name
			}
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

// describedCodeAt reports whether the link-time address a is in a function the file's debug
// information describes (libc's _IO_free_backup_area is its __GI__IO_free_backup_area).
func (f *File) describedCodeAt(a uint64) bool {
	i := sort.Search(len(f.funcs), func(i int) bool { return f.funcs[i].Low > a }) - 1
	for ; i >= 0 && f.funcs[i].Low+1<<20 >= a; i-- {
		if fn := f.funcs[i]; fn.entry != 0 && a >= fn.Low && a < fn.High {
			return true
		}
	}
	return false
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

// DataSymbol is the variable of the program or a loaded library that only its symbol
// table names (a program built without -g: its counter; a library's environ), the
// program's own first; thread-local ones are left out.
func (f *File) DataSymbol(name string) (MinSym, bool) {
	for _, m := range f.MinSyms() {
		if m.Data && !m.TLS && m.Name == name && (m.symbol == "" || m.symbol == name) {
			return m, true
		}
	}
	if _, _, ok := f.ExternType(name); ok { // left out of the lists by its declaration (libc's environ)
		if a, ok := f.AnySymbol(name); ok {
			return MinSym{Name: name, Addr: a, Data: true}, true
		}
	}
	return MinSym{}, false
}

// NoDebugDataType is gdb's type of a variable known by its symbol alone.
const NoDebugDataType = "<data variable, no debug info>"

// NoDebugData is a variable known by its symbol alone, as gdb has one: without a type it is
// read only through a cast ((int)counter, ReadAs) or its address (&counter).
func NoDebugData(m MinSym) Value {
	return Value{Name: m.Name, Type: NoDebugDataType, Kind: "nodebug", Addr: m.Addr, InMemory: true}
}

// UnknownTypeError is gdb's error for a use of a variable without a type (NoDebugData)
// that needs one.
func UnknownTypeError(name string) error {
	return fmt.Errorf("'%s' has unknown type; cast it to its declared type", name)
}

// ReadAs reads the object of type t at v's address, as gdb's cast of a variable without
// debug information ((int)counter) reads it.
func (f *File) ReadAs(t dwarf.Type, v Value, mem Memory) (Value, error) {
	pt := &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: t}
	return f.Element(f.FormatValue(pt, f.wordBytes(v.Addr, f.Arch.PtrSize), 0, false, mem, 0), 0, mem)
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

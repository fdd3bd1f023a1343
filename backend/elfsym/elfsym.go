// Package elfsym reads what a native or remote debugger needs from an ELF file and its
// DWARF: functions, line tables both ways, call frame information (.debug_frame and
// .eh_frame, with polydbg's own CFA interpreter) for unwinding, including through a
// Cortex-M exception entry, and variables through DWARF location expressions.
//
// Every address in the API is a run-time address: File.Bias (the load bias of a PIE) is
// added to link-time addresses on the way out and subtracted on the way in. On ARM, Thumb
// addresses have bit 0 cleared. Target memory and registers are reached through the small
// Memory and Registers interfaces, so the package serves any target.
package elfsym

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// Memory reads target memory.
type Memory interface {
	ReadMemory(addr uint64, n int) ([]byte, error)
}

// Registers gives register values by DWARF register number.
type Registers interface {
	Register(dwarfReg int) (uint64, bool)
}

// Pseudo DWARF register numbers for Cortex-M stack pointers (not in the ARM DWARF ABI): a
// Registers implementation that knows them lets Unwind follow an exception frame on PSP.
const (
	RegARMMSP = 0x10000 + iota
	RegARMPSP
)

// Arch describes the machine of an ELF file.
type Arch struct {
	Machine   elf.Machine
	Name      string // "x86-64", "arm", "aarch64", "386"
	PtrSize   int
	ByteOrder binary.ByteOrder
	SP, PC    int // DWARF numbers (PC is -1 where DWARF has none)
	RA        int // default return address column
	FP        int // frame pointer register, -1 if none
	RegNames  []string
}

// RegName is the conventional name of a DWARF register ("" when unknown).
func (a *Arch) RegName(n int) string {
	if n >= 0 && n < len(a.RegNames) {
		return a.RegNames[n]
	}
	return ""
}

// RegNum finds a DWARF register by name.
func (a *Arch) RegNum(name string) (int, bool) {
	for i, n := range a.RegNames {
		if n == name {
			return i, true
		}
	}
	return 0, false
}

func archOf(f *elf.File) (*Arch, error) {
	a := &Arch{Machine: f.Machine, ByteOrder: f.ByteOrder, FP: -1}
	switch f.Machine {
	case elf.EM_X86_64:
		a.Name, a.PtrSize, a.SP, a.PC, a.RA, a.FP = "x86-64", 8, 7, 16, 16, 6
		a.RegNames = []string{"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
			"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"}
		for i := range 16 { // 17-32: where optimised code keeps floats and doubles
			a.RegNames = append(a.RegNames, fmt.Sprintf("xmm%d", i))
		}
	case elf.EM_386:
		a.Name, a.PtrSize, a.SP, a.PC, a.RA, a.FP = "386", 4, 4, 8, 8, 5
		a.RegNames = []string{"eax", "ecx", "edx", "ebx", "esp", "ebp", "esi", "edi", "eip"}
	case elf.EM_ARM:
		a.Name, a.PtrSize, a.SP, a.PC, a.RA, a.FP = "arm", 4, 13, 15, 14, 11
		a.RegNames = []string{"r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9",
			"r10", "r11", "r12", "sp", "lr", "pc"}
	case elf.EM_AARCH64:
		a.Name, a.PtrSize, a.SP, a.PC, a.RA, a.FP = "aarch64", 8, 31, -1, 30, 29
		for i := range 31 {
			a.RegNames = append(a.RegNames, fmt.Sprintf("x%d", i))
		}
		a.RegNames = append(a.RegNames, "sp")
	default:
		return nil, fmt.Errorf("elfsym: unsupported machine %v", f.Machine)
	}
	return a, nil
}

// Func is a function.
type Func struct {
	Name      string
	Low, High uint64 // link-time [Low, High)
	File      string
	Line      int
	entry     dwarf.Offset // DW_TAG_subprogram, 0 when known only from the symbol table
	frameBase []byte
	cu        dwarf.Offset
	// noPrologue: a breakpoint on the function goes on its first instruction.
	noPrologue bool
	linkage    string // DW_AT_linkage_name (C++'s mangled name)
	cplus      bool   // from a C++ unit
	owner      *File  // the file that describes it (a library's, for a library's function)
	// entryPC is where the function is entered (link-time): its first range's start, the
	// same for each part of a function split in hot and cold parts.
	entryPC uint64
}

// LineRow is one row of a line table. It holds no pointer (its file is an index), so a
// big library's table of hundreds of thousands is neither scanned by the collector nor
// copied with write barriers.
type LineRow struct {
	Addr   uint64 // link-time
	Line   int
	Column int
	file   uint32 // File.rowFiles[file]
	IsStmt bool
	End    bool // end of a sequence: Addr is the first address after it
	// Merged is set on a row gdb leaves out of its line table: one that continues the line
	// of the row before it, in a line with a non-zero discriminator (a loop's body).
	Merged bool
}

// File is an ELF file with its symbols.
type File struct {
	ELF   *elf.File
	DWARF *dwarf.Data // nil when the file has no debug info
	Arch  *Arch
	// Bias is added to every link-time address (the load bias of a PIE; 0 otherwise).
	Bias uint64
	// fileAddrs: an address below Bias is the file's (link-time), as gdb has a program's
	// addresses before it runs (SetFileAddresses).
	fileAddrs atomic.Bool
	// Path is the file Open read ("" for one made by New); DebugPath its separate debug
	// file, "" when it has none or holds its own debug information.
	Path, DebugPath string
	dbg             *elf.File // the separate debug file, nil when none
	warnings        []string  // Warnings

	funcs []*Func   // sorted by Low
	rows  []LineRow // sorted by Addr; sequences separated by End rows
	// rowFiles are the file names the rows index ("" first: a row without a file).
	rowFiles []string
	files    []string // every source file of the line tables
	frames   *cfiTable
	closer   func() error
	// code is where the file has code: DWARF for anything else describes what the linker
	// discarded.
	code codeSet
	// libs are the shared libraries the unwinder walks through (AddLibrary); isLibrary is
	// set on each of them.
	libs      libraries
	isLibrary bool
	program   *File // a library's: the program that loaded it
	// lazy guards what is read on first use by several goroutines: sections, and
	// debug/dwarf's type cache.
	lazy sync.Mutex
	// C++ (cplus.go, cplustypes.go): whether any unit is C++, the scopes of types declared
	// in namespaces and classes, the types walked (under lazy) and the classes' bases and
	// static members.
	cplus     bool
	typeScope map[dwarf.Offset]string
	usings    []usingEntry                // C++'s using directives, declarations and namespace aliases (using.go)
	atomics   map[dwarf.Offset]dwarf.Type // C11's _Atomic types, restored (flexible.go)
	varScope  map[dwarf.Offset]string     // variables declared in namespaces and classes
	fixed     map[dwarf.Offset]dwarf.Type
	classes   map[*dwarf.StructType]*Class
	flexDone  map[dwarf.Offset]bool // the type entries whose flexible array members are restored (flexible.go)
	sigMu     sync.Mutex
	sigs      map[*Func]string // C++ functions' signatures, read when first asked for
	// enums are the enumeration constants by name, read on first use (Enumerator).
	enumsOnce sync.Once
	enums     map[string]enumConst
	// discarded names the functions DWARF describes but the linker left out.
	discarded map[string]bool
	// dropped is the line span of each discarded line sequence.
	dropped     []lineSpan
	cus         map[dwarf.Offset]*cuInfo
	sourceNames sourceNames // SourceName's table, made at its first call
	typeDecls   typeDecls   // TypeDecls' list, read at its first call
	types       typeIndex   // LookupType's index, read at its first call
	globalIx    globalIndex // Global's index, read at its first call
	varDecls    varDecls    // VarDecls' list, read at its first call
	minSyms     minSyms     // MinSyms' own list, read at its first call
	limits      printLimits // how values are shortened (SetPrintLimits)
	inlines     []*Inline
	sections    map[string][]byte
	versions    map[dwarf.Offset]int // DWARF version by a unit's first entry
	calls       callSiteIndex        // call sites by return address, read when first needed
	symOnce     sync.Once
	syms        []symRange // functions and objects by address (symbolize.go)
	pltOnce     sync.Once
	plt         []pltEntry // the PLT's entries (plt.go)
}

// Close closes the ELF file when Open opened it.
func (f *File) Close() error {
	if f.closer != nil {
		return f.closer()
	}
	return nil
}

// IsPIE reports whether the file is position independent (its load bias is not known
// until it runs).
func (f *File) IsPIE() bool { return f.ELF.Type == elf.ET_DYN }

// Entry is the run-time entry point.
func (f *File) Entry() uint64 { return f.clearThumb(f.ELF.Entry) + f.Bias }

// ClearThumb drops the Thumb bit of an ARM code address (a pc, a return address); other
// architectures' addresses are returned as they are.
func (f *File) ClearThumb(a uint64) uint64 { return f.clearThumb(a) }

func (f *File) clearThumb(a uint64) uint64 {
	if f.Arch.Machine == elf.EM_ARM {
		return a &^ 1
	}
	return a
}

func (f *File) readDWARF() error {
	r := f.DWARF.Reader()
	fileIdx := map[string]uint32{"": 0}
	f.rowFiles = []string{""}
	var rows rowChunks
	defer func() { f.rows = rows.table() }()
	for {
		cu, err := r.Next()
		if err != nil {
			return fmt.Errorf("elfsym: DWARF: %w", err)
		}
		if cu == nil {
			break
		}
		if cu.Tag == dwarf.TagPartialUnit && cu.Children { // what dwz moved out of the units: the
			if _, err := f.walkCU(r, cu.Offset, nil); err != nil { // scopes of its types and variables
				return err
			}
			continue
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		files := f.readLines(cu, fileIdx, &rows)
		cuOff := cu.Offset
		f.cus[cuOff] = f.newCU(cu)
		f.cplus = f.cplus || f.cus[cuOff].lang == "c++"
		if !cu.Children {
			continue
		}
		first := len(f.funcs)
		hasLoclist, err := f.walkCU(r, cuOff, files)
		if err != nil {
			return err
		}
		// gdb trusts the variable locations of optimised GCC code (a CU with location
		// lists) from a function's first instruction, and so does not skip its prologue.
		producer, _ := cu.Val(dwarf.AttrProducer).(string)
		if hasLoclist && strings.HasPrefix(producer, "GNU ") {
			for _, fn := range f.funcs[first:] {
				fn.noPrologue = true
			}
		}
	}
	f.nameFromLinkage()
	return nil
}

// funcsFromEntry makes the functions of a DW_TAG_subprogram: one per address range (a
// function -O2 split into hot and cold parts has two), named through DW_AT_abstract_origin
// or DW_AT_specification when the entry is a concrete instance. Discarded code is left out
// and its name remembered.
func (f *File) funcsFromEntry(e *dwarf.Entry, cu dwarf.Offset) []*Func {
	name, linkage := f.originNames(e)
	if name == "" {
		return nil
	}
	var ranges [][2]uint64
	if lowv, ok := e.Val(dwarf.AttrLowpc).(uint64); ok {
		switch h := e.Val(dwarf.AttrHighpc).(type) {
		case uint64:
			ranges = append(ranges, [2]uint64{lowv, h})
		case int64:
			ranges = append(ranges, [2]uint64{lowv, lowv + uint64(h)})
		}
	} else if e.Val(dwarf.AttrRanges) != nil {
		rs, _ := f.DWARF.Ranges(e)
		ranges = rs
	}
	if len(ranges) == 0 {
		return nil
	}
	name, linkage = cLinkageName(name, linkage)
	cplus := f.cus[cu] != nil && f.cus[cu].lang == "c++"
	entryPC := f.clearThumb(ranges[0][0])
	if ep, ok := e.Val(dwarf.AttrEntrypc).(uint64); ok {
		entryPC = f.clearThumb(ep)
	}
	var out []*Func
	for _, rg := range ranges {
		low := f.clearThumb(rg[0])
		if !f.code.has(low) {
			continue
		}
		fn := &Func{Name: name, Low: low, High: f.clearThumb(rg[1]), entry: e.Offset, cu: cu, entryPC: entryPC}
		fn.linkage, fn.cplus = linkage, cplus
		if l, ok := f.originVal(e, dwarf.AttrDeclLine).(int64); ok {
			fn.Line = int(l)
		}
		if fb, ok := e.Val(dwarf.AttrFrameBase).([]byte); ok {
			fn.frameBase = fb
		}
		out = append(out, fn)
	}
	if len(out) == 0 {
		f.discarded[name] = true
	}
	return out
}

// cLinkageName is the name gdb gives a function whose DW_AT_linkage_name is not C++'s
// mangled one: that name, an assembler name given in C (glibc's __GI__IO_puts for
// _IO_puts); linkage is kept for C++'s alone (named from it once every unit is read:
// nameFromLinkage).
func cLinkageName(name, linkage string) (string, string) {
	switch {
	case strings.HasPrefix(linkage, "_Z"):
		return name, linkage
	case linkage != "":
		return linkage, ""
	}
	return name, ""
}

// originNames are e's DW_AT_name and DW_AT_linkage_name, each its own or of the entry
// it is an instance or the definition of (originVal's walk, made once for both).
func (f *File) originNames(e *dwarf.Entry) (name, linkage string) {
	for range 4 {
		if name == "" {
			name, _ = e.Val(dwarf.AttrName).(string)
		}
		if linkage == "" {
			linkage, _ = e.Val(dwarf.AttrLinkageName).(string)
		}
		if name != "" && linkage != "" {
			return name, linkage
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			if off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
				return name, linkage
			}
		}
		r := f.DWARF.Reader()
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil {
			return name, linkage
		}
		e = next
	}
	return name, linkage
}

// originVal is attribute a of e, or of the entry e is a concrete instance or the
// definition of (DW_AT_abstract_origin, DW_AT_specification), followed a few levels.
func (f *File) originVal(e *dwarf.Entry, a dwarf.Attr) any {
	for range 4 {
		if v := e.Val(a); v != nil {
			return v
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			if off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset); !ok {
				return nil
			}
		}
		r := f.DWARF.Reader()
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil {
			return nil
		}
		e = next
	}
	return nil
}

// readSymtab adds functions of the symbol table that DWARF does not describe.
func (f *File) readSymtab() {
	syms, err := f.symtab()
	if err != nil {
		return
	}
	known := map[uint64]bool{}
	for _, fn := range f.funcs {
		known[fn.Low] = true
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Value == 0 || s.Name == "" {
			continue
		}
		low := f.clearThumb(s.Value)
		if known[low] {
			continue
		}
		known[low] = true
		size := s.Size
		if size == 0 {
			size = 1
		}
		f.funcs = append(f.funcs, &Func{Name: s.Name, Low: low, High: low + size})
	}
}

// Funcs returns every function, the program's then those of the loaded libraries with
// debug information (link-time addresses: Start and End are the run-time ones).
func (f *File) Funcs() []*Func {
	return withLibraries(f, f.funcs, func(lf *File) []*Func { return lf.funcs })
}

// Files returns the source files of the line tables: the program's, then those of the
// loaded libraries with debug information.
func (f *File) Files() []string {
	return withLibraries(f, f.files, func(lf *File) []string { return lf.files })
}

// FuncByName finds a function by name (the first of those `break name` binds at, see
// FuncsNamed).
func (f *File) FuncByName(name string) (*Func, bool) {
	if fns := f.FuncsNamed(name); len(fns) > 0 {
		return fns[0], true
	}
	return nil, false
}

// FuncsNamed returns the functions `break name` binds at, by address: every function
// debug information describes by that name (C's static functions of several files, C++'s
// overloads, template instances and scopes: see nameMatches), else the symbol table's.
func (f *File) FuncsNamed(name string) []*Func {
	out := f.ownFuncsNamed(name)
	if isCKeyword(name) {
		return out // (ptype struct point reads no library to find a function "struct")
	}
	for _, lf := range f.debugLibraries() {
		out = append(out, lf.ownFuncsNamed(name)...)
	}
	return out
}

// ownFuncsNamed is FuncsNamed among the file's own functions.
func (f *File) ownFuncsNamed(name string) []*Func {
	var out []*Func
	var fromSymtab *Func
	seen := map[dwarf.Offset]bool{}
	for _, fn := range f.funcs {
		if fn.entry == 0 {
			if fromSymtab == nil && fn.Name == name {
				fromSymtab = fn
			}
			continue
		}
		if seen[fn.entry] || !nameMatches(fn.Name, func() string { return f.Signature(fn) }, name) {
			continue
		}
		seen[fn.entry] = true // a function split in parts is bound at its first
		out = append(out, fn)
	}
	if len(out) == 0 && fromSymtab != nil {
		out = append(out, fromSymtab)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Low < out[j].Low })
	return out
}

// FuncAt finds the function containing the run-time pc.
func (f *File) FuncAt(pc uint64) *Func {
	a := f.clearThumb(pc - f.Bias)
	i := sort.Search(len(f.funcs), func(i int) bool { return f.funcs[i].Low > a }) - 1
	for ; i >= 0; i-- {
		fn := f.funcs[i]
		if a >= fn.Low && a < fn.High {
			return fn
		}
		if fn.Low+1<<20 < a { // no function spans that far back
			break
		}
	}
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.FuncAt(pc)
	}
	return nil
}

// FuncBreakpoint returns the run-time address for a breakpoint on function name: after its
// prologue when the line table says where that is.
func (f *File) FuncBreakpoint(name string) (uint64, error) {
	fn, ok := f.FuncByName(name)
	if !ok {
		return 0, f.noFunc(name)
	}
	return f.BreakpointAt(fn), nil
}

// BreakpointAt is the run-time address for a breakpoint on fn: after its prologue, as
// FuncBreakpoint's.
func (f *File) BreakpointAt(fn *Func) uint64 {
	o := f.fileOf(fn)
	return o.afterPrologue(fn) + o.Bias
}

// Symbol finds an ELF symbol (function or object) by name: its run-time address and size.
func (f *File) Symbol(name string) (addr, size uint64, ok bool) {
	syms, err := f.symtab()
	if err != nil {
		return 0, 0, false
	}
	for _, s := range syms {
		if s.Name == name && s.Value != 0 {
			return f.clearThumb(s.Value) + f.Bias, s.Size, true
		}
	}
	return 0, 0, false
}

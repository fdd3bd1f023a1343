package elfsym

// Shared libraries the program has loaded, so that a backtrace goes on through their
// frames (a thread waiting in libc's futex call, a callback from qsort) to the program's own
// code, as gdb's does. A library is read for its call frame information (.eh_frame, which
// even a stripped libc keeps) and its function symbols; one built with debug information
// is read as fully as the program (libdebug.go).

import (
	"debug/elf"

	"github.com/polydbg/polydbg/internal/cxxname"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
)

// library is a shared object mapped into the program.
type library struct {
	base *File // read from the library's own file
	// mayHaveDebug says it has no DWARF of its own but names a separate debug file (by
	// build id or debug link): looked for, and read into full, when first needed
	// (debugged: a frame in its code, a name looked up in it), in the folders set then.
	mayHaveDebug bool
	once         sync.Once
	full         atomic.Pointer[File]
	path         string
	lo, hi       uint64 // run-time range of its code
	// imageLo, imageHi is the run-time range of all it maps (code and data).
	imageLo, imageHi uint64
	syms             []funcSym
}

// funcSym is a function symbol of a library, at run time.
type funcSym struct {
	addr, size uint64
	name       string
}

// libraries are the shared objects added to a File.
type libraries struct {
	mu   sync.Mutex
	list []*library
	// debug is set once a library with debug information is added: until then a question
	// about a pc is the program's alone, without a look at the libraries (libdebug.go).
	debug atomic.Bool
	dirs  DebugDirs // where their separate debug files are looked for (SetDebugDirs)
	// warnings are what reading the libraries added found wrong, not yet taken
	// (TakeLibraryWarnings).
	warnings []string
}

// TakeLibraryWarnings returns what reading the libraries added since the last call found
// wrong and left out, in gdb's words (a supplementary debug file not found), once each.
func (f *File) TakeLibraryWarnings() []string {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	w := f.libs.warnings
	f.libs.warnings = nil
	return w
}

// SetDebugDirs sets the folders searched for the separate debug files of the libraries
// added from now on (gdb's debug-file-directory).
func (f *File) SetDebugDirs(dirs DebugDirs) {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	f.libs.dirs = dirs
}

// AddLibrary makes the unwinder go through the frames of the shared object at path,
// loaded at bias (the l_addr the dynamic linker reports). A library already added at that
// bias is kept as it is.
func (f *File) AddLibrary(path string, bias uint64) error {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	for _, l := range f.libs.list {
		if l.path == path && l.base.Bias == bias {
			return nil
		}
	}
	lf, err := open(path, f.libs.dirs, nil) // (its separate debug file read when needed: debugged)
	if err != nil {
		return err
	}
	lf.Bias, lf.isLibrary, lf.program = bias, true, f
	l := &library{base: lf, path: path, mayHaveDebug: lf.DWARF == nil && mayHaveDebugFile(lf.ELF)}
	f.libs.warnings = append(f.libs.warnings, lf.Warnings()...)
	if l.mayHaveDebug { // told now, as gdb does when it reads the library, not when it is read
		if w := supFileMissing(lf.ELF, path, f.libs.dirs); w != "" {
			f.libs.warnings = append(f.libs.warnings, w)
		}
	}
	for _, p := range lf.ELF.Progs {
		if p.Type == elf.PT_LOAD && p.Memsz > 0 {
			if l.imageHi == 0 || p.Vaddr+bias < l.imageLo {
				l.imageLo = p.Vaddr + bias
			}
			l.imageHi = max(l.imageHi, p.Vaddr+p.Memsz+bias)
		}
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Memsz > 0 {
			lo, hi := p.Vaddr+bias, p.Vaddr+p.Memsz+bias
			if l.hi == 0 || lo < l.lo {
				l.lo = lo
			}
			l.hi = max(l.hi, hi)
		}
	}
	syms, err := lf.symtab()
	if err != nil || len(syms) == 0 {
		syms, _ = lf.ELF.DynamicSymbols() // a stripped library keeps its exported ones
	}
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			l.syms = append(l.syms, funcSym{addr: lf.clearThumb(s.Value) + bias, size: s.Size, name: s.Name})
		}
	}
	// By address, and the names of one address in order: symbolAt takes the last, as gdb
	// does (raise, not gsignal; nanosleep, not __nanosleep).
	sort.Slice(l.syms, func(i, j int) bool {
		a, b := l.syms[i], l.syms[j]
		return a.addr < b.addr || a.addr == b.addr && a.name < b.name
	})
	f.libs.list = append(f.libs.list, l)
	if lf.DWARF != nil || l.mayHaveDebug {
		f.libs.debug.Store(true)
	}
	return nil
}

// file is the library's File as read so far: with its separate debug information once
// debugged has read it.
func (l *library) file() *File {
	if full := l.full.Load(); full != nil {
		return full
	}
	return l.base
}

// debugged is the library's File with its separate debug information, read at the first
// call (the file as it is when it has none, or it cannot be read).
func (l *library) debugged() *File {
	l.once.Do(func() {
		if !l.mayHaveDebug {
			return
		}
		debugPath := findDebugFile(l.base.ELF, l.path, l.base.program.DebugDirs())
		if debugPath == "" {
			return
		}
		full, err := open(l.path, l.base.program.DebugDirs(), func(*elf.File) string { return debugPath })
		if err != nil || full.DWARF == nil {
			return
		}
		full.Bias, full.isLibrary, full.program = l.base.Bias, true, l.base.program
		l.full.Store(full)
	})
	return l.file()
}

// DebugFilesRead are the separate debug files of the libraries added that have been read
// so far (each is read the first time it is needed, libc's taking about a second).
func (f *File) DebugFilesRead() []string {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	var out []string
	for _, l := range f.libs.list {
		if full := l.full.Load(); full != nil {
			out = append(out, full.DebugPath)
		}
	}
	return out
}

// HasCodeAt reports whether the run-time pc is in the program's own code or in a library
// added with AddLibrary.
func (f *File) HasCodeAt(pc uint64) bool {
	return f.code.has(f.clearThumb(pc-f.Bias)) || f.libraryAt(pc) != nil
}

// OwnCodeAt reports whether the run-time pc is in the file's own code (not a library's).
func (f *File) OwnCodeAt(pc uint64) bool { return f.code.has(f.clearThumb(pc - f.Bias)) }

// libraryAt is the added library whose code holds the run-time pc, or nil.
func (f *File) libraryAt(pc uint64) *library {
	if f.code.has(f.clearThumb(pc - f.Bias)) {
		return nil // the program's own code first
	}
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	for _, l := range f.libs.list {
		if pc >= l.lo && pc < l.hi {
			return l
		}
	}
	return nil
}

// symbolAt names the function of a library that holds pc, and where it starts: the
// nearest symbol at or below it, unless that one has a size and ends before pc ("", 0). A
// C++ function is named as gdb names it, demangled (std::terminate()).
func (l *library) symbolAt(pc uint64) (string, uint64) {
	i := sort.Search(len(l.syms), func(i int) bool { return l.syms[i].addr > pc }) - 1
	if i < 0 {
		return "", 0
	}
	if s := l.syms[i]; s.size == 0 || pc < s.addr+s.size {
		return cxxname.Symbol(s.name), s.addr
	}
	return "", 0
}

// name is the library as a backtrace names it: its file name.
func (l *library) name() string { return filepath.Base(l.path) }

// LibraryFunction is the run-time address of a function a loaded library (AddLibrary)
// defines by that name, and the library's path; false when none does.
func (f *File) LibraryFunction(name string) (addr uint64, path string, ok bool) {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	for _, l := range f.libs.list {
		for _, s := range l.syms {
			if s.name == name {
				return s.addr, l.path, true
			}
		}
	}
	return 0, "", false
}

// LibrarySymbol names the library function that holds the run-time pc as a backtrace names
// it (of the names of one address, the one gdb shows: ntp_adjtime, not adjtimex); false when
// no added library's symbol covers pc.
func (f *File) LibrarySymbol(pc uint64) (string, bool) {
	l := f.libraryAt(pc)
	if l == nil {
		return "", false
	}
	name, start := l.symbolAt(pc)
	return name, name != "" && start == pc
}

// AnySymbol is the run-time address of the symbol (function or object) name in the
// program or a library it has loaded; false when none has it.
func (f *File) AnySymbol(name string) (uint64, bool) {
	if a, _, ok := f.Symbol(name); ok {
		return a, true
	}
	f.libs.mu.Lock()
	libs := append([]*library(nil), f.libs.list...)
	f.libs.mu.Unlock()
	for _, l := range libs {
		lf := l.file()
		if a, _, ok := lf.Symbol(name); ok {
			return a, true
		}
		syms, _ := lf.ELF.DynamicSymbols() // a stripped library keeps its exported ones
		for _, s := range syms {
			if s.Name == name && s.Value != 0 {
				return lf.clearThumb(s.Value) + lf.Bias, true
			}
		}
	}
	return 0, false
}

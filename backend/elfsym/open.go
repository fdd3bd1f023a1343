package elfsym

// Reading an ELF file: its symbols, DWARF and call frame information, from the file
// itself or, for a stripped one, from its separate debug file (debugfile.go).

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"slices"
	"sort"

	"github.com/polydbg/polydbg/internal/fileload"
)

// Open opens and reads an ELF file; a stripped one with its separate debug file, when
// there is one where gdb looks by default (DefaultDebugDir, beside it).
func Open(path string) (*File, error) { return OpenWith(path, nil) }

// OpenWith is Open looking for a separate debug file in dirs, and for those of the
// libraries added later (SetDebugDirs).
func OpenWith(path string, dirs DebugDirs) (*File, error) {
	f, err := open(path, dirs, func(ef *elf.File) string {
		if hasDWARF(ef) {
			return ""
		}
		return findDebugFile(ef, path, dirs)
	})
	if err == nil {
		f.libs.dirs = dirs
	}
	return f, err
}

// open opens and reads the ELF file at path, with the separate debug file debugFile names
// for it ("" or a nil debugFile: none); a supplementary debug file is looked for in dirs.
func open(path string, dirs DebugDirs, debugFile func(*elf.File) string) (*File, error) {
	file, err := fileload.Open(path)
	if err != nil {
		return nil, fmt.Errorf("elfsym: %w", err)
	}
	ef, err := elf.NewFile(file)
	if err != nil {
		file.Close()
		return nil, fmt.Errorf("elfsym: %w", err)
	}
	closers := []func() error{file.Close}
	var dbg *elf.File
	debugPath := ""
	if debugFile != nil {
		debugPath = debugFile(ef)
	}
	if debugPath != "" {
		d, closeDebug, err := openDebugFile(debugPath, ef)
		if err != nil {
			file.Close()
			return nil, fmt.Errorf("elfsym: %s: %w", debugPath, err)
		}
		dbg, closers = d, append(closers, closeDebug)
	}
	closeAll := func() error {
		var first error
		for _, c := range closers {
			if err := c(); err != nil && first == nil {
				first = err
			}
		}
		return first
	}
	symPath := path
	if debugPath != "" {
		symPath = debugPath
	}
	f, err := newFile(ef, dbg, symPath, dirs)
	if err != nil {
		closeAll()
		return nil, err
	}
	f.closer = closeAll
	f.Path, f.DebugPath = path, debugPath
	return f, nil
}

// New reads symbols from an opened ELF file.
func New(ef *elf.File) (*File, error) { return newFile(ef, nil, "", nil) }

// newFile reads symbols from an opened ELF file, and from its separate debug file dbg when
// not nil: its DWARF (with its supplementary file's, looked for beside symPath, the path of
// the file that has the DWARF, and in dirs), its symbol table and its .debug_frame.
func newFile(ef, dbg *elf.File, symPath string, dirs DebugDirs) (*File, error) {
	arch, err := archOf(ef)
	if err != nil {
		return nil, err
	}
	f := &File{ELF: ef, dbg: dbg, Arch: arch, code: codeRanges(ef), discarded: map[string]bool{},
		cus: map[dwarf.Offset]*cuInfo{}, sections: map[string][]byte{}}
	d, secs, warning, err := loadDWARF(f.symELF(), symPath, dirs)
	if warning != "" {
		f.warnings = append(f.warnings, warning)
	}
	if err == nil && d != nil {
		f.DWARF = d
		for name, b := range secs {
			f.sections[name] = b
		}
		if err := f.readDWARF(); err != nil {
			return nil, err
		}
	}
	f.readSymtab()
	sort.Slice(f.funcs, func(i, j int) bool { return f.funcs[i].Low < f.funcs[j].Low })
	for _, fn := range f.funcs {
		fn.owner = f
	}
	byAddr := func(a, b LineRow) int { return cmp.Compare(a.Addr, b.Addr) }
	if !slices.IsSortedFunc(f.rows, byAddr) { // (the units' tables are often in order already)
		slices.SortStableFunc(f.rows, byAddr)
	}
	files := []*elf.File{ef}
	if dbg != nil {
		files = append(files, dbg)
	}
	f.frames, err = readCFI(files, arch)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Warnings are what reading the file found wrong and left out, in gdb's words ("could not
// find '.gnu_debugaltlink' file for PATH").
func (f *File) Warnings() []string { return f.warnings }

// symELF is the ELF file of the symbol table and the .debug_ sections: the separate debug
// file when there is one.
func (f *File) symELF() *elf.File {
	if f.dbg != nil {
		return f.dbg
	}
	return f.ELF
}

// symtab is the full symbol table (.symtab): the separate debug file's when there is one,
// as a stripped file keeps none.
func (f *File) symtab() ([]elf.Symbol, error) { return f.symELF().Symbols() }

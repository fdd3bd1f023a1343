package elfsym

// What gdb's info frame says of a frame beyond its registers: where its caller's
// registers were saved, and the language of its code.

import (
	"debug/dwarf"
	"debug/elf"
	"path/filepath"
)

// SavedRegisters says where a frame saved its caller's registers, by DWARF number: the
// addresses of the call frame information's rules for fr's pc (an offset from the CFA, or
// an expression), or, without CFI on x86, the frame pointer chain's. The return address
// is among them (Arch.RA).
func (f *File) SavedRegisters(fr *Frame, mem Memory) map[int]uint64 {
	if lib := f.libraryAt(fr.lookup); lib != nil {
		f = lib.file() // a library's frame: its own call frame information says
	}
	saved := map[int]uint64{}
	fde := f.frames.find(fr.lookup - f.Bias)
	if fde == nil {
		if a := f.Arch; (a.Machine == elf.EM_X86_64 || a.Machine == elf.EM_386) && fr.CFA != 0 {
			saved[a.FP] = fr.CFA - 2*uint64(a.PtrSize)
			saved[a.RA] = fr.CFA - uint64(a.PtrSize)
		}
		return saved
	}
	row, err := f.frames.rowAt(fde, fr.lookup-f.Bias)
	if err != nil {
		return saved
	}
	for reg, rule := range row.regs {
		switch rule.kind {
		case ruleOffset:
			saved[reg] = uint64(int64(fr.CFA) + rule.off)
		case ruleExpr:
			if l, err := f.evalExpr(rule.expr, &exprEnv{regs: fr.regs, mem: mem}, []uint64{fr.CFA}); err == nil {
				saved[reg] = l.Addr
			}
		}
	}
	return saved
}

// UnitInfo is what the compilation unit of a frame's code tells of itself.
type UnitInfo struct {
	Name, CompDir, Producer string
	Language                string // as gdb names it ("c", "c++", "asm"...), "" when the unit does not say
	Version                 int    // of DWARF
	Macros                  bool
}

// Unit describes the compilation unit of a frame's code; false for code no unit holds.
func (f *File) Unit(fr *Frame) (UnitInfo, bool) {
	if o := f.fileOfFrame(fr); o != f {
		return o.Unit(fr)
	}
	if fr.Func == nil {
		return UnitInfo{}, false
	}
	cu := f.cus[fr.Func.cu]
	if cu == nil {
		return UnitInfo{}, false
	}
	return UnitInfo{Name: cu.name, CompDir: cu.dir, Producer: cu.producer, Language: cu.lang, Version: cu.version, Macros: cu.macros}, true
}

// UnitOfFile describes the compilation unit whose primary source is file (a path or its
// ending, as the line tables match names); false when no unit is.
func (f *File) UnitOfFile(file string) (UnitInfo, bool) {
	for _, cu := range f.cus {
		name := cu.name
		if name != "" && !filepath.IsAbs(name) {
			name = filepath.Join(cu.dir, name)
		}
		if name != "" && (matchFile(name, file) || matchFile(file, name)) {
			return UnitInfo{Name: cu.name, CompDir: cu.dir, Producer: cu.producer, Language: cu.lang, Version: cu.version, Macros: cu.macros}, true
		}
	}
	return inLibraries(f, func(lf *File) (UnitInfo, bool) { return lf.UnitOfFile(file) })
}

// languages are gdb's names of DWARF's languages (DW_LANG_*).
var languages = map[int64]string{
	0x1: "c", 0x2: "c", 0xc: "c", 0x1d: "c", 0x2c: "c",
	0x4: "c++", 0x19: "c++", 0x1a: "c++", 0x21: "c++", 0x2a: "c++", 0x2b: "c++",
	0x1c: "rust", 0x16: "go", 0x8001: "asm", 0xe: "fortran", 0x22: "fortran", 0x23: "fortran",
}

// languageOf is a unit's language, by its DW_AT_language.
func languageOf(cu *dwarf.Entry) string {
	if n, ok := cu.Val(dwarf.AttrLanguage).(int64); ok {
		return languages[n]
	}
	return ""
}

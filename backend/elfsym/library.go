package elfsym

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// LibraryInfo is what a debugger tells of a shared object it did not load symbols from:
// where its code (.text) lies in the file's own addresses, and whether debug information
// for it is at hand, as gdb looks for it (in the file, or in a separate debug file by
// build id or debug link: findDebugFile), which polydbg reads (AddLibrary).
type LibraryInfo struct {
	TextAddr, TextSize uint64
	DebugInfo          bool
}

// ReadLibraryInfo reads a shared object's LibraryInfo from its section headers and notes,
// looking for a separate debug file in dirs.
func ReadLibraryInfo(path string, dirs DebugDirs) (LibraryInfo, error) {
	f, err := elf.Open(path)
	if err != nil {
		return LibraryInfo{}, err
	}
	defer f.Close()
	var li LibraryInfo
	if s := f.Section(".text"); s != nil {
		li.TextAddr, li.TextSize = s.Addr, s.Size
	}
	li.DebugInfo = hasDWARF(f) || findDebugFile(f, path, dirs) != ""
	return li, nil
}

// DebugDirs are the folders SetDebugDirs set for the libraries' debug files.
func (f *File) DebugDirs() DebugDirs {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	return f.libs.dirs
}

// buildID is the hex of f's GNU build id note, "" when it has none.
func buildID(f *elf.File) string {
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil {
		return ""
	}
	return noteDesc(b, f.ByteOrder)
}

// noteDesc is the hex of the descriptor of the ELF note at the start of b, "" when b does
// not hold a whole one.
func noteDesc(b []byte, order binary.ByteOrder) string {
	if len(b) < 12 {
		return ""
	}
	namesz, descsz := uint64(order.Uint32(b[0:4])), uint64(order.Uint32(b[4:8]))
	start := 12 + (namesz+3)&^3
	if start+descsz > uint64(len(b)) {
		return ""
	}
	return hex.EncodeToString(b[start : start+descsz])
}

// Interpreter is the program's dynamic linker (PT_INTERP), "" for a static program.
func (f *File) Interpreter() string {
	for _, p := range f.ELF.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err == nil {
				return strings.TrimRight(string(b), "\x00")
			}
		}
	}
	return ""
}

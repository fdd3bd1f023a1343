package elfsym

import (
	"debug/elf"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
)

// LibraryInfo is what a debugger tells of a shared object it did not load symbols from:
// where its code (.text) lies in the file's own addresses, and whether debug information
// for it is at hand, as gdb looks for it (in the file, or under /usr/lib/debug by build id
// or debug link).
type LibraryInfo struct {
	TextAddr, TextSize uint64
	DebugInfo          bool
	// OwnDebugInfo: the file itself has it (built with -g), which polydbg reads (AddLibrary).
	OwnDebugInfo bool
}

// debugRoot is where distributions install separate debug information.
const debugRoot = "/usr/lib/debug"

// ReadLibraryInfo reads a shared object's LibraryInfo from its section headers and notes.
func ReadLibraryInfo(path string) (LibraryInfo, error) {
	f, err := elf.Open(path)
	if err != nil {
		return LibraryInfo{}, err
	}
	defer f.Close()
	var li LibraryInfo
	if s := f.Section(".text"); s != nil {
		li.TextAddr, li.TextSize = s.Addr, s.Size
	}
	li.OwnDebugInfo = f.Section(".debug_info") != nil
	li.DebugInfo = li.OwnDebugInfo || separateDebug(f, path)
	return li, nil
}

// separateDebug says whether a debug file for f exists where gdb looks: by its build id,
// then by its .gnu_debuglink name beside it, in its .debug folder or under debugRoot.
func separateDebug(f *elf.File, path string) bool {
	if id := buildID(f); id != "" && len(id) > 2 {
		if _, err := os.Stat(filepath.Join(debugRoot, ".build-id", id[:2], id[2:]+".debug")); err == nil {
			return true
		}
	}
	s := f.Section(".gnu_debuglink")
	if s == nil {
		return false
	}
	b, err := s.Data()
	if err != nil {
		return false
	}
	name, _, _ := strings.Cut(string(b), "\x00")
	if name == "" || strings.Contains(name, "/") {
		return false
	}
	dir := filepath.Dir(path)
	for _, p := range []string{filepath.Join(dir, ".debug", name), filepath.Join(debugRoot, dir, name)} {
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
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

package elfsym

// Separate debug information: a program or library stripped of its DWARF, with a debug
// file installed apart (Debian's libc6-dbg and -dbgsym packages, objcopy --only-keep-debug
// and --add-gnu-debuglink), is read from that file as gdb reads it. The stripped file keeps
// the code, the program headers and the call frame information; the debug file brings the
// DWARF, the full symbol table and the other .debug_ sections, at the same addresses.

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/internal/fileload"
)

// DefaultDebugDir is where gdb looks for debug files by default, and distributions
// install them.
const DefaultDebugDir = "/usr/lib/debug"

// DebugDirs are the folders searched for separate debug files (gdb's
// debug-file-directory). nil means DefaultDebugDir; an empty, non-nil list none (a
// debug link beside the file is still followed, as gdb's).
type DebugDirs []string

func (d DebugDirs) list() []string {
	if d == nil {
		return []string{DefaultDebugDir}
	}
	return d
}

// findDebugFile is the separate debug file of ef (read from path) where gdb looks for it,
// "" when there is none: by its build id under each debug folder
// (DIR/.build-id/ab/cdef….debug, whose own build id must be the same), then by its
// .gnu_debuglink name beside it, in its .debug folder, and under each debug folder
// followed by its own folder (the CRC the link gives must match).
func findDebugFile(ef *elf.File, path string, dirs DebugDirs) string {
	if id := buildID(ef); len(id) > 2 {
		for _, dir := range dirs.list() {
			p := filepath.Join(dir, ".build-id", id[:2], id[2:]+".debug")
			if sameBuildID(p, id) {
				return p
			}
		}
	}
	name, crc, ok := debugLink(ef)
	if !ok {
		return ""
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	dir := filepath.Dir(path)
	candidates := []string{filepath.Join(dir, name), filepath.Join(dir, ".debug", name)}
	for _, root := range dirs.list() {
		candidates = append(candidates, filepath.Join(root, dir, name))
	}
	for _, p := range candidates {
		if p != path && fileCRC(p) == crc {
			return p
		}
	}
	return ""
}

// mayHaveDebugFile says whether ef names a separate debug file: it has a build id or a
// debug link.
func mayHaveDebugFile(ef *elf.File) bool {
	return ef.Section(".note.gnu.build-id") != nil || ef.Section(".gnu_debuglink") != nil
}

// debugLink is the file name and CRC of ef's .gnu_debuglink section.
func debugLink(ef *elf.File) (name string, crc uint32, ok bool) {
	s := ef.Section(".gnu_debuglink")
	if s == nil {
		return "", 0, false
	}
	b, err := s.Data()
	if err != nil {
		return "", 0, false
	}
	return parseDebugLink(b, ef.ByteOrder)
}

// parseDebugLink reads a .gnu_debuglink section: a file name (no folder), NUL-terminated,
// then the debug file's CRC-32 aligned to 4 bytes.
func parseDebugLink(b []byte, order binary.ByteOrder) (name string, crc uint32, ok bool) {
	i := strings.IndexByte(string(b), 0)
	if i <= 0 || strings.Contains(string(b[:i]), "/") {
		return "", 0, false
	}
	at := (i + 4) &^ 3 // the CRC follows the name, aligned to 4 bytes
	if at+4 > len(b) {
		return "", 0, false
	}
	return string(b[:i]), order.Uint32(b[at:]), true
}

// fileCRC is the CRC-32 of the file at path (gdb's gnu_debuglink_crc32), 0 when it cannot
// be read.
func fileCRC(path string) uint32 {
	f, err := fileload.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	h := crc32.NewIEEE()
	if _, err := io.Copy(h, f); err != nil {
		return 0
	}
	return h.Sum32()
}

// sameBuildID reports whether the ELF file at path has the build id id.
func sameBuildID(path, id string) bool {
	ef, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer ef.Close()
	return buildID(ef) == id
}

// hasDWARF reports whether ef holds debug information of its own.
func hasDWARF(ef *elf.File) bool {
	s := ef.Section(".debug_info")
	return s != nil && s.Type != elf.SHT_NOBITS
}

// openDebugFile opens a separate debug file, checking it describes ef (same machine and
// class, DWARF in it).
func openDebugFile(path string, ef *elf.File) (*elf.File, func() error, error) {
	file, err := fileload.Open(path)
	if err != nil {
		return nil, nil, err
	}
	dbg, err := elf.NewFile(file)
	if err == nil && (dbg.Machine != ef.Machine || dbg.Class != ef.Class || !hasDWARF(dbg)) {
		err = errNotDebugFile
	}
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	return dbg, file.Close, nil
}

var errNotDebugFile = errors.New("not a debug file of this program")

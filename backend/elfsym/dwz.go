package elfsym

// Supplementary debug files. dwz (run on the debug files of Debian's -dbgsym packages and
// of Fedora's debuginfo) moves what several programs' DWARF share — types, declarations,
// strings — into one file that each names in .gnu_debugaltlink (DWARF 5: .debug_sup), and
// refers to it with forms of its own (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt, or
// DW_FORM_ref_sup4 and DW_FORM_strp_sup). Go's debug/dwarf reads those forms as bare
// offsets, so the two files are merged here into one set of sections before it sees them:
// the program's sections first, the supplementary file's after, and every offset that
// crosses from one to the other moved by the length of what now comes before it. A
// reference into the other file becomes an ordinary DW_FORM_ref_addr, a string in it an
// ordinary DW_FORM_strp: the rest of the package reads the result as one file's DWARF.

import (
	"bytes"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// mergedSections are the DWARF sections of a file merged with its supplementary file's,
// by name (".debug_info"); the others are the file's own.
type mergedSections map[string][]byte

// supLink is where a file's supplementary DWARF is: the name it gives and, from
// .gnu_debugaltlink, the build id the file found must have.
type supLink struct {
	name    string
	buildID string // hex; "" for DWARF 5's .debug_sup, whose checksum is not checked
}

// readSupLink reads the link to ef's supplementary file; false when it has none.
func readSupLink(ef *elf.File) (supLink, bool) {
	if s := ef.Section(".gnu_debugaltlink"); s != nil {
		b, err := s.Data()
		if i := bytes.IndexByte(b, 0); err == nil && i > 0 {
			return supLink{name: string(b[:i]), buildID: hex.EncodeToString(b[i+1:])}, true
		}
	}
	if s := ef.Section(".debug_sup"); s != nil {
		b, err := s.Data()
		if err != nil || len(b) < 4 || b[2] != 0 { // version, is_supplementary (0: it names one)
			return supLink{}, false
		}
		if i := bytes.IndexByte(b[3:], 0); i > 0 {
			return supLink{name: string(b[3 : 3+i])}, true
		}
	}
	return supLink{}, false
}

// findSupFile is the supplementary file link names for the file at path, where gdb looks
// for it: the name as given (relative to the file's own folder), then by its build id
// under each debug folder; "" when none is there with the build id the link gives.
func findSupFile(link supLink, path string, dirs DebugDirs) string {
	var candidates []string
	if filepath.IsAbs(link.name) {
		candidates = append(candidates, link.name)
	} else if path != "" {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
		candidates = append(candidates, filepath.Join(filepath.Dir(path), link.name))
	}
	for _, dir := range dirs.list() { // an installed file's name, under another debug folder
		if rest, ok := strings.CutPrefix(link.name, DefaultDebugDir+"/"); ok && dir != DefaultDebugDir {
			candidates = append(candidates, filepath.Join(dir, rest))
		}
	}
	if len(link.buildID) > 2 {
		for _, dir := range dirs.list() {
			candidates = append(candidates, filepath.Join(dir, ".build-id", link.buildID[:2], link.buildID[2:]+".debug"))
		}
	}
	for _, p := range candidates {
		if link.buildID == "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		} else if sameBuildID(p, link.buildID) {
			return p
		}
	}
	return ""
}

// supFileMissing is loadDWARF's warning for the separate debug file of ef (the file at
// path) when that names a supplementary file that is not found, without reading its DWARF;
// "" when there is nothing to say.
func supFileMissing(ef *elf.File, path string, dirs DebugDirs) string {
	debugPath := findDebugFile(ef, path, dirs)
	if debugPath == "" {
		return ""
	}
	dbg, err := elf.Open(debugPath)
	if err != nil {
		return ""
	}
	defer dbg.Close()
	link, ok := readSupLink(dbg)
	if !ok || findSupFile(link, debugPath, dirs) != "" {
		return ""
	}
	return supMissingWarning(link, debugPath)
}

// supMissingWarning is gdb's warning for a supplementary file not found.
func supMissingWarning(link supLink, path string) string {
	what := "'.gnu_debugaltlink'"
	if link.buildID == "" {
		what = "supplementary DWARF"
	}
	return fmt.Sprintf("could not find %s file for %s", what, path)
}

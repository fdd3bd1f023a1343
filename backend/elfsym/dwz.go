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
	"debug/dwarf"
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

// loadDWARF reads the DWARF of ef, the file at path (a separate debug file's path when it
// is one). A file that names a supplementary file found where gdb looks has the two merged
// (the merged sections are returned too, for the package's own reads of them). When the
// supplementary file is not found, no DWARF is read (half of it would name nothing), as
// gdb does, and warning says so in gdb's words.
func loadDWARF(ef *elf.File, path string, dirs DebugDirs) (d *dwarf.Data, merged mergedSections, warning string, err error) {
	link, ok := readSupLink(ef)
	if !ok {
		d, err := ef.DWARF()
		return d, nil, "", err
	}
	missing := supMissingWarning(link, path)
	supPath := findSupFile(link, path, dirs)
	if supPath == "" {
		return nil, nil, missing, nil
	}
	sup, err := elf.Open(supPath)
	if err != nil {
		return nil, nil, missing, nil
	}
	defer sup.Close()
	merged, err = mergeSupplementary(debugSections(ef), debugSections(sup), ef.ByteOrder)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s with %s: %w", path, supPath, err)
	}
	d, err = dwarfFrom(merged)
	return d, merged, "", err
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

// debugSections are the .debug_ sections of ef by name, uncompressed.
func debugSections(ef *elf.File) map[string][]byte {
	out := map[string][]byte{}
	for _, s := range ef.Sections {
		if !strings.HasPrefix(s.Name, ".debug_") || s.Type == elf.SHT_NOBITS {
			continue
		}
		if b, err := s.Data(); err == nil {
			out[s.Name] = b
		}
	}
	return out
}

// dwarfFrom makes debug/dwarf's Data of sections, as elf.File.DWARF does of a file's.
func dwarfFrom(secs map[string][]byte) (*dwarf.Data, error) {
	d, err := dwarf.New(secs[".debug_abbrev"], nil, nil, secs[".debug_info"], secs[".debug_line"], nil,
		secs[".debug_ranges"], secs[".debug_str"])
	if err != nil {
		return nil, err
	}
	for _, name := range []string{".debug_addr", ".debug_line_str", ".debug_str_offsets", ".debug_rnglists"} {
		if b := secs[name]; b != nil {
			if err := d.AddSection(name, b); err != nil {
				return nil, err
			}
		}
	}
	if b := secs[".debug_types"]; b != nil {
		if err := d.AddTypes("types", b); err != nil {
			return nil, err
		}
	}
	return d, nil
}

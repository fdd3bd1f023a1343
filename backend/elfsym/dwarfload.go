package elfsym

// Loading a file's DWARF: its sections are uncompressed once, side by side, and kept for
// the package's own reads of them (unit headers, location lists), and debug/dwarf is
// given the same bytes. (elf.File.DWARF uncompresses them on its own, and .debug_info
// again when it is read here: a quarter of the time libc's debug file took.)

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"strings"
	"sync"
)

// loadDWARF reads the DWARF of ef, the file at path (a separate debug file's path when it
// is one), and returns the sections it read by name. A file that names a supplementary
// file found where gdb looks has the two merged. When the supplementary file is not
// found, no DWARF is read (half of it would name nothing), as gdb does, and warning says
// so in gdb's words.
func loadDWARF(ef *elf.File, path string, dirs DebugDirs) (d *dwarf.Data, secs map[string][]byte, warning string, err error) {
	link, ok := readSupLink(ef)
	if !ok {
		if ef.Type == elf.ET_REL || hasSection(ef, ".zdebug_") {
			d, err := ef.DWARF() // (relocations to apply; the old GNU compression)
			return d, nil, "", err
		}
		if ef.Section(".debug_info") == nil {
			return nil, nil, "", fmt.Errorf("no .debug_info section")
		}
		secs := uncompressed(ef, func(name string) bool { return dwarfReads[name] })
		d, err := dwarfFrom(secs)
		return d, secs, "", err
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
	merged, err := mergeSupplementary(debugSections(ef), debugSections(sup), ef.ByteOrder)
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s with %s: %w", path, supPath, err)
	}
	d, err = dwarfFrom(merged)
	return d, merged, "", err
}

// dwarfReads are the sections debug/dwarf reads (dwarfFrom).
var dwarfReads = map[string]bool{".debug_abbrev": true, ".debug_info": true, ".debug_line": true, ".debug_ranges": true,
	".debug_str": true, ".debug_addr": true, ".debug_line_str": true, ".debug_str_offsets": true, ".debug_rnglists": true,
	".debug_types": true}

// debugSections are the .debug_ sections of ef by name, uncompressed.
func debugSections(ef *elf.File) map[string][]byte {
	return uncompressed(ef, func(name string) bool { return strings.HasPrefix(name, ".debug_") })
}

// uncompressed reads the sections of ef that want names, each uncompressed on a
// goroutine of its own (a big debug file's sections are compressed: libc's take 0.4 s
// one after the other).
func uncompressed(ef *elf.File, want func(name string) bool) map[string][]byte {
	out := map[string][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range ef.Sections {
		if !want(s.Name) || s.Type == elf.SHT_NOBITS {
			continue
		}
		wg.Go(func() {
			if b, err := s.Data(); err == nil {
				mu.Lock()
				out[s.Name] = b
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return out
}

func hasSection(ef *elf.File, prefix string) bool {
	for _, s := range ef.Sections {
		if strings.HasPrefix(s.Name, prefix) {
			return true
		}
	}
	return false
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

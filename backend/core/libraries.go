package core

import (
	"bytes"
	"debug/elf"
	"fmt"
	"html"
	"strings"
)

// auxv reads the auxiliary vector's entry of type typ (AT_ENTRY...).
func (c *File) auxv(typ uint64) (uint64, bool) {
	for b := c.Auxv; len(b) >= 16; b = b[16:] {
		if t := le.Uint64(b); t == typ {
			return le.Uint64(b[8:]), true
		} else if t == 0 {
			break
		}
	}
	return 0, false
}

// LibrariesSVR4 is the list of the shared libraries the process had loaded, as the dynamic
// linker kept it (r_debug's link maps, found through the executable's DT_DEBUG) and as
// gdbserver answers qXfer:libraries-svr4:read. A static program has none.
func (c *File) LibrariesSVR4(exe string) string {
	var b strings.Builder
	b.WriteString(`<library-list-svr4 version="1.0"`)
	maps := c.linkMaps(exe)
	if len(maps) > 0 {
		fmt.Fprintf(&b, ` main-lm="%#x"`, maps[0].lm)
	}
	b.WriteString(">")
	for _, m := range maps[min(1, len(maps)):] { // the first is the program itself
		if m.name == "" {
			continue
		}
		fmt.Fprintf(&b, `<library name="%s" lm="%#x" l_addr="%#x" l_ld="%#x"/>`, html.EscapeString(m.name), m.lm, m.addr, m.ld)
	}
	b.WriteString("</library-list-svr4>")
	return b.String()
}

// linkMap is one entry of the dynamic linker's list.
type linkMap struct {
	lm, addr, ld uint64
	name         string
}

// maxLinkMaps bounds the walk of a damaged list.
const maxLinkMaps = 4096

// linkMaps walks the dynamic linker's list of loaded objects in the dumped memory.
func (c *File) linkMaps(exe string) []linkMap {
	rdebug := c.rDebug(exe)
	if rdebug == 0 {
		return nil
	}
	word := func(a uint64) uint64 {
		b, err := c.ReadMemory(a, 8)
		if err != nil || len(b) < 8 {
			return 0
		}
		return le.Uint64(b)
	}
	var out []linkMap
	for lm := word(rdebug + 8); lm != 0 && len(out) < maxLinkMaps; lm = word(lm + 24) {
		out = append(out, linkMap{lm: lm, addr: word(lm), ld: word(lm + 16), name: c.cString(word(lm + 8))})
	}
	return out
}

// rDebug is the address of the dynamic linker's r_debug: DT_DEBUG of the executable's
// dynamic section as loaded, 0 when there is none.
func (c *File) rDebug(exe string) uint64 {
	ef, err := elf.Open(exe)
	if err != nil {
		return 0
	}
	defer ef.Close()
	entry, ok := c.auxv(9) // AT_ENTRY
	if !ok {
		return 0
	}
	bias := entry - ef.Entry
	for _, p := range ef.Progs {
		if p.Type != elf.PT_DYNAMIC {
			continue
		}
		dyn, err := c.ReadMemory(p.Vaddr+bias, int(min(p.Memsz, 1<<16)))
		if err != nil {
			return 0
		}
		for ; len(dyn) >= 16; dyn = dyn[16:] {
			switch le.Uint64(dyn) {
			case uint64(elf.DT_DEBUG):
				return le.Uint64(dyn[8:])
			case uint64(elf.DT_NULL):
				return 0
			}
		}
	}
	return 0
}

// cString reads a NUL-terminated string of at most 4 KiB at a.
func (c *File) cString(a uint64) string {
	if a == 0 {
		return ""
	}
	b, err := c.ReadMemory(a, 4096)
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

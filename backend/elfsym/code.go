package elfsym

// Which addresses hold code: DWARF of functions the linker discarded (-ffunction-sections
// -Wl,--gc-sections) stays in the file with its addresses relocated to 0 (or to a tombstone
// such as -1 with lld). Line sequences and subprograms outside the code are ignored, as
// addr2line and gdb ignore them, and a breakpoint on them is an error ("no code for").

import (
	"debug/elf"
	"fmt"
)

// codeSet is the link-time address ranges of the file's code.
type codeSet struct {
	ranges [][2]uint64 // [lo, hi) of executable sections (or segments)
	zero   bool        // a function really starts at address 0
}

func codeRanges(ef *elf.File) codeSet {
	var cs codeSet
	for _, s := range ef.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Flags&elf.SHF_EXECINSTR != 0 && s.Size > 0 {
			cs.ranges = append(cs.ranges, [2]uint64{s.Addr, s.Addr + s.Size})
		}
	}
	if len(cs.ranges) == 0 {
		for _, p := range ef.Progs {
			if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 && p.Memsz > 0 {
				cs.ranges = append(cs.ranges, [2]uint64{p.Vaddr, p.Vaddr + p.Memsz})
			}
		}
	}
	if syms, err := ef.Symbols(); err == nil {
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && s.Value&^1 == 0 {
				cs.zero = true
			}
		}
	}
	return cs
}

// has reports whether the link-time address a is code. Address 0 is code only when a
// function symbol says so: it is where discarded code's DWARF points.
func (cs codeSet) has(a uint64) bool {
	if a == 0 && !cs.zero {
		return false
	}
	if len(cs.ranges) == 0 {
		return true
	}
	for _, r := range cs.ranges {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// noFunc is the error for a function name with no code in the file.
func (f *File) noFunc(name string) error {
	if f.discarded[name] {
		return fmt.Errorf("%w %s: the linker discarded it", ErrNoCode, name)
	}
	return fmt.Errorf("elfsym: no function %q", name)
}

// lineSpan is the lines [first, last] of file and the link-time addresses [lo, hi) that
// one line sequence covers.
type lineSpan struct {
	file        string
	first, last int
	lo, hi      uint64
}

// dropSpan remembers the lines of a discarded line sequence.
func (f *File) dropSpan(seq []LineRow) {
	sp := lineSpan{file: f.rowFiles[seq[0].file], first: seq[0].Line, last: seq[0].Line, lo: seq[0].Addr, hi: seq[len(seq)-1].Addr}
	for _, r := range seq {
		if r.End || r.file != seq[0].file || r.Line == 0 {
			continue
		}
		sp.first, sp.last = min(sp.first, r.Line), max(sp.last, r.Line)
	}
	f.dropped = append(f.dropped, sp)
}

// inDiscarded reports whether file:line lies in a line sequence the linker discarded.
func (f *File) inDiscarded(file string, line int) bool {
	for _, sp := range f.dropped {
		if line >= sp.first && line <= sp.last && matchFile(sp.file, file) {
			return true
		}
	}
	return false
}

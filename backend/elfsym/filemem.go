package elfsym

import "debug/elf"

// ReadFileMemory reads n bytes at the run-time address addr as the program's file holds
// them before it runs: a section's contents, zeros for .bss; false when no allocated
// section holds all of them. gdb reads a program's variables so before it is run.
func (f *File) ReadFileMemory(addr uint64, n int) ([]byte, bool) {
	if f.ELF == nil || n < 0 {
		return nil, false
	}
	a := f.LoadedAddress(addr) - f.Bias // (a file's address before run too)
	for _, s := range f.ELF.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || a < s.Addr || a+uint64(n) > s.Addr+s.Size {
			continue
		}
		b := make([]byte, n)
		if s.Type == elf.SHT_NOBITS {
			return b, true
		}
		if _, err := s.ReadAt(b, int64(a-s.Addr)); err != nil {
			return nil, false
		}
		return b, true
	}
	return nil, false
}

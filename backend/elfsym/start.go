package elfsym

// Where a program starts. On Cortex-M the hardware takes its first pc from the reset vector
// of the vector table (the second word at the lowest loaded address), whatever e_entry
// says: a linker script without ENTRY(...) leaves e_entry at the start of .text (or 0),
// which ld accepts with a warning and gdb and probe-rs ignore.

import (
	"debug/elf"
	"fmt"
)

// StartAddress is the run-time address where the program starts: the reset vector on a
// Cortex-M firmware image, else the ELF entry point. It is an error when that is not code
// (no function covers it), so a debugger can say so at once rather than wait for the
// program to get there.
func (f *File) StartAddress() (uint64, error) {
	if rv, ok := f.ResetVector(); ok {
		return rv + f.Bias, nil
	}
	e := f.Entry()
	if f.FuncAt(e) == nil && !f.code.has(f.clearThumb(f.ELF.Entry)) {
		return 0, fmt.Errorf("elfsym: the ELF entry point %#x is not code (no function or executable section holds it)", e)
	}
	return e, nil
}

// ResetVector is the link-time reset vector (Thumb bit cleared) of a Cortex-M firmware
// image: a bare-metal ARM executable (no interpreter, no dynamic section) whose lowest
// loaded address holds a vector table, an initial stack pointer then a Thumb address in
// code.
func (f *File) ResetVector() (uint64, bool) {
	if !f.BareMetalARM() {
		return 0, false
	}
	var low *elf.Prog
	for _, p := range f.ELF.Progs {
		if p.Type == elf.PT_LOAD && p.Filesz >= 8 && (low == nil || p.Paddr < low.Paddr) {
			low = p
		}
	}
	if low == nil {
		return 0, false
	}
	var b [8]byte
	if _, err := low.ReadAt(b[:], 0); err != nil {
		return 0, false
	}
	return f.resetOf(b[:])
}

// BareMetalARM reports whether the file is an ARM executable without interpreter or
// dynamic section: firmware, which on Cortex-M starts at the reset vector of its vector
// table.
func (f *File) BareMetalARM() bool {
	ef := f.ELF
	if ef.Machine != elf.EM_ARM || ef.Type != elf.ET_EXEC {
		return false
	}
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			return false
		}
	}
	return true
}

// TableReset is the run-time reset vector (Thumb bit cleared) of the vector table whose
// first 8 bytes are table (as read from the target, at the address VTOR holds), when it
// is one: a word-aligned stack pointer, then a Thumb address in this file's code.
func (f *File) TableReset(table []byte) (uint64, bool) {
	if len(table) < 8 || !f.BareMetalARM() {
		return 0, false
	}
	rv, ok := f.resetOf(table)
	return rv + f.Bias, ok
}

// resetOf checks the first two words of a vector table and returns its link-time reset
// vector.
func (f *File) resetOf(b []byte) (uint64, bool) {
	order := f.ELF.ByteOrder
	sp, reset := order.Uint32(b[:4]), uint64(order.Uint32(b[4:8]))
	if sp&3 != 0 || reset&1 == 0 || !f.code.has(reset&^1) {
		return 0, false
	}
	return reset &^ 1, true
}

package gdbremote

// Cortex-M: where the program starts when the image's lowest address holds no vector
// table. The core takes its first stack pointer and pc from the table VTOR points at (the
// System Control Block's Vector Table Offset Register); a boot ROM or bootloader may have
// set it (i.MX RT boot images, MCUboot's image header before the table, a chip's boot
// address option), and firmware moves it to RAM to install handlers at run time.

import (
	"encoding/binary"
	"fmt"
)

// vtorAddr is the address of VTOR on every Cortex-M with one (ARMv7-M, ARMv8-M).
const vtorAddr = 0xE000ED08

// VectorTable returns the address of the vector table the core uses now (VTOR). It needs
// a stopped Cortex-M target.
func (t *Target) VectorTable() (uint64, error) {
	if !t.sym.BareMetalARM() {
		return 0, fmt.Errorf("gdbremote: not Cortex-M firmware: no VTOR")
	}
	b, err := t.readCached(vtorAddr, 4)
	if err != nil {
		return 0, fmt.Errorf("gdbremote: read VTOR: %w", err)
	}
	if len(b) < 4 {
		return 0, fmt.Errorf("gdbremote: read VTOR: short read")
	}
	return uint64(binary.LittleEndian.Uint32(b)), nil
}

// startAddress is where the program starts: the reset vector of the ELF file's vector
// table or its entry point (elfsym.StartAddress), but on Cortex-M firmware whose lowest
// loaded address holds no vector table, the reset vector of the table VTOR points at, as
// the core itself does.
//
// Firmware with no vector table at either place cannot start at all (the core takes its
// stack pointer and first pc from the table): that is an error at once, not a wait.
func (t *Target) startAddress() (uint64, error) {
	if _, ok := t.sym.ResetVector(); !ok && t.sym.BareMetalARM() {
		vt, err := t.VectorTable()
		if err == nil {
			if b, err := t.readCached(vt, 8); err == nil {
				if rv, ok := t.sym.TableReset(b); ok {
					return rv, nil
				}
			}
		}
		if t.cortexM() {
			return 0, fmt.Errorf("no Cortex-M vector table: neither the ELF's lowest address nor VTOR (%#x) holds an initial stack pointer and a reset vector in code (is the table missing from the link, or not KEEP()ed in .isr_vector?)", vt)
		}
	}
	return t.sym.StartAddress()
}

// cortexM reports whether the stub describes an M-profile core (its xPSR register).
func (t *Target) cortexM() bool {
	for _, r := range t.desc.Regs {
		if r.Name == "xpsr" {
			return true
		}
	}
	return false
}

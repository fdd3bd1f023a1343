package elfsym

// The calls a piece of machine code makes to addresses it names (x86's call rel32, ARM's
// bl), for the calls a statement makes from where the program stopped (DAP's
// stepInTargets): decoded, never guessed from a byte that looks like a call.

import (
	"debug/elf"
	"encoding/binary"

	"golang.org/x/arch/x86/x86asm"
)

// CallTargets are the run-time addresses the direct calls in code (the instructions at pc
// on) go to, in order; calls through a register or memory are left out, and decoding
// stops at the first instruction it cannot read.
func (f *File) CallTargets(code []byte, pc uint64) []uint64 {
	switch f.Arch.Machine {
	case elf.EM_X86_64:
		return x86Calls(code, pc, 64)
	case elf.EM_386:
		return x86Calls(code, pc, 32)
	case elf.EM_ARM:
		return thumbCalls(code, pc)
	case elf.EM_AARCH64:
		return arm64Calls(code, pc)
	}
	return nil
}

func x86Calls(code []byte, pc uint64, mode int) []uint64 {
	var out []uint64
	for len(code) > 0 {
		inst, err := x86asm.Decode(code, mode)
		if err != nil || inst.Len <= 0 {
			break
		}
		if rel, ok := inst.Args[0].(x86asm.Rel); ok && inst.Op == x86asm.CALL {
			out = append(out, pc+uint64(inst.Len)+uint64(int64(rel)))
		}
		code, pc = code[inst.Len:], pc+uint64(inst.Len)
	}
	return out
}

// thumbCalls decodes Thumb-2 code, the instruction set of the Cortex-M cores: a 16-bit
// instruction unless its first halfword starts 0b11101, 0b11110 or 0b11111; a bl is
// 0b11110 then a halfword 0b11x1.
func thumbCalls(code []byte, pc uint64) []uint64 {
	var out []uint64
	for len(code) >= 2 {
		hw1 := uint32(binary.LittleEndian.Uint16(code))
		if hw1>>11 < 0x1d {
			code, pc = code[2:], pc+2
			continue
		}
		if len(code) < 4 {
			break
		}
		hw2 := uint32(binary.LittleEndian.Uint16(code[2:]))
		if hw1>>11 == 0x1e && hw2>>14 == 3 && hw2>>12&1 == 1 { // bl
			s := hw1 >> 10 & 1
			i1 := ^(hw2>>13 ^ s) & 1
			i2 := ^(hw2>>11 ^ s) & 1
			imm := s<<24 | i1<<23 | i2<<22 | (hw1&0x3ff)<<12 | (hw2&0x7ff)<<1
			off := int64(int32(imm<<7) >> 7) // sign-extended from 25 bits
			out = append(out, uint64(int64(pc)+4+off))
		}
		code, pc = code[4:], pc+4
	}
	return out
}

// arm64Calls decodes AArch64's bl: 0b100101 and a 26-bit word offset.
func arm64Calls(code []byte, pc uint64) []uint64 {
	var out []uint64
	for ; len(code) >= 4; code, pc = code[4:], pc+4 {
		w := binary.LittleEndian.Uint32(code)
		if w>>26 == 0x25 {
			off := int64(int32(w<<6)>>6) * 4
			out = append(out, uint64(int64(pc)+off))
		}
	}
	return out
}

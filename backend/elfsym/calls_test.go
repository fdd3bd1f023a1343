package elfsym

import (
	"debug/elf"
	"slices"
	"testing"
)

// Direct calls are decoded where they are, in each instruction set; a call through a
// register, and bytes inside another instruction that look like a call, are not.
func TestCallTargets(t *testing.T) {
	x86 := []byte{
		0x48, 0xc7, 0xc0, 0xe8, 0x00, 0x00, 0x00, // mov $0xe8, %rax (an e8 inside it)
		0xe8, 0x10, 0x00, 0x00, 0x00, // call .+0x15
		0xff, 0xd0, // call *%rax
		0xe8, 0xf0, 0xff, 0xff, 0xff, // call .-0xb
	}
	thumb := []byte{
		0x00, 0xbf, // nop
		0x00, 0xf0, 0x08, 0xf8, // bl .+0x14
		0xff, 0xf7, 0xfa, 0xff, // bl .-0x8
		0x80, 0x47, // blx r0
	}
	arm64 := []byte{0x04, 0x00, 0x00, 0x94, 0xff, 0xff, 0xff, 0x97} // bl .+16; bl .-4
	for _, c := range []struct {
		machine elf.Machine
		code    []byte
		want    []uint64
	}{
		{elf.EM_X86_64, x86, []uint64{0x1000 + 12 + 0x10, 0x1000 + 19 - 0x10}},
		{elf.EM_ARM, thumb, []uint64{0x1000 + 2 + 4 + 0x10, 0x1000 + 6 + 4 - 0xc}},
		{elf.EM_AARCH64, arm64, []uint64{0x1000 + 16, 0x1004 - 4}},
		{elf.EM_X86_64, []byte{0x0f, 0xff}, nil}, // not an instruction: nothing
	} {
		f := &File{Arch: &Arch{Machine: c.machine}}
		if got := f.CallTargets(c.code, 0x1000); !slices.Equal(got, c.want) {
			t.Errorf("%v: %#x, want %#x", c.machine, got, c.want)
		}
	}
}

// Any bytes are decoded or passed over, never a panic.
func FuzzCallTargets(f *testing.F) {
	f.Add(uint8(0), []byte{0xe8, 1, 2, 3, 4})
	f.Add(uint8(1), []byte{0x00, 0xf0, 0x08, 0xf8})
	f.Add(uint8(2), []byte{0x04, 0x00, 0x00, 0x94})
	f.Fuzz(func(t *testing.T, arch uint8, code []byte) {
		machines := []elf.Machine{elf.EM_X86_64, elf.EM_ARM, elf.EM_AARCH64, elf.EM_386}
		file := &File{Arch: &Arch{Machine: machines[int(arch)%len(machines)]}}
		if got := file.CallTargets(code, 0x400000); len(got) > len(code) {
			t.Fatalf("%d calls in %d bytes", len(got), len(code))
		}
	})
}

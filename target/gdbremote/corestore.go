package gdbremote

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
)

// IsDeviceAddr reports whether addr is in a Cortex-M peripheral or system region
// (0x40000000-0x5FFFFFFF, 0xE0000000 and up) of an ARM target.
func (t *Target) IsDeviceAddr(addr uint64) bool {
	return t.sym.Arch.Machine == elf.EM_ARM && (addr >= 0x40000000 && addr < 0x60000000 || addr >= 0xE0000000 && addr < 1<<32)
}

// storeViaCore writes a memory-mapped register by making the core execute one store
// instruction, for stubs whose memory writes skip I/O (QEMU writes memory with "debug"
// accesses that only reach RAM and ROM, so a peripheral register written with 'X' or 'M'
// is silently unchanged). Cortex-M (Thumb) only; size 1, 2 or 4. The target must be
// stopped. It saves r0, r1, pc and two bytes below the stack, places "str r1, [r0]"
// there, single-steps it (QEMU masks interrupts while stepping) and restores everything.
func (t *Target) storeViaCore(addr uint64, size int, value uint64) error {
	insn := map[int]uint16{1: 0x7001, 2: 0x8001, 4: 0x6001}[size] // strb/strh/str r1, [r0]
	if insn == 0 {
		return fmt.Errorf("gdbremote: a %d-byte store", size)
	}
	ctx := t.ctx
	regs := map[string]int{}
	for _, n := range []string{"r0", "r1", "sp", "pc"} {
		r, ok := t.desc.Reg(n)
		if !ok {
			return fmt.Errorf("gdbremote: no register %s", n)
		}
		regs[n] = r.Num
	}
	saved := map[int][]byte{}
	for _, n := range []string{"r0", "r1", "pc", "sp"} {
		b, err := t.c.ReadRegister(ctx, regs[n])
		if err != nil {
			return err
		}
		saved[regs[n]] = b
	}
	order := t.order
	scratch := (Uint(saved[regs["sp"]], order) - 64) &^ 3
	oldCode, err := t.c.ReadMemory(ctx, scratch, 2)
	if err != nil || len(oldCode) < 2 {
		return fmt.Errorf("gdbremote: scratch memory at %#x: %v", scratch, err)
	}
	restore := func() error {
		if err := t.c.WriteMemory(ctx, scratch, oldCode); err != nil {
			return err
		}
		for _, n := range []string{"r0", "r1", "pc"} {
			if err := t.c.WriteRegister(ctx, regs[n], saved[regs[n]]); err != nil {
				return err
			}
		}
		return nil
	}
	code := make([]byte, 2)
	order.PutUint16(code, insn)
	if order == binary.BigEndian {
		binary.BigEndian.PutUint16(code, insn)
	}
	put := func(n string, v uint64) error {
		b := make([]byte, len(saved[regs[n]]))
		var full [8]byte
		binary.LittleEndian.PutUint64(full[:], v)
		copy(b, full[:])
		return t.c.WriteRegister(ctx, regs[n], b)
	}
	if err := t.c.WriteMemory(ctx, scratch, code); err != nil {
		return err
	}
	if err := put("r0", addr); err != nil {
		restore()
		return err
	}
	if err := put("r1", value); err != nil {
		restore()
		return err
	}
	if err := put("pc", scratch|1); err != nil { // bit 0: stay in Thumb state
		restore()
		return err
	}
	if err := t.c.Step(ctx); err != nil {
		restore()
		return err
	}
	sr, err := t.c.Wait(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	if t.stopCache != nil {
		t.stopCache.mem = map[uint64][]byte{}
	}
	t.mu.Unlock()
	if err := restore(); err != nil {
		return err
	}
	if pc, err := t.c.PC(ctx, &sr); err == nil && pc != scratch+2 {
		return fmt.Errorf("gdbremote: the store at %#x did not complete (pc %#x)", addr, pc)
	}
	return nil
}

// StoreIO writes a memory-mapped I/O register of size 1, 2 or 4 bytes: through the core
// (see storeViaCore) for device addresses of ARM targets, else as a memory write. Use it
// inside Access.
func (m directMem) StoreIO(addr uint64, data []byte) error {
	if !m.t.IsDeviceAddr(addr) || len(data) != 1 && len(data) != 2 && len(data) != 4 || addr%uint64(len(data)) != 0 {
		return m.WriteMemory(addr, data)
	}
	return m.t.storeViaCore(addr, len(data), Uint(data, m.t.order))
}

package gdbremote

import (
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// IsDeviceAddr reports whether addr is in a Cortex-M peripheral or system region
// (0x40000000-0x5FFFFFFF, 0xE0000000 and up) of an ARM target.
func (t *Target) IsDeviceAddr(addr uint64) bool {
	return t.sym.Arch.Machine == elf.EM_ARM && (addr >= 0x40000000 && addr < 0x60000000 || addr >= 0xE0000000 && addr < 1<<32)
}

// stepTimeout bounds a single step: storeViaCore's, and the run loop's (a WFI with
// interrupts masked never completes one on QEMU). It is below the Aether front end's 2 s
// limit of a synchronous step.
const stepTimeout = 1500 * time.Millisecond

// xPSR bits of the IT (If-Then) state: ICI/IT[7:2] at 15:10 and IT[1:0] at 26:25. A store
// stepped inside an IT block would be conditional, so they are cleared for the step.
const xpsrIT = 0x3F<<10 | 3<<25

// storeViaCore writes a memory-mapped register by making the core execute one store
// instruction, for stubs whose memory writes skip I/O (QEMU writes memory with "debug"
// accesses that only reach RAM and ROM, so a peripheral register written with 'X' or 'M'
// is silently unchanged). Cortex-M (Thumb) only; size 1, 2 or 4. The target must be
// stopped. It saves r0, r1, pc, xpsr and two bytes 64 bytes below the stack pointer,
// places "str r1, [r0]" there, points the pc at it (an even address: Cortex-M is always
// in Thumb state, and QEMU takes a written pc as is), single-steps it (QEMU masks
// interrupts and timers while stepping, so no handler runs in between), checks that the
// pc advanced by 2, and restores everything.
func (t *Target) storeViaCore(addr uint64, size int, value uint64) (err error) {
	insn := map[int]uint16{1: 0x7001, 2: 0x8001, 4: 0x6001}[size] // strb/strh/str r1, [r0]
	if insn == 0 {
		return fmt.Errorf("gdbremote: a %d-byte store", size)
	}
	ctx := t.ctx
	regs := map[string]int{}
	for _, n := range []string{"r0", "r1", "sp", "pc", "xpsr"} {
		r, ok := t.desc.Reg(n)
		if !ok {
			if n == "xpsr" {
				continue
			}
			return fmt.Errorf("gdbremote: no register %s", n)
		}
		regs[n] = r.Num
	}
	saved := map[string][]byte{}
	for n, num := range regs {
		b, err := t.c.ReadRegister(ctx, num)
		if err != nil {
			return err
		}
		saved[n] = b
	}
	order := t.order
	scratch := (Uint(saved["sp"], order) - 64) &^ 3
	oldCode, err := t.c.ReadMemory(ctx, scratch, 2)
	if err != nil || len(oldCode) < 2 {
		return fmt.Errorf("gdbremote: scratch memory at %#x: %v", scratch, err)
	}
	put := func(n string, v uint64) error {
		b := make([]byte, len(saved[n]))
		var full [8]byte
		if order == binary.BigEndian {
			binary.BigEndian.PutUint64(full[:], v)
			copy(b, full[8-len(b):])
		} else {
			binary.LittleEndian.PutUint64(full[:], v)
			copy(b, full[:])
		}
		return t.c.WriteRegister(ctx, regs[n], b)
	}
	// Whatever happens, put back the code bytes and the registers, and forget what the
	// stop's cache holds of them.
	defer func() {
		rerr := t.c.WriteMemory(ctx, scratch, oldCode)
		for _, n := range []string{"r0", "r1", "pc", "xpsr"} {
			if b, ok := saved[n]; ok {
				if e := t.c.WriteRegister(ctx, regs[n], b); e != nil && rerr == nil {
					rerr = e
				}
			}
		}
		t.cache().forget(-1, nil)
		if err == nil && rerr != nil {
			err = fmt.Errorf("gdbremote: restoring the registers after a store: %w", rerr)
		}
	}()
	code := make([]byte, 2)
	order.PutUint16(code, insn)
	if err := t.c.WriteMemory(ctx, scratch, code); err != nil {
		return err
	}
	if err := put("r0", addr); err != nil {
		return err
	}
	if err := put("r1", value); err != nil {
		return err
	}
	if err := put("pc", scratch); err != nil {
		return err
	}
	if b, ok := saved["xpsr"]; ok {
		if x := Uint(b, order); x&xpsrIT != 0 {
			if err := put("xpsr", x&^xpsrIT); err != nil {
				return err
			}
		}
	}
	if err := t.c.Step(ctx); err != nil {
		return err
	}
	sr, err := t.waitStep()
	if err != nil {
		return err
	}
	pc, err := t.c.PC(ctx, &sr)
	if err != nil {
		return err
	}
	if pc&^1 != scratch+2 {
		return fmt.Errorf("gdbremote: the store to %#x did not complete (pc %#x after the step, want %#x; stop %q)", addr, pc, scratch+2, sr.Raw)
	}
	return nil
}

// waitStep waits for the stop of a single step sent outside the run loop, within
// stepTimeout; past it the target is interrupted, and if even that brings no stop the
// connection is given up (a late stop reply would be taken for another reply).
func (t *Target) waitStep() (StopReply, error) {
	ctx, cancel := context.WithTimeout(t.ctx, stepTimeout)
	sr, err := t.c.Wait(ctx)
	cancel()
	if err == nil || !errors.Is(err, context.DeadlineExceeded) {
		return sr, err
	}
	t.c.Interrupt()
	ctx, cancel = context.WithTimeout(t.ctx, stepTimeout)
	defer cancel()
	if sr, err = t.c.Wait(ctx); err != nil {
		t.c.fail(fmt.Errorf("gdbremote: a single step never stopped: %w", err))
		return sr, err
	}
	return sr, fmt.Errorf("gdbremote: a single step did not stop by itself")
}

// qemuStub reports whether the stub is QEMU's: it alone answers "qqemu.sstepbits" (with
// the single-step flags it knows, "ENABLE=1,NOIRQ=2,NOTIMER=4"). Asked once.
func (t *Target) qemuStub() bool {
	t.qemuOnce.Do(func() {
		r, err := t.c.Exchange(t.ctx, "qqemu.sstepbits")
		t.isQEMU = err == nil && strings.Contains(r, "NOIRQ")
	})
	return t.isQEMU
}

// stepMasked runs fn (which single-steps) with QEMU's stepping flags set to mask
// interrupts and timers, as they are by default, restoring them afterwards.
func (t *Target) stepMasked(fn func() error) error {
	r, err := t.c.Exchange(t.ctx, "qqemu.sstep")
	flags, perr := strconv.ParseUint(strings.TrimPrefix(r, "0x"), 16, 32)
	if err != nil || perr != nil || flags&6 == 6 {
		return fn()
	}
	if err := t.c.expectOK(t.ctx, fmt.Sprintf("Qqemu.sstep=%x", flags|7)); err != nil {
		return fn()
	}
	defer t.c.expectOK(t.ctx, fmt.Sprintf("Qqemu.sstep=%x", flags))
	return fn()
}

// StoreIO writes a memory-mapped I/O register of size 1, 2 or 4 bytes. On QEMU, whose
// memory writes skip devices, a device address of an ARM target is written by the core
// itself (see storeViaCore); everywhere else (real probes write devices) it is a memory
// write. Use it inside Access.
func (m directMem) StoreIO(addr uint64, data []byte) error {
	t := m.t
	if !t.IsDeviceAddr(addr) || len(data) != 1 && len(data) != 2 && len(data) != 4 || addr%uint64(len(data)) != 0 || !t.qemuStub() {
		return m.WriteMemory(addr, data)
	}
	return t.stepMasked(func() error { return t.storeViaCore(addr, len(data), Uint(data, t.order)) })
}

package gdbremote

// Making a function return at once, as gdb's return does: the registers its caller had at
// the call, as the unwinder recovers them, become the thread's, and a value given goes
// where the ABI returns one. Nothing of the function runs.

import (
	"debug/dwarf"
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// PopFrames implements engine.FramePopper.
func (t *Target) PopFrames(frame int, value string) (engine.Location, error) {
	if err := t.needStopped(); err != nil {
		return engine.Location{}, err
	}
	fs, err := t.frames()
	if err != nil {
		return engine.Location{}, err
	}
	if frame < 0 || frame >= len(fs) {
		return engine.Location{}, engine.ErrNoFrame
	}
	fr := &fs[frame]
	switch {
	case fr.Inline() != nil:
		return engine.Location{}, errors.New("Can not force return from an inlined function.")
	case frame+1 >= len(fs) || fs[frame+1].CFA == 0 && fs[frame+1].PC == 0:
		return engine.Location{}, errors.New("the outermost frame has no caller to return to")
	case fr.CFA == 0:
		return engine.Location{}, errors.New("where the frame's caller left its stack is unknown: it cannot return")
	}
	typ, ret, err := t.returnValueBytes(fr, value)
	if err != nil {
		return engine.Location{}, err
	}
	// The caller's registers (in the machine frame around it, for a caller inlined into
	// another function), then its pc and stack pointer.
	caller := &fs[frame+1]
	a, w := t.sym.Arch, storer{t}
	regs := caller.Regs()
	nums := make([]int, 0, len(regs))
	for n := range regs {
		if n != a.SP && n != a.PC && n != a.RA && a.RegName(n) != "" {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	for _, n := range nums {
		if live, ok := (dwarfRegs{t}).Register(n); !ok || live == regs[n] {
			continue // unchanged, or a register the stub does not have
		}
		if err := w.WriteRegister(n, regs[n]); err != nil {
			return engine.Location{}, err
		}
	}
	if err := w.WriteRegister(a.SP, fr.CFA); err != nil {
		return engine.Location{}, err
	}
	pcReg, ok := t.desc.PCReg()
	if !ok {
		return engine.Location{}, errors.New("gdbremote: no pc register")
	}
	pc := t.clearThumb(caller.PC)
	if err := t.WriteRegister(pcReg.Name, pc); err != nil {
		return engine.Location{}, err
	}
	if ret != nil {
		if err := t.storeReturnValue(typ, ret); err != nil {
			return engine.Location{}, err
		}
	}
	t.mu.Lock()
	t.inl = inlineView{}
	t.refs = map[int]refEntry{}
	t.mu.Unlock()
	t.cache().forget(-1, nil)
	return t.location(pc), nil
}

// returnValueBytes evaluates value in frame fr and converts it to the type fr's function
// returns, as gdb's return EXPR does. A void function evaluates it and returns nil.
func (t *Target) returnValueBytes(fr *elfsym.Frame, value string) (dwarf.Type, []byte, error) {
	if value == "" {
		return nil, nil, nil
	}
	if fr.Func == nil {
		return nil, nil, errors.New("Return value type not available for selected stack frame.\n" +
			"Please use an explicit cast of the value to return.")
	}
	typ := t.sym.ReturnType(fr.Func)
	b, err := t.sym.Encode(typ, value)
	if err != nil || typ == nil {
		text, aerr := t.valueText(fr, value)
		switch {
		case aerr != nil:
			return nil, nil, aerr
		case typ == nil: // void: the value is dropped, as gdb drops it
			return nil, nil, nil
		}
		if b, err = t.sym.Encode(typ, truncated(typ, text)); err != nil {
			return nil, nil, err
		}
	}
	return typ, b, nil
}

// truncated is text converted as C converts a floating value to an integer type: without
// its fraction (2.5 returned as an int is 2). Other text is left as it is.
func truncated(typ dwarf.Type, text string) string {
	if isInt, _ := elfsym.IntKind(typ); isInt {
		if f, err := strconv.ParseFloat(text, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return strconv.FormatInt(int64(f), 10)
		}
	}
	return text
}

// storeReturnValue puts b, a value of type typ, where the ABI returns it: integers,
// pointers, enums and bools in the first return register (rax, r0, x0; two registers on
// 32-bit ARM for eight bytes), floating point in xmm0 on x86-64.
func (t *Target) storeReturnValue(typ dwarf.Type, b []byte) error {
	a, w := t.sym.Arch, storer{t}
	word := func(b []byte) uint64 {
		var full [8]byte
		if t.order.String() == "BigEndian" {
			copy(full[8-len(b):], b)
			return t.order.Uint64(full[:])
		}
		copy(full[:], b)
		return t.order.Uint64(full[:])
	}
	if _, isFloat := elfsym.Underlying(typ).(*dwarf.FloatType); isFloat {
		if t.desc.Arch != "i386:x86-64" {
			return errors.New("returning a floating-point value is supported on x86-64 programs only")
		}
		xmm0, _ := a.RegNum("xmm0")
		return w.WriteRegister(xmm0, word(b))
	}
	if len(b) <= a.PtrSize {
		return w.WriteRegister(0, word(b))
	}
	if a.PtrSize == 4 && len(b) == 8 && t.order.String() != "BigEndian" {
		if err := w.WriteRegister(0, word(b[:4])); err != nil {
			return err
		}
		return w.WriteRegister(1, word(b[4:]))
	}
	return errors.New("this value cannot be returned in registers")
}

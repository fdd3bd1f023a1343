package gdbremote

import "github.com/polydbg/polydbg/engine"

// ReadRegisters implements engine.RegisterAccess.
func (t *Target) ReadRegisters() ([]engine.Register, error) {
	regs, err := t.Registers()
	if err != nil {
		return nil, err
	}
	out := make([]engine.Register, len(regs))
	for i, r := range regs {
		out[i] = engine.Register{Name: r.Name, Num: r.Num, Size: r.Size, Value: r.Value, Natural: r.Natural, Hex: r.Hex, Float: r.Float}
		if r.Size > 8 {
			out[i].Bytes = r.Bytes
		}
	}
	return out, nil
}

// FrameRegisters implements engine.FrameRegisterReader: the innermost frame's registers
// with the values the unwinder recovered for frame (by DWARF number) in their place.
func (t *Target) FrameRegisters(frame int) ([]engine.Register, error) {
	out, err := t.ReadRegisters()
	if err != nil || frame == 0 {
		return out, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return nil, err
	}
	for n, v := range fr.Regs() {
		name := t.sym.Arch.RegName(n)
		for i := range out {
			if out[i].Name != name || name == "" || out[i].Size > 8 {
				continue
			}
			out[i].Value = v
			if r, ok := t.desc.Reg(name); ok {
				out[i].Natural, _ = t.registerText(r.Type, r.Bitsize/8, v)
			}
		}
	}
	return out, nil
}

var (
	_ engine.MemoryAccess        = (*Target)(nil)
	_ engine.RegisterAccess      = (*Target)(nil)
	_ engine.FrameRegisterReader = (*Target)(nil)
)

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
		out[i] = engine.Register{Name: r.Name, Num: r.Num, Size: r.Size, Value: r.Value, Natural: r.Natural}
	}
	return out, nil
}

var (
	_ engine.MemoryAccess   = (*Target)(nil)
	_ engine.RegisterAccess = (*Target)(nil)
)

package dap

import (
	"errors"
	"fmt"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/launch"
)

// The Peripherals scope of a target launched with an SVD file: peripherals, their
// registers (read through the device service, engine.Peripherals) and the registers'
// decoded bit fields. Its references are the adapter's own, above periphBase (the
// engine's are small numbers): periphBase itself is the scope, then the peripheral's
// index plus one above periphShift, then the register's index plus one.

const (
	periphBase  = 1 << 30
	periphShift = 14
	periphMask  = 1<<periphShift - 1
)

// hasPeripherals says whether d shows a Peripherals scope.
func hasPeripherals(d *launch.Debuggee) bool { return d.Device != nil && d.MCU != nil }

// isPeripheralRef says whether a variables reference is the Peripherals scope's.
func isPeripheralRef(ref int) bool { return ref >= periphBase }

// peripheralScope is the scope added to every frame's scopes.
func peripheralScope() godap.Scope {
	return godap.Scope{Name: "Peripherals", VariablesReference: periphBase, Expensive: true, PresentationHint: "registers"}
}

// peripheralVariables lists the peripherals, a peripheral's registers, or a register's
// fields.
func peripheralVariables(d *launch.Debuggee, ref int) ([]godap.Variable, error) {
	if !hasPeripherals(d) {
		return nil, errors.New("no peripherals: launch with an \"svd\" file")
	}
	dev := d.Device
	pi, ri := (ref-periphBase)>>periphShift-1, (ref-periphBase)&periphMask-1
	if pi < 0 { // the scope: the peripherals
		out := make([]godap.Variable, len(dev.Peripherals))
		for i, p := range dev.Peripherals {
			out[i] = godap.Variable{Name: p.Name, Value: fmt.Sprintf("@ %#08x", p.BaseAddress), Type: p.GroupName,
				VariablesReference: periphBase + (i+1)<<periphShift, NamedVariables: len(p.Registers)}
		}
		return out, nil
	}
	if pi >= len(dev.Peripherals) {
		return nil, fmt.Errorf("no variables for reference %d", ref)
	}
	p := dev.Peripherals[pi]
	if ri < 0 { // a peripheral: its registers, read now
		out := make([]godap.Variable, len(p.Registers))
		for i, r := range p.Registers {
			v := godap.Variable{Name: r.Name, Type: fmt.Sprintf("%d bits @ %#08x", r.Size, r.Address),
				MemoryReference: pcRef(r.Address)}
			pv, err := d.MCU.ReadPeripheral(p.Name, r.Name)
			switch {
			case err != nil:
				v.Value = "<" + err.Error() + ">"
			default:
				v.Value = fmt.Sprintf("0x%0*x", (r.Size+3)/4, pv.Value)
				if len(pv.Fields) > 0 && i < periphMask {
					v.VariablesReference, v.NamedVariables = periphBase+(pi+1)<<periphShift+i+1, len(pv.Fields)
				}
			}
			out[i] = v
		}
		return out, nil
	}
	if ri >= len(p.Registers) {
		return nil, fmt.Errorf("no variables for reference %d", ref)
	}
	r := p.Registers[ri]
	pv, err := d.MCU.ReadPeripheral(p.Name, r.Name)
	if err != nil {
		return nil, err
	}
	out := make([]godap.Variable, len(pv.Fields))
	for i, f := range pv.Fields {
		v := fmt.Sprint(f.Value)
		if f.Enum != "" {
			v += " (" + f.Enum + ")"
		}
		bits := fmt.Sprintf("bit %d", f.BitOffset)
		if f.BitWidth > 1 {
			bits = fmt.Sprintf("bits %d..%d", f.BitOffset+f.BitWidth-1, f.BitOffset)
		}
		out[i] = godap.Variable{Name: f.Name, Value: v, Type: bits}
	}
	return out, nil
}

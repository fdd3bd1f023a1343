package launch

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// PeripheralField is one field of a peripheral register, decoded.
type PeripheralField struct {
	Name      string
	BitOffset int
	BitWidth  int
	Value     uint64
	Enum      string // the field's enumerated name for Value, if the SVD file has one
}

// PeripheralRegister is a peripheral register read from a stopped target, with its fields.
type PeripheralRegister struct {
	Peripheral string
	Name       string
	Address    uint64
	Value      uint64
	Fields     []PeripheralField
	Err        string // why it was not read (write-only, unreadable)
}

// Peripherals names the peripherals of the debuggee's SVD file (Spec.SVD), so that front
// ends need not know the SVD package.
func (d *Debuggee) Peripherals() ([]string, error) {
	if d.Device == nil {
		return nil, errors.New("no SVD file was given for this debuggee (svd)")
	}
	out := make([]string, 0, len(d.Device.Peripherals))
	for _, p := range d.Device.Peripherals {
		out = append(out, p.Name)
	}
	return out, nil
}

// ReadPeripheral reads the registers of a peripheral (all the readable ones, or only the one
// named) of the stopped target, decoded by the SVD file. Reading a register can have side
// effects on the device (a UART's data register pops a byte): name the register to read one.
// Values are little-endian, as on every Cortex-M.
func (d *Debuggee) ReadPeripheral(peripheral, register string) ([]PeripheralRegister, error) {
	if d.Device == nil {
		return nil, errors.New("no SVD file was given for this debuggee (svd)")
	}
	p, err := d.Device.Peripheral(peripheral)
	if err != nil {
		return nil, err
	}
	var out []PeripheralRegister
	for _, r := range p.Registers {
		if register != "" && r.Name != register {
			continue
		}
		pr := PeripheralRegister{Peripheral: p.Name, Name: r.Name, Address: r.Address}
		if !r.Readable() {
			pr.Err = "write-only"
			out = append(out, pr)
			continue
		}
		n := max((r.Size+7)/8, 1)
		b, err := d.ReadMemory(r.Address, n)
		if err != nil {
			if len(out) == 0 && register != "" {
				return nil, err
			}
			pr.Err = err.Error()
			out = append(out, pr)
			continue
		}
		var full [8]byte
		copy(full[:], b)
		pr.Value = binary.LittleEndian.Uint64(full[:])
		for _, f := range r.Decode(pr.Value) {
			pr.Fields = append(pr.Fields, PeripheralField{Name: f.Name, BitOffset: f.BitOffset, BitWidth: f.BitWidth, Value: f.Value, Enum: f.Enum})
		}
		out = append(out, pr)
	}
	if register != "" && len(out) == 0 {
		return nil, fmt.Errorf("%s has no register %s", p.Name, register)
	}
	return out, nil
}

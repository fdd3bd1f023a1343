// Package svd parses CMSIS-SVD files (the XML description of a microcontroller's
// peripherals, their registers and bit fields) with encoding/xml, and decodes and encodes
// register values with it.
//
// It supports what real vendor files use: derivedFrom on peripherals, clusters, registers,
// fields and enumerated values; dim arrays ("NAME[%s]" and "NAME%s" with dimIndex lists
// and ranges); nested clusters; register properties (size, access, resetValue,
// resetMask) inherited from device to peripheral to cluster to register; fields given by
// bitOffset/bitWidth, lsb/msb or bitRange; enumerated values, with isDefault and binary
// values ("#01x1": x bits are "don't care").
//
// Registers are flattened: each Peripheral lists every register with its path name
// ("CTRL", "CH[2].CFG", "ARR3") and absolute address.
package svd

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/fileload"
)

// Device is a parsed SVD file.
type Device struct {
	Name        string
	Description string
	Peripherals []*Peripheral // sorted by name
	byName      map[string]*Peripheral
}

// Peripheral is one peripheral instance.
type Peripheral struct {
	Name        string
	Description string
	GroupName   string
	BaseAddress uint64
	DerivedFrom string
	Registers   []*Register // sorted by address, then name
	byName      map[string]*Register
}

// Register is one register of a peripheral.
type Register struct {
	Name        string // path name inside the peripheral: "CR1", "CH[0].CTRL"
	Description string
	Address     uint64 // absolute
	Offset      uint64 // from the peripheral's base address
	Size        int    // bits
	Access      string // read-only, write-only, read-write, writeOnce, read-writeOnce
	ResetValue  uint64
	ResetMask   uint64
	Fields      []*Field // sorted by bit offset
}

// Field is a bit field of a register.
type Field struct {
	Name        string
	Description string
	BitOffset   int
	BitWidth    int
	Access      string
	Enums       []EnumValue
}

// EnumValue names one value of a field.
type EnumValue struct {
	Name        string
	Description string
	Value       uint64
	Mask        uint64 // bits that matter (all, unless the value had x "don't care" bits)
	IsDefault   bool   // names every value no other entry names
}

// Errors of lookups; wrap them to test with errors.Is.
var (
	ErrNoPeripheral = errors.New("svd: no such peripheral")
	ErrNoRegister   = errors.New("svd: no such register")
	ErrNoField      = errors.New("svd: no such field")
)

// ParseFile parses an SVD file.
func ParseFile(path string) (*Device, error) {
	f, err := fileload.Open(path)
	if err != nil {
		return nil, fmt.Errorf("svd: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Parse parses an SVD document.
func Parse(r io.Reader) (*Device, error) {
	var x xDevice
	if err := xml.NewDecoder(r).Decode(&x); err != nil {
		return nil, fmt.Errorf("svd: %w", err)
	}
	b := &builder{}
	d := &Device{Name: x.Name, Description: clean(x.Description), byName: map[string]*Peripheral{}}
	devProps := props{size: 32, access: "read-write", resetMask: ^uint64(0)}
	devProps, err := devProps.with(x.Size, x.Access, x.ResetValue, x.ResetMask)
	if err != nil {
		return nil, err
	}
	raw := map[string]*xPeripheral{}
	for i := range x.Peripherals {
		raw[x.Peripherals[i].Name] = &x.Peripherals[i]
	}
	for i := range x.Peripherals {
		xp, err := resolvePeripheral(&x.Peripherals[i], raw, 0)
		if err != nil {
			return nil, err
		}
		ps, err := b.peripheral(xp, devProps)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if d.byName[strings.ToUpper(p.Name)] != nil {
				return nil, fmt.Errorf("svd: peripheral %s defined twice", p.Name)
			}
			d.byName[strings.ToUpper(p.Name)] = p
			d.Peripherals = append(d.Peripherals, p)
		}
	}
	sort.Slice(d.Peripherals, func(i, j int) bool { return d.Peripherals[i].Name < d.Peripherals[j].Name })
	return d, nil
}

// Peripheral finds a peripheral by name (case-insensitive).
func (d *Device) Peripheral(name string) (*Peripheral, error) {
	if p := d.byName[strings.ToUpper(name)]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("%w: %q", ErrNoPeripheral, name)
}

// Register finds a register of peripheral pname by its path name (case-insensitive).
func (d *Device) Register(pname, rname string) (*Peripheral, *Register, error) {
	p, err := d.Peripheral(pname)
	if err != nil {
		return nil, nil, err
	}
	r, err := p.Register(rname)
	return p, r, err
}

// Register finds a register by its path name (case-insensitive).
func (p *Peripheral) Register(name string) (*Register, error) {
	if r := p.byName[strings.ToUpper(name)]; r != nil {
		return r, nil
	}
	return nil, fmt.Errorf("%w: %s.%s", ErrNoRegister, p.Name, name)
}

// Field finds a field by name (case-insensitive).
func (r *Register) Field(name string) (*Field, error) {
	for _, f := range r.Fields {
		if strings.EqualFold(f.Name, name) {
			return f, nil
		}
	}
	return nil, fmt.Errorf("%w: %s.%s", ErrNoField, r.Name, name)
}

// Mask is the field's bits in place.
func (f *Field) Mask() uint64 {
	if f.BitWidth >= 64 {
		return ^uint64(0)
	}
	return (uint64(1)<<f.BitWidth - 1) << f.BitOffset
}

// Extract is the field's value in a register value.
func (f *Field) Extract(reg uint64) uint64 { return (reg & f.Mask()) >> f.BitOffset }

// Insert returns reg with the field set to v; v must fit the field.
func (f *Field) Insert(reg, v uint64) (uint64, error) {
	if f.BitWidth < 64 && v>>f.BitWidth != 0 {
		return reg, fmt.Errorf("svd: value %#x does not fit field %s (%d bits)", v, f.Name, f.BitWidth)
	}
	return reg&^f.Mask() | v<<f.BitOffset&f.Mask(), nil
}

// EnumName names a field value from its enumerated values ("" when none does).
func (f *Field) EnumName(v uint64) string {
	def := ""
	for _, e := range f.Enums {
		if e.IsDefault {
			def = e.Name
			continue
		}
		if v&e.Mask == e.Value&e.Mask {
			return e.Name
		}
	}
	return def
}

// EnumValue finds a field value by its enumerated name (case-insensitive).
func (f *Field) EnumValue(name string) (uint64, bool) {
	for _, e := range f.Enums {
		if !e.IsDefault && strings.EqualFold(e.Name, name) {
			return e.Value, true
		}
	}
	return 0, false
}

// Readable reports whether reading the register is allowed.
func (r *Register) Readable() bool { return r.Access != "write-only" && r.Access != "writeOnce" }

// Writable reports whether writing the register is allowed.
func (r *Register) Writable() bool { return r.Access != "read-only" }

// FieldValue is one decoded field.
type FieldValue struct {
	Name      string
	BitOffset int
	BitWidth  int
	Value     uint64
	Enum      string // the enumerated name of Value, if any
}

// Decode splits a register value into its fields.
func (r *Register) Decode(v uint64) []FieldValue {
	out := make([]FieldValue, 0, len(r.Fields))
	for _, f := range r.Fields {
		fv := f.Extract(v)
		out = append(out, FieldValue{Name: f.Name, BitOffset: f.BitOffset, BitWidth: f.BitWidth, Value: fv, Enum: f.EnumName(fv)})
	}
	return out
}

// props are the inherited register properties.
type props struct {
	size       int
	access     string
	resetValue uint64
	resetMask  uint64
}

func (p props) with(size, access, rv, rm *string) (props, error) {
	if size != nil {
		n, err := parseNum(*size)
		if err != nil || n == 0 || n > 64 {
			return p, fmt.Errorf("svd: bad size %q", *size)
		}
		p.size = int(n)
	}
	if access != nil {
		p.access = strings.TrimSpace(*access)
	}
	if rv != nil {
		n, err := parseNum(*rv)
		if err != nil {
			return p, fmt.Errorf("svd: bad resetValue %q", *rv)
		}
		p.resetValue = n
	}
	if rm != nil {
		n, err := parseNum(*rm)
		if err != nil {
			return p, fmt.Errorf("svd: bad resetMask %q", *rm)
		}
		p.resetMask = n
	}
	return p, nil
}

// parseNum reads an SVD scaled non-negative integer: decimal, 0x hex, # or 0b binary.
func parseNum(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		return strconv.ParseUint(s[2:], 16, 64)
	case strings.HasPrefix(s, "#"):
		return strconv.ParseUint(s[1:], 2, 64)
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		return strconv.ParseUint(s[2:], 2, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

// parseEnumValue reads an enumerated value, where binary values may have x bits.
func parseEnumValue(s string) (val, mask uint64, err error) {
	s = strings.TrimSpace(s)
	var bits string
	switch {
	case strings.HasPrefix(s, "#"):
		bits = s[1:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		bits = s[2:]
	default:
		v, err := parseNum(s)
		return v, ^uint64(0), err
	}
	if bits == "" || len(bits) > 64 {
		return 0, 0, fmt.Errorf("bad value %q", s)
	}
	mask = ^uint64(0)
	for i, c := range bits {
		bit := uint64(1) << (len(bits) - 1 - i)
		switch c {
		case '1':
			val |= bit
		case '0':
		case 'x', 'X':
			mask &^= bit
		default:
			return 0, 0, fmt.Errorf("bad value %q", s)
		}
	}
	return val, mask, nil
}

func clean(s string) string { return strings.Join(strings.Fields(s), " ") }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return clean(*s)
}

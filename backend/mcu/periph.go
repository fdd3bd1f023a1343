package mcu

import (
	"encoding/binary"
	"fmt"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/svd"
	"github.com/polydbg/polydbg/engine"
)

// Device is the SVD description the service decodes registers with (nil without one).
func (s *Service) Device() *svd.Device { return s.dev }

func (s *Service) register(periph, reg string) (*svd.Register, error) {
	if s.dev == nil {
		return nil, fmt.Errorf("%w: no SVD file was given (--svd)", engine.ErrUnsupported)
	}
	_, r, err := s.dev.Register(periph, reg)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", engine.ErrNotFound, err)
	}
	return r, nil
}

func (s *Service) order() binary.ByteOrder { return s.t.Symbols().Arch.ByteOrder }

// encode is v as n bytes in order o.
func encode(o binary.ByteOrder, v uint64, n int) []byte {
	var full [8]byte
	o.PutUint64(full[:], v)
	if o == binary.BigEndian {
		return full[8-n:]
	}
	return full[:n]
}

func (s *Service) readReg(m gdbremote.Access, r *svd.Register) (uint64, error) {
	n := (r.Size + 7) / 8
	b, err := m.ReadMemory(r.Address, n)
	if err != nil {
		return 0, err
	}
	if len(b) < n {
		return 0, fmt.Errorf("%w: %s at %#x is not readable", engine.ErrRefused, r.Name, r.Address)
	}
	return gdbremote.Uint(b, s.order()), nil
}

func (s *Service) decoded(r *svd.Register, v uint64) engine.PeripheralValue {
	out := engine.PeripheralValue{Address: r.Address, Size: r.Size, Value: v, Bytes: encode(s.order(), v, (r.Size+7)/8)}
	for _, f := range r.Decode(v) {
		out.Fields = append(out.Fields, engine.FieldValue(f))
	}
	return out
}

// ReadPeripheral implements engine.Peripherals: it reads a register named by the SVD file
// (in a brief halt while the core runs) and decodes its fields.
func (s *Service) ReadPeripheral(periph, reg string) (engine.PeripheralValue, error) {
	r, err := s.register(periph, reg)
	if err != nil {
		return engine.PeripheralValue{}, err
	}
	if !r.Readable() {
		return engine.PeripheralValue{}, fmt.Errorf("%w: %s.%s is %s", engine.ErrUnsupported, periph, r.Name, r.Access)
	}
	var v uint64
	err = s.t.Access(func(m gdbremote.Access) error {
		var err error
		v, err = s.readReg(m, r)
		return err
	})
	if err != nil {
		return engine.PeripheralValue{}, gdbremote.EngineError(err)
	}
	return s.decoded(r, v), nil
}

// WritePeripheral implements engine.Peripherals: it writes one field of a register by
// read-modify-write (or the whole register when field is empty), so that the device sees
// the write, and returns the register's new value.
func (s *Service) WritePeripheral(periph, reg, field string, value uint64) (engine.PeripheralValue, error) {
	r, err := s.register(periph, reg)
	if err != nil {
		return engine.PeripheralValue{}, err
	}
	if !r.Writable() {
		return engine.PeripheralValue{}, fmt.Errorf("%w: %s.%s is read-only", engine.ErrInvalid, periph, r.Name)
	}
	var f *svd.Field
	if field != "" {
		if f, err = r.Field(field); err != nil {
			return engine.PeripheralValue{}, fmt.Errorf("%w: %w", engine.ErrNotFound, err)
		}
		if f.Access == "read-only" {
			return engine.PeripheralValue{}, fmt.Errorf("%w: field %s of %s.%s is read-only", engine.ErrInvalid, f.Name, periph, r.Name)
		}
		if _, err := f.Insert(0, value); err != nil {
			return engine.PeripheralValue{}, fmt.Errorf("%w: %w", engine.ErrInvalid, err)
		}
	} else if r.Size < 64 && value>>r.Size != 0 {
		return engine.PeripheralValue{}, fmt.Errorf("%w: value %#x does not fit the %d-bit register", engine.ErrInvalid, value, r.Size)
	}
	nv := value
	err = s.t.Access(func(m gdbremote.Access) error {
		if f != nil {
			old := r.ResetValue
			if r.Readable() {
				var err error
				if old, err = s.readReg(m, r); err != nil {
					return err
				}
			}
			nv, _ = f.Insert(old, value)
		}
		return m.StoreIO(r.Address, encode(s.order(), nv, (r.Size+7)/8))
	})
	if err != nil {
		return engine.PeripheralValue{}, gdbremote.EngineError(err)
	}
	return s.decoded(r, nv), nil
}

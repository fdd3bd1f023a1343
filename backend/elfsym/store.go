package elfsym

// Writing a variable, or one part of it, wherever DWARF places it: memory, a register, or
// pieces of both. A debugger's `set var`.

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Place is where a value of Type is stored: Off bytes into a variable's location, and for
// a bit field the field. Places of members, elements and pointed-to values come from
// Member.
type Place struct {
	Name  string
	Loc   Loc
	Off   int
	Type  dwarf.Type
	Field *dwarf.StructField // set for a bit field
	frame int                // the frame whose registers Loc refers to
}

// Storer writes what Store decided: memory, and DWARF-numbered registers of frame 0.
type Storer interface {
	WriteMemory(addr uint64, data []byte) error
	WriteRegister(dwarfReg int, value uint64) error
}

// ErrNotStorable is wrapped when a value has no storage a debugger could write: optimized
// out, computed by a DWARF expression, a synthetic pointer, or a caller's register.
var ErrNotStorable = errors.New("it has no storage that can be written")

// PlaceOf locates a variable for writing in frame fr (nil for globals).
func (f *File) PlaceOf(v *Var, fr *Frame, mem Memory) (Place, error) {
	if o := f.fileOfVar(v); o != f {
		return o.PlaceOf(v, fr, mem)
	}
	loc, err := f.Locate(v, fr, mem)
	if errors.Is(err, ErrOptimizedOut) || err == nil && loc.Kind == LocOptimized {
		return Place{}, fmt.Errorf("%s is optimized out here: %w", v.Name, ErrNotStorable)
	}
	if err != nil {
		return Place{}, err
	}
	typ, err := f.frameType(v, fr, mem)
	if err != nil {
		return Place{}, err
	}
	p := Place{Name: v.Name, Loc: loc, Type: typ}
	if fr != nil {
		p.frame = fr.Index
	}
	return p, p.check(loc)
}

// check refuses locations that cannot be written.
func (p Place) check(loc Loc) error {
	switch loc.Kind {
	case LocValue:
		return fmt.Errorf("%s is a value computed by the compiler's debug information here: %w", p.Name, ErrNotStorable)
	case LocImplicitPointer:
		return fmt.Errorf("%s is a synthetic pointer (to a value with no address): %w", p.Name, ErrNotStorable)
	case LocOptimized:
		return fmt.Errorf("part of %s is optimized out here: %w", p.Name, ErrNotStorable)
	case LocRegister:
		if p.frame != 0 {
			return fmt.Errorf("%s lives in a register of a caller frame (select frame 0 to change registers): %w", p.Name, ErrNotStorable)
		}
	case LocPieces:
		for _, pc := range loc.Pieces {
			if pc.BitSize%8 != 0 || pc.BitOff%8 != 0 {
				return fmt.Errorf("%s is split in bit pieces: %w", p.Name, ErrNotStorable)
			}
			if err := p.check(pc.Loc); err != nil {
				return err
			}
		}
	}
	return nil
}

// Size is the number of bytes the place's type takes.
func (p Place) Size() int { return int(p.Type.Size()) }

// Member is the place of a part of p: a struct or union field (by name), an array element
// ("[i]"), or what a pointer points to ("*"; "[i]" on a pointer indexes through it).
func (f *File) Member(p Place, key string, fr *Frame, mem Memory) (Place, error) {
	if p.Type == nil {
		return p, fmt.Errorf("%s has no type", p.Name)
	}
	if p.Field != nil {
		return p, fmt.Errorf("%s is a bit field", p.Name)
	}
	name := p.Name + "." + key
	switch tt := resolve(p.Type).(type) {
	case *dwarf.StructType:
		for _, fld := range tt.Field {
			if fld.Name == key {
				q := Place{Name: name, Loc: p.Loc, Off: p.Off + int(fieldOffset(fld)), Type: fld.Type, frame: p.frame}
				if fld.BitSize > 0 {
					q.Field = fld
				}
				return q, nil
			}
		}
		for _, fld := range tt.Field { // a member of an anonymous union or struct
			if inner, ok := resolve(fld.Type).(*dwarf.StructType); ok && fld.Name == "" && inner.StructName == "" {
				outer := Place{Name: p.Name, Loc: p.Loc, Off: p.Off + int(fld.ByteOffset), Type: fld.Type, frame: p.frame}
				if q, err := f.Member(outer, key, fr, mem); err == nil {
					return q, nil
				}
			}
		}
		return p, fmt.Errorf("%s has no member %s", p.Name, key)
	case *dwarf.ArrayType:
		i, err := index(key)
		if err != nil {
			return p, err
		}
		if tt.Count >= 0 && int64(i) >= tt.Count && p.Loc.Kind != LocMemory { // (in memory past its bounds is written, as gdb's: a flexible array member's elements)
			return p, fmt.Errorf("index %d out of range (%s has %d elements)", i, p.Name, tt.Count)
		}
		return Place{Name: p.Name + key, Loc: p.Loc, Off: p.Off + i*int(tt.Type.Size()), Type: tt.Type, frame: p.frame}, nil
	case *dwarf.PtrType:
		i := 0
		if key != "*" {
			var err error
			if i, err = index(key); err != nil {
				return p, fmt.Errorf("%s is a pointer: %w", p.Name, err)
			}
		}
		b, err := f.PlaceBytes(p, fr, mem)
		if err != nil {
			return p, err
		}
		addr := uintFrom(b, f.Arch) // (0: the write fails as gdb's, at the member's address)
		if _, void := resolve(tt.Type).(*dwarf.VoidType); void || tt.Type == nil {
			return p, fmt.Errorf("%s points to void", p.Name)
		}
		return Place{Name: "*" + p.Name, Loc: Loc{Kind: LocMemory, Addr: addr + uint64(i)*uint64(tt.Type.Size())}, Type: tt.Type}, nil
	}
	return p, fmt.Errorf("%s (%s) has no member %s", p.Name, TypeName(p.Type), key)
}

func index(key string) (int, error) {
	s, open := strings.CutPrefix(key, "[")
	s, closed := strings.CutSuffix(s, "]")
	if !open || !closed {
		return 0, fmt.Errorf("%q is not an index", key)
	}
	i, err := strconv.ParseInt(strings.TrimSpace(s), 0, 32)
	if err != nil || i < 0 {
		return 0, fmt.Errorf("%q is not an index", key)
	}
	return int(i), nil
}

// PlaceBytes reads the bytes of p (for a bit field, of the unit that holds it).
func (f *File) PlaceBytes(p Place, fr *Frame, mem Memory) ([]byte, error) {
	size := p.Size()
	if size <= 0 {
		return nil, fmt.Errorf("%s has no size", p.Name)
	}
	if p.Loc.Kind == LocMemory {
		return f.locBytes(p.Name, Loc{Kind: LocMemory, Addr: p.Loc.Addr + uint64(p.Off)}, size, fr, mem)
	}
	b, err := f.locBytes(p.Name, p.Loc, p.Off+size, fr, mem)
	if err != nil {
		return nil, err
	}
	if len(b) < p.Off+size {
		return nil, fmt.Errorf("%s reaches past its register", p.Name)
	}
	return b[p.Off : p.Off+size], nil
}

// Read formats the value at p as ReadVar does.
func (f *File) Read(p Place, fr *Frame, mem Memory) (Value, error) {
	b, err := f.PlaceBytes(p, fr, mem)
	if err != nil {
		return Value{Name: p.Name, Text: "<" + err.Error() + ">"}, err
	}
	inMem := p.Loc.Kind == LocMemory
	v := f.FormatValue(p.Type, b, p.Loc.Addr+uint64(p.Off), inMem, mem, 0)
	if p.Field != nil {
		v = f.bitfield(p.Field, b, v)
	}
	if !inMem {
		v.Addr = 0
	}
	v.Name = p.Name
	return v, nil
}

// Store writes text (a C literal of p's type: a number, 'c', true/false, an enumerator, a
// float) at p. The bytes written are returned.
func (f *File) Store(p Place, text string, fr *Frame, mem Memory, w Storer) error {
	data, err := f.Encode(p.Type, text)
	if err != nil {
		return err
	}
	if p.Field != nil {
		old, err := f.PlaceBytes(p, fr, mem)
		if err != nil {
			return err
		}
		if data, err = f.insertBits(p.Field, old, uintFrom(data, f.Arch)); err != nil {
			return err
		}
	}
	return f.writeLoc(p, p.Loc, p.Off, data, fr, w)
}

// StoreBytes writes data, a whole value of p's type (a struct, a union, an array), to p.
func (f *File) StoreBytes(p Place, data []byte, fr *Frame, w Storer) error {
	if len(data) != p.Size() || p.Field != nil {
		return fmt.Errorf("%d bytes do not fit %s", len(data), p.Name)
	}
	return f.writeLoc(p, p.Loc, p.Off, data, fr, w)
}

// insertBits puts the low bits of u into the bit field fld of the unit old.
func (f *File) insertBits(fld *dwarf.StructField, old []byte, u uint64) ([]byte, error) {
	shift := bitShift(fld, len(old))
	if shift < 0 || shift+fld.BitSize > 64 {
		return nil, fmt.Errorf("bit field %s is laid out beyond 64 bits", fld.Name)
	}
	mask := uint64(1)<<uint(fld.BitSize) - 1
	unit := uintFrom(old, f.Arch)
	unit = unit&^(mask<<uint(shift)) | (u&mask)<<uint(shift)
	return f.wordBytes(unit, len(old)), nil
}

// writeLoc writes data off bytes into loc.
func (f *File) writeLoc(p Place, loc Loc, off int, data []byte, fr *Frame, w Storer) error {
	switch loc.Kind {
	case LocMemory:
		return w.WriteMemory(loc.Addr+uint64(off), data)
	case LocRegister:
		if fr == nil || p.frame != 0 {
			return fmt.Errorf("%s lives in a register of a caller frame: %w", p.Name, ErrNotStorable)
		}
		r, ok := fr.Register(loc.Reg)
		if !ok {
			return fmt.Errorf("register %s unknown in this frame", f.Arch.RegName(loc.Reg))
		}
		if off+len(data) > 8 {
			return fmt.Errorf("%s is wider than the 64 bits of register %s that can be written", p.Name, f.Arch.RegName(loc.Reg))
		}
		b := f.wordBytes(r, 8)
		if f.Arch.ByteOrder.String() == "BigEndian" {
			copy(b[8-off-len(data):], data)
		} else {
			copy(b[off:], data)
		}
		return w.WriteRegister(loc.Reg, uintFrom(b, f.Arch))
	case LocPieces:
		start := 0
		for _, pc := range loc.Pieces {
			n := pc.Size
			if pc.BitSize > 0 {
				n = pc.BitSize / 8
			}
			lo, hi := max(off, start), min(off+len(data), start+n)
			if lo < hi {
				if err := f.writeLoc(p, pc.Loc, lo-start+pc.BitOff/8, data[lo-off:hi-off], fr, w); err != nil {
					return err
				}
			}
			start += n
		}
		return nil
	}
	return p.check(loc)
}

// Encode turns a C literal into the bytes of a value of type t: integers of every size
// (decimal, 0x, 0o, 0b, negative), chars ('a', '\n' or a number), bools, enumerators,
// floats and doubles, pointers (an address).
func (f *File) Encode(t dwarf.Type, text string) ([]byte, error) {
	text = strings.TrimSpace(text)
	if t == nil {
		return nil, fmt.Errorf("the variable has no type")
	}
	size := int(t.Size())
	switch resolve(t).(type) {
	case *dwarf.StructType, *dwarf.ArrayType:
		return nil, fmt.Errorf("cannot set a whole %s: set its members or elements", TypeName(t))
	}
	if size == 16 { // __int128: a number of up to 128 bits, in two's complement
		switch resolve(t).(type) {
		case *dwarf.IntType, *dwarf.UintType:
			return f.encodeWide(text, size)
		}
	}
	if size <= 0 || size > 8 { // every scalar below is written as one word of its size
		return nil, fmt.Errorf("cannot write a %d-byte %s", size, TypeName(t))
	}
	switch tt := resolve(t).(type) {
	case *dwarf.FloatType:
		x, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSuffix(text, "f"), "F"), 64)
		if err != nil {
			n, ierr := parseInt(text)
			if ierr != nil {
				return nil, fmt.Errorf("%q is not a number", text)
			}
			x = float64(n)
		}
		switch size {
		case 4:
			return f.wordBytes(uint64(math.Float32bits(float32(x))), 4), nil
		case 8:
			return f.wordBytes(math.Float64bits(x), 8), nil
		}
		return nil, fmt.Errorf("cannot write a %d-byte float", size)
	case *dwarf.EnumType:
		for _, e := range tt.Val {
			if e.Name == text {
				return f.wordBytes(uint64(e.Val), size), nil
			}
		}
	case *dwarf.BoolType:
		switch text {
		case "true":
			return f.wordBytes(1, size), nil
		case "false":
			return f.wordBytes(0, size), nil
		}
	case *dwarf.CharType, *dwarf.UcharType:
		if c, ok := CharLiteral(text); ok {
			return f.wordBytes(uint64(c), size), nil
		}
	}
	if isInt, _ := IntKind(t); !isInt {
		return nil, fmt.Errorf("cannot write a value of type %s", TypeName(t))
	}
	n, err := parseInt(text)
	if err != nil {
		return nil, fmt.Errorf("%q is not a value of type %s", text, TypeName(t))
	}
	if _, isBool := resolve(t).(*dwarf.BoolType); isBool && n != 0 {
		n = 1
	}
	return f.wordBytes(n, size), nil
}

// parseInt reads a C integer (the bits of a negative one), a 'c' char or true/false.
func parseInt(s string) (uint64, error) {
	s = strings.TrimRight(s, "uUlL")
	if c, ok := CharLiteral(s); ok {
		return uint64(c), nil
	}
	switch s {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return uint64(n), nil
	}
	if len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '7' { // C octal: 017
		if n, err := strconv.ParseUint(s[1:], 8, 64); err == nil {
			return n, nil
		}
	}
	return strconv.ParseUint(s, 0, 64)
}

// CharLiteral reads a C character literal: 'a', '\n', '\0', '\x41', '\101'.
func CharLiteral(s string) (byte, bool) {
	if len(s) < 3 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return 0, false
	}
	body := s[1 : len(s)-1]
	if len(body) == 1 && body != "\\" {
		return body[0], true
	}
	if body == `\0` {
		return 0, true
	}
	v, _, tail, err := strconv.UnquoteChar(body, '\'')
	if err != nil || tail != "" || v > 0xff {
		return 0, false
	}
	return byte(v), true
}

// encodeWide is the decimal (or 0x) integer text in size bytes, two's complement, in the
// target's byte order.
func (f *File) encodeWide(text string, size int) ([]byte, error) {
	n, ok := new(big.Int).SetString(strings.TrimSpace(text), 0)
	if !ok {
		return nil, fmt.Errorf("Invalid number %q.", text)
	}
	mod := new(big.Int).Lsh(big.NewInt(1), uint(8*size))
	n.Mod(n, mod)
	b := n.FillBytes(make([]byte, size)) // big-endian
	if f.Arch.ByteOrder == binary.LittleEndian {
		slices.Reverse(b)
	}
	return b, nil
}

package elfsym

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"strings"
	"testing"
)

// memRegs is a little machine for Store: memory from 0x1000 and DWARF registers.
type memRegs struct {
	mem  []byte
	regs map[int]uint64
}

func (m *memRegs) ReadMemory(addr uint64, n int) ([]byte, error) {
	return bytes.Clone(m.mem[addr-0x1000 : addr-0x1000+uint64(n)]), nil
}

func (m *memRegs) WriteMemory(addr uint64, data []byte) error {
	copy(m.mem[addr-0x1000:], data)
	return nil
}

func (m *memRegs) WriteRegister(r int, v uint64) error {
	m.regs[r] = v
	return nil
}

func basic(name string, size int64) dwarf.BasicType {
	return dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: size, Name: name}}
}

func TestStoreEverywhereDWARFPutsIt(t *testing.T) {
	f := fuzzFile(elf.EM_X86_64, nil)
	m := &memRegs{mem: make([]byte, 32), regs: map[int]uint64{0: 0xdeadbeef_00000005, 1: 0x1111}}
	fr := &Frame{regs: &regSet{known: m.regs}} // (the map itself: what the stores write)
	i32 := &dwarf.IntType{BasicType: basic("int", 4)}
	i64 := &dwarf.IntType{BasicType: basic("long long", 8)}
	uns := &dwarf.UintType{BasicType: basic("unsigned int", 4)}
	flags := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: 4}, StructName: "flags", Kind: "struct", Field: []*dwarf.StructField{
		{Name: "a", Type: uns, BitSize: 3, DataBitOffset: 0},
		{Name: "b", Type: i32, BitSize: 5, DataBitOffset: 3},
	}}
	store := func(p Place, text string) error { return f.Store(p, text, fr, m, m) }

	// A register keeps the bits the variable does not cover.
	if err := store(Place{Name: "r", Loc: Loc{Kind: LocRegister, Reg: 0}, Type: i32}, "-1"); err != nil || m.regs[0] != 0xdeadbeef_ffffffff {
		t.Fatalf("register: %#x %v", m.regs[0], err)
	}
	// Pieces: the low half in a register, the high half in memory.
	pieces := Loc{Kind: LocPieces, Pieces: []Piece{{Loc: Loc{Kind: LocRegister, Reg: 1}, Size: 4}, {Loc: Loc{Kind: LocMemory, Addr: 0x1008}, Size: 4}}}
	if err := store(Place{Name: "ll", Loc: pieces, Type: i64}, "0x1122334455667788"); err != nil {
		t.Fatal(err)
	}
	if m.regs[1] != 0x55667788 || !bytes.Equal(m.mem[8:12], []byte{0x44, 0x33, 0x22, 0x11}) {
		t.Fatalf("pieces: reg %#x mem % x", m.regs[1], m.mem[8:12])
	}
	fr.regs = &regSet{known: m.regs}
	if v, err := f.Read(Place{Name: "ll", Loc: pieces, Type: i64}, fr, m); err != nil || v.Text != "1234605616436508552" {
		t.Fatalf("pieces read back %q %v", v.Text, err)
	}
	// A bit field changes its bits only.
	m.mem[0] = 0xff
	s := Place{Name: "s", Loc: Loc{Kind: LocMemory, Addr: 0x1000}, Type: flags}
	b, err := f.Member(s, "b", fr, m)
	if err != nil {
		t.Fatal(err)
	}
	if err := store(b, "-9"); err != nil || m.mem[0] != 0xbf { // a=7, b=0b10111
		t.Fatalf("bit field: %#x %v", m.mem[0], err)
	}
	if v, _ := f.Read(b, fr, m); v.Text != "-9" {
		t.Fatalf("bit field reads %q", v.Text)
	}
	// What cannot be written says why.
	for _, c := range []struct {
		p    Place
		want string
	}{
		{Place{Name: "v", Loc: Loc{Kind: LocValue, Addr: 3}, Type: i32}, "computed"},
		{Place{Name: "o", Loc: Loc{Kind: LocPieces, Pieces: []Piece{{Loc: Loc{Kind: LocOptimized}, Size: 4}}}, Type: i32}, "optimized out"},
		{Place{Name: "c", Loc: Loc{Kind: LocRegister, Reg: 0}, Type: i32, frame: 1}, "caller frame"},
		{Place{Name: "bp", Loc: Loc{Kind: LocPieces, Pieces: []Piece{{Loc: Loc{Kind: LocRegister}, BitSize: 3}}}, Type: i32}, "bit pieces"},
	} {
		err := c.p.check(c.p.Loc)
		if err == nil {
			err = store(c.p, "1")
		}
		if !errors.Is(err, ErrNotStorable) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.p.Name, err, c.want)
		}
	}
	if err := store(s, "1"); err == nil || !strings.Contains(err.Error(), "whole struct") {
		t.Errorf("a whole struct: %v", err)
	}
}

func TestEncodeCLiterals(t *testing.T) {
	f := fuzzFile(elf.EM_ARM, nil)
	color := &dwarf.EnumType{CommonType: dwarf.CommonType{ByteSize: 4}, EnumName: "color", Val: []*dwarf.EnumValue{{Name: "RED"}, {Name: "BLUE", Val: 6}}}
	for _, c := range []struct {
		t    dwarf.Type
		text string
		want []byte
	}{
		{&dwarf.FloatType{BasicType: basic("float", 4)}, "2.75", []byte{0, 0, 0x30, 0x40}},
		{&dwarf.FloatType{BasicType: basic("double", 8)}, "-2", []byte{0, 0, 0, 0, 0, 0, 0, 0xc0}},
		{&dwarf.CharType{BasicType: basic("char", 1)}, `'\n'`, []byte{10}},
		{&dwarf.UcharType{BasicType: basic("unsigned char", 1)}, "'z'", []byte{'z'}},
		{color, "BLUE", []byte{6, 0, 0, 0}},
		{color, "1", []byte{1, 0, 0, 0}},
		{&dwarf.BoolType{BasicType: basic("_Bool", 1)}, "true", []byte{1}},
		{&dwarf.IntType{BasicType: basic("short", 2)}, "-2", []byte{0xfe, 0xff}},
		{&dwarf.UintType{BasicType: basic("unsigned", 4)}, "017", []byte{15, 0, 0, 0}},
		{&dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 4}}, "0x20000010", []byte{0x10, 0, 0, 0x20}},
	} {
		got, err := f.Encode(c.t, c.text)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("Encode(%s, %s) = % x, %v; want % x", TypeName(c.t), c.text, got, err, c.want)
		}
	}
	if _, err := f.Encode(color, "GREEN"); err == nil {
		t.Error("an unknown enumerator was accepted")
	}
}

// FuzzEncode: C literals of any text for every scalar kind and size encode to exactly the
// type's size, or answer an error; nothing panics.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"42", "-1", "0x10", "017", "'a'", `'\n'`, `'\x41'`, "2.5", "1e9", "true", "BLUE", "18446744073709551615", "'", "0b101"} {
		f.Add(s, uint8(0), uint8(4))
	}
	f.Fuzz(func(t *testing.T, text string, kind, size uint8) {
		file := fuzzFile(elf.EM_X86_64, nil)
		sz := int64(size%9) + 1
		b := basic("t", sz)
		var typ dwarf.Type
		switch kind % 8 {
		case 0:
			typ = &dwarf.IntType{BasicType: b}
		case 1:
			typ = &dwarf.UintType{BasicType: b}
		case 2:
			typ = &dwarf.FloatType{BasicType: b}
		case 3:
			typ = &dwarf.CharType{BasicType: b}
		case 4:
			typ = &dwarf.BoolType{BasicType: b}
		case 5:
			typ = &dwarf.EnumType{CommonType: dwarf.CommonType{ByteSize: sz}, Val: []*dwarf.EnumValue{{Name: "BLUE", Val: 6}}}
		case 6:
			typ = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: sz}}
		default:
			typ = &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: sz}, Kind: "struct"}
		}
		out, err := file.Encode(typ, text)
		if err == nil && int64(len(out)) != sz {
			t.Fatalf("Encode(%T of %d bytes, %q) = %d bytes", typ, sz, text, len(out))
		}
	})
}

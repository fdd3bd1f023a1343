package gdbremote

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// regTypesDesc declares x86's vec128 and mxcsr as gdbserver does, a struct, an enum, and
// a type that contains itself.
const regTypesDesc = `<target><feature name="t">
<vector id="v4f" type="ieee_single" count="4"/><vector id="v2i64" type="int64" count="2"/>
<union id="vec128"><field name="v4_float" type="v4f"/><field name="v2_int64" type="v2i64"/><field name="uint128" type="uint128"/></union>
<flags id="mxcsr" size="4"><field name="IE" start="0" end="0" type="bool"/><field name="" start="1" end="1"/><field name="RC" start="13" end="14"/></flags>
<struct id="pair"><field name="lo" type="int32"/><field name="hi" type="uint32"/></struct>
<enum id="mode" size="4"><evalue name="off" value="0"/><evalue name="on" value="1"/></enum>
<union id="loop"><field name="self" type="loop"/></union>
<reg name="xmm0" bitsize="128" type="vec128"/><reg name="mxcsr" bitsize="32" type="mxcsr"/>
<reg name="p" bitsize="64" type="pair"/><reg name="m" bitsize="32" type="mode"/><reg name="st0" bitsize="80" type="i387_ext"/>
<reg name="l" bitsize="32" type="loop"/></feature></target>`

func TestDescribedRegisterTypes(t *testing.T) {
	d, err := ParseTargetDesc(func(string) ([]byte, error) { return []byte(regTypesDesc), nil })
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	xmm := make([]byte, 16)
	le.PutUint32(xmm[4:], math.Float32bits(1.5))
	le.PutUint64(xmm[8:], math.MaxUint64)
	st := []byte{0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0x3f} // 1.5
	pair := []byte{0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0}
	for _, c := range []struct {
		typ  string
		b    []byte
		hex  bool
		want string
	}{
		{"vec128", xmm, false, "{v4_float = {0, 1.5, -nan(0x7fffff), -nan(0x7fffff)}, v2_int64 = {4593671619917905920, -1}, uint128 = 340282366920938463449521534977976565760}"},
		{"vec128", xmm, true, "{v4_float = {0x0, 0x3fc00000, 0xffffffff, 0xffffffff}, v2_int64 = {0x3fc0000000000000, 0xffffffffffffffff}, uint128 = 0xffffffffffffffff3fc0000000000000}"},
		{"mxcsr", []byte{0x01, 0x20, 0, 0}, false, "[ IE RC=1 ]"},
		{"pair", pair, false, "{lo = -1, hi = 2}"},
		{"mode", []byte{1, 0, 0, 0}, false, "on"},
		{"mode", []byte{7, 0, 0, 0}, false, "7"},
		{"i387_ext", st, false, "1.5"},
		{"loop", []byte{1, 2, 3, 4}, false, "{}"}, // no size: no fields shown, no endless descent
	} {
		got, ok := d.DescribedText(c.typ, c.b, le, c.hex)
		if !ok || got != c.want {
			t.Errorf("%s (hex %v) = %q, %v; want %q", c.typ, c.hex, got, ok, c.want)
		}
	}
	if _, ok := d.DescribedText("int64", make([]byte, 8), le, false); ok {
		t.Error("a plain integer register taken as a described one")
	}
	if strings.Count(regTypesDesc, "<reg") != len(d.Regs) {
		t.Errorf("%d registers", len(d.Regs))
	}
}

// A target description is a stub's input: any types in it parse or are refused without
// a panic, and formatting any register of it ends.
func FuzzTargetDescTypes(f *testing.F) {
	f.Add(regTypesDesc)
	f.Add(`<target><union id="a"><field name="b" type="a"/></union><reg name="r" bitsize="8" type="a"/></target>`)
	f.Add(`<target><vector id="v" type="v" count="1000000"/><reg name="r" bitsize="64" type="v"/></target>`)
	f.Fuzz(func(t *testing.T, doc string) {
		d, err := ParseTargetDesc(func(string) ([]byte, error) { return []byte(doc), nil })
		if err != nil {
			return
		}
		for _, r := range d.Regs {
			b := make([]byte, min(r.Bitsize/8, 64))
			d.DescribedText(r.Type, b, binary.LittleEndian, false)
			d.DescribedText(r.Type, b, binary.LittleEndian, true)
		}
	})
}

// An x86 description with AVX and AVX-512 halves gets gdb's ymm and zmm registers, made of
// xmm, ymmh and zmmh, typed as gdb types them.
func TestX86PseudoRegisters(t *testing.T) {
	doc := `<target><architecture>i386:x86-64</architecture>
<reg name="xmm0" bitsize="128" type="vec128"/><reg name="ymm0h" bitsize="128" type="uint128"/>
<reg name="zmm0h" bitsize="256" type="v2ui128"/><reg name="xmm1" bitsize="128" type="vec128"/></target>`
	d, err := ParseTargetDesc(func(string) ([]byte, error) { return []byte(doc), nil })
	if err != nil {
		t.Fatal(err)
	}
	ymm, ok := d.Pseudo("ymm0")
	zmm, okZ := d.Pseudo("zmm0")
	if !ok || !okZ || ymm.Type != "builtin_type_vec256i" || len(zmm.Parts) != 3 || zmm.Type != "builtin_type_vec512i" {
		t.Fatalf("ymm0 %+v, zmm0 %+v", ymm, zmm)
	}
	if _, ok := d.Pseudo("ymm1"); ok {
		t.Error("ymm1 made without ymm1h")
	}
	b := make([]byte, 32)
	b[16] = 1 // the first byte of the high half
	text, _ := d.DescribedText(ymm.Type, b, binary.LittleEndian, true)
	if !strings.Contains(text, "v32_int8 = {0x0 <repeats 16 times>, 0x1, 0x0 <repeats 15 times>}") || !strings.HasPrefix(text, "{v16_bfloat16 = {") {
		t.Errorf("ymm0 in hex: %s", text)
	}
	if dt := d.dwarfType(ymm.Type, 0); dt == nil || dt.Size() != 32 {
		t.Errorf("ymm0's type %v", dt)
	}
}

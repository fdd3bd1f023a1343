package gdbremote

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// Registers of the types a target description declares, as gdb prints them: a vector
// ({0, 1.5, -nan(0x7f0000), 2}), a union of vectors (x86's vec128: {v8_bfloat16 = {...},
// v4_float = {...}, ..., uint128 = ...}), flags ([ IM DM ZM ]), x87's 80-bit floats.

// builtinSizes are the bytes of the description's predefined types.
var builtinSizes = map[string]int{"float": 4, "double": 8, "half": 2, "bool": 1, "int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4,
	"uint32": 4, "int64": 8, "uint64": 8, "int128": 16, "uint128": 16, "int": 4, "ieee_half": 2, "bfloat16": 2,
	"ieee_single": 4, "ieee_double": 8, "i387_ext": 10, "code_ptr": 8, "data_ptr": 8}

// floatFormats are the description's floating-point types.
var floatFormats = map[string]elfsym.FloatFormat{"ieee_half": elfsym.Half, "half": elfsym.Half, "float": elfsym.Single,
	"double": elfsym.Double, "bfloat16": elfsym.BFloat16,
	"ieee_single": elfsym.Single, "ieee_double": elfsym.Double, "i387_ext": elfsym.Extended}

// maxTypeDepth bounds how deep declared types may nest, and maxTypeSize how big a value
// of one may be (a description is input; the widest register known is 512 bits).
const (
	maxTypeDepth = 8
	maxTypeSize  = 1 << 10
)

// typeSize is the bytes of a value of type typ; 0 when it is not known.
func (d *TargetDesc) typeSize(typ string, depth int) int {
	if n, ok := builtinSizes[typ]; ok {
		return n
	}
	rt := d.Types[typ]
	if rt == nil || depth > maxTypeDepth {
		return 0
	}
	switch rt.Kind {
	case "vector":
		n := rt.Count * d.typeSize(rt.Elem, depth+1)
		if n > maxTypeSize {
			return 0
		}
		return n
	case "union":
		n := 0
		for _, f := range rt.Fields {
			n = max(n, d.typeSize(f.Type, depth+1))
		}
		return n
	}
	return rt.Size
}

// DescribedText is b, a value of the description's type typ in byte order, as gdb prints
// it: naturally (print), or with each number in hex (info registers' form of a vector);
// false when typ is none the description declares or a float type.
func (d *TargetDesc) DescribedText(typ string, b []byte, order binary.ByteOrder, hex bool) (string, bool) {
	if _, float := floatFormats[typ]; !float && d.Types[typ] == nil {
		return "", false
	}
	return d.valueText(typ, b, order, hex, 0), true
}

func (d *TargetDesc) valueText(typ string, b []byte, order binary.ByteOrder, hex bool, depth int) string {
	if f, ok := floatFormats[typ]; ok {
		if hex {
			return numberHex(b, order)
		}
		lo, hi := wideBits(b, order)
		return elfsym.FloatText(f, hi, lo)
	}
	rt := d.Types[typ]
	if rt == nil || depth > maxTypeDepth {
		return intText(typ, b, order, hex)
	}
	switch rt.Kind {
	case "vector":
		size := d.typeSize(rt.Elem, depth+1)
		if size == 0 {
			return intText(typ, b, order, hex)
		}
		parts := make([]string, 0, rt.Count)
		for i := 0; i < rt.Count && (i+1)*size <= len(b); {
			run := 1 // a run of more than gdb's 10 equal elements: "0 <repeats 12 times>"
			for i+run < rt.Count && (i+run+1)*size <= len(b) && string(b[i*size:(i+1)*size]) == string(b[(i+run)*size:(i+run+1)*size]) {
				run++
			}
			text := d.valueText(rt.Elem, b[i*size:(i+1)*size], order, hex, depth+1)
			if run > elfsym.DefaultPrintLimits.Repeats {
				parts, i = append(parts, fmt.Sprintf("%s <repeats %d times>", text, run)), i+run
				continue
			}
			parts, i = append(parts, text), i+1
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case "union", "struct":
		var parts []string
		off := 0
		for _, f := range rt.Fields {
			size := d.typeSize(f.Type, depth+1)
			at := off
			if rt.Kind == "struct" {
				off += size
			}
			if size == 0 || at+size > len(b) {
				continue
			}
			parts = append(parts, f.Name+" = "+d.valueText(f.Type, b[at:at+size], order, hex, depth+1))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case "flags":
		return flagsText(rt, Uint(b, order))
	case "enum":
		v := Uint(b, order)
		for _, f := range rt.Fields {
			if uint64(f.Value) == v {
				return f.Name
			}
		}
		return strconv.FormatUint(v, 10)
	}
	return intText(typ, b, order, hex)
}

// flagsText is a flags value as gdb prints it: "[ IM DM ZM ]", the named bits set, and a
// field of several bits as NAME=VALUE.
func flagsText(rt *RegType, v uint64) string {
	set := []string{"["}
	for _, f := range rt.Fields {
		if f.Name == "" || f.Start < 0 || f.Start > 63 || f.End < f.Start {
			continue
		}
		width := min(f.End-f.Start+1, 64)
		x := v >> uint(f.Start) & (1<<uint(width) - 1)
		switch {
		case width == 1 && f.Type != "uint32" && f.Type != "int":
			if x != 0 {
				set = append(set, f.Name)
			}
		default:
			set = append(set, fmt.Sprintf("%s=%d", f.Name, x))
		}
	}
	return strings.Join(append(set, "]"), " ")
}

// intText is an integer of the description's type typ: signed for intN, unsigned for
// uintN, bool, or in hex.
func intText(typ string, b []byte, order binary.ByteOrder, hex bool) string {
	if hex {
		return numberHex(b, order)
	}
	if len(b) > 8 {
		lo, hi := wideBits(b, order)
		n := new(big.Int).Lsh(new(big.Int).SetUint64(hi), 64)
		n.Or(n, new(big.Int).SetUint64(lo))
		if strings.HasPrefix(typ, "int") && hi>>63 == 1 {
			n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 128))
		}
		return n.String()
	}
	u := Uint(b, order)
	if strings.HasPrefix(typ, "int") && len(b) > 0 {
		shift := 64 - 8*uint(len(b))
		return strconv.FormatInt(int64(u<<shift)>>shift, 10)
	}
	return strconv.FormatUint(u, 10)
}

// numberHex is the number b holds in hex, as gdb's /x: "0x0", "0xff00ff00".
func numberHex(b []byte, order binary.ByteOrder) string {
	lo, hi := wideBits(b, order)
	if hi != 0 {
		return fmt.Sprintf("%#x%016x", hi, lo)
	}
	return fmt.Sprintf("%#x", lo)
}

// wideBits is a number of up to 16 bytes: its low and high 64 bits.
func wideBits(b []byte, order binary.ByteOrder) (lo, hi uint64) {
	if len(b) <= 8 {
		return Uint(b, order), 0
	}
	if order == binary.BigEndian {
		return Uint(b[len(b)-8:], order), Uint(b[:len(b)-8], order)
	}
	return Uint(b[:8], order), Uint(b[8:min(len(b), 16)], order)
}

// dwarfType is the description's type typ as a DWARF type, so that the members and
// elements of a register are read as a program's (print $xmm0.v4_float[1]); nil for a type
// that has none (flags, an enum, an unknown one).
func (d *TargetDesc) dwarfType(typ string, depth int) dwarf.Type {
	if depth > maxTypeDepth {
		return nil
	}
	if size, ok := builtinSizes[typ]; ok {
		c := dwarf.CommonType{ByteSize: int64(size), Name: typ + "_t"} // gdb's names: int32_t, builtin_type_ieee_single
		switch {
		case floatFormats[typ] != (elfsym.FloatFormat{}):
			c.Name = "builtin_type_" + typ
			if typ == "float" || typ == "double" || typ == "half" { // a C type keeps its name
				c.Name = typ
			}
			return &dwarf.FloatType{BasicType: dwarf.BasicType{CommonType: c}}
		case strings.HasPrefix(typ, "uint") || typ == "bool":
			return &dwarf.UintType{BasicType: dwarf.BasicType{CommonType: c}}
		case strings.HasPrefix(typ, "int"):
			return &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: c}}
		}
		return nil
	}
	rt := d.Types[typ]
	if rt == nil {
		return nil
	}
	switch rt.Kind {
	case "vector":
		elem := d.dwarfType(rt.Elem, depth+1)
		if elem == nil {
			return nil
		}
		size := int64(d.typeSize(typ, depth))
		arr := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: size}, Type: elem, Count: int64(rt.Count)}
		return &dwarf.TypedefType{CommonType: dwarf.CommonType{ByteSize: size, Name: typ}, Type: arr} // named as gdb names it: v4f
	case "union", "struct":
		s := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: int64(d.typeSize(typ, depth))}, StructName: typ, Kind: rt.Kind}
		off := int64(0)
		for _, f := range rt.Fields {
			ft := d.dwarfType(f.Type, depth+1)
			if ft == nil || f.Start >= 0 {
				continue
			}
			s.Field = append(s.Field, &dwarf.StructField{Name: f.Name, Type: ft, ByteOffset: off})
			if rt.Kind == "struct" {
				off += ft.Size()
			}
		}
		return s
	}
	return nil
}

// Pseudo is a register gdb makes of others: x86's ymmN of xmmN and ymmNh, zmmN of those
// and zmmNh (AVX, AVX-512), read by putting their bytes together.
type Pseudo struct {
	Name, Type string
	Parts      []int // the registers' numbers, the low bytes first
}

// x86Pseudos adds to an x86 description gdb's ymm and zmm registers and their types.
func (d *TargetDesc) x86Pseudos() {
	if d.Arch != "i386:x86-64" && d.Arch != "i386" {
		return
	}
	vec := func(elem string, count int) string { // named as gdb's whatis names it
		id := fmt.Sprintf("%s __attribute__ ((vector_size(%d)))", elem, count)
		if d.Types[id] == nil {
			t := map[string]string{"float": "float", "double": "double", "half": "half", "bfloat16": "bfloat16"}[elem]
			if t == "" {
				t = strings.TrimSuffix(elem, "_t")
			}
			d.Types[id] = &RegType{Kind: "vector", Elem: t, Count: count}
		}
		return id
	}
	union := func(name string, bytes int) {
		if d.Types[name] != nil {
			return
		}
		u := &RegType{Kind: "union"}
		for _, f := range []struct {
			field, elem string
			size        int
		}{{"bfloat16", "bfloat16", 2}, {"half", "half", 2}, {"float", "float", 4}, {"double", "double", 8},
			{"int8", "int8_t", 1}, {"int16", "int16_t", 2}, {"int32", "int32_t", 4}, {"int64", "int64_t", 8}, {"int128", "int128_t", 16}} {
			n := bytes / f.size
			u.Fields = append(u.Fields, RegField{Name: fmt.Sprintf("v%d_%s", n, f.field), Type: vec(f.elem, n), Start: -1, End: -1})
		}
		d.Types[name] = u
	}
	for i := 0; i < 32; i++ {
		xmm, okX := d.Reg(fmt.Sprintf("xmm%d", i))
		ymmh, okY := d.Reg(fmt.Sprintf("ymm%dh", i))
		if !okX || !okY {
			continue
		}
		union("builtin_type_vec256i", 32)
		d.pseudos = append(d.pseudos, Pseudo{Name: fmt.Sprintf("ymm%d", i), Type: "builtin_type_vec256i", Parts: []int{xmm.Num, ymmh.Num}})
		if zmmh, ok := d.Reg(fmt.Sprintf("zmm%dh", i)); ok {
			union("builtin_type_vec512i", 64)
			d.pseudos = append(d.pseudos, Pseudo{Name: fmt.Sprintf("zmm%d", i), Type: "builtin_type_vec512i", Parts: []int{xmm.Num, ymmh.Num, zmmh.Num}})
		}
	}
}

// Pseudo finds a pseudo register by name.
func (d *TargetDesc) Pseudo(name string) (Pseudo, bool) {
	for _, p := range d.pseudos {
		if p.Name == name {
			return p, true
		}
	}
	return Pseudo{}, false
}

package elfsym

// Reading a variable's value and formatting it like gdb.

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/internal/cxxname"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/cstring"
)

// Value is a variable's value, formatted like gdb prints it.
type Value struct {
	Name     string
	Type     string
	Kind     string // int, uint, float, bool, char, enum, pointer, struct, array, raw
	Addr     uint64 // where it lives, when InMemory
	InMemory bool
	Bytes    []byte
	Text     string
	Children []Value // struct fields, array elements, a pointer's target
	// Referent is, for a C++ reference (Kind "reference"), the object it refers to, which
	// every operation but printing the reference itself acts on (see Referred).
	Referent *Value

	typ dwarf.Type // what it was read as (pointers.go), nil for a value not from the program
	// staticFunc says a function value has no this: not a method called on an object.
	staticFunc bool
	// printed says it is shown as a library's printer shows it (stdprint.go): a reference
	// to it shows it alone.
	printed bool
	// elements is how many a container holds, as its printer read it (counted says it did):
	// what size() answers without running the program (Elements).
	elements uint64
	counted  bool
}

// Elements is how many elements a standard container holds (a vector's length, a map's
// size), as its printer read it; ok is false for any other value.
func (v Value) Elements() (n uint64, ok bool) {
	v = v.Referred()
	if st, isStruct := resolve(v.typ).(*dwarf.StructType); isStruct && strings.HasPrefix(st.StructName, "std::array<") {
		for _, fld := range st.Field {
			if at, ok := resolve(fld.Type).(*dwarf.ArrayType); ok && fld.Name == "_M_elems" {
				return uint64(max(at.Count, 0)), true
			}
		}
	}
	return v.elements, v.counted
}

// Referred is the object a reference refers to; any other value is itself.
func (v Value) Referred() Value {
	if v.Referent != nil {
		return *v.Referent
	}
	return v
}

// IsCXX reports whether the value is of a class or enum of a C++ program.
func (v Value) IsCXX() bool { return v.typ != nil && isCXX(resolve(v.typ)) }

const (
	maxArrayChildren = 100
	maxDepth         = 4
)

// ReadVar reads and formats a variable in frame fr (nil for globals). A variable with no
// location at the frame's pc reads as gdb's "<optimized out>" with an error wrapping
// ErrOptimizedOut.
func (f *File) ReadVar(v *Var, fr *Frame, mem Memory) (Value, error) {
	if o := f.fileOfVar(v); o != f {
		return o.ReadVar(v, fr, mem)
	}
	val := Value{Name: v.Name, Type: v.TypeName(), Kind: "raw"}
	loc, err := f.Locate(v, fr, mem)
	if errors.Is(err, ErrOptimizedOut) || err == nil && loc.Kind == LocOptimized {
		val.Text = "<optimized out>"
		return val, fmt.Errorf("elfsym: %s is optimized out here: %w", v.Name, ErrOptimizedOut)
	}
	if err != nil {
		val.Text = "<" + err.Error() + ">"
		return val, err
	}
	if loc.Kind == LocImplicitPointer {
		val.Kind, val.Text = "pointer", "<synthetic pointer>"
		return val, nil
	}
	typ, err := f.frameType(v, fr, mem) // (a variable-length array's bounds, read in the frame)
	if err != nil {                     // as gdb lists it among the locals
		val.Text = fmt.Sprintf("<error reading variable %s (%v)>", v.Name, err)
		return val, err
	}
	size := -1
	if typ != nil {
		size = int(typ.Size())
	}
	if size < 0 {
		size = f.Arch.PtrSize
	}
	b, err := f.locBytes(v.Name, loc, size, fr, mem)
	if err != nil {
		val.Text = "<" + err.Error() + ">"
		var merr *memoryError
		switch {
		case errors.Is(err, ErrOptimizedOut):
			val.Text = "<optimized out>"
		case errors.As(err, &merr): // as gdb lists it among the locals
			val.Text = fmt.Sprintf("<error reading variable %s (%v)>", v.Name, err)
		}
		return val, err
	}
	inMem := loc.Kind == LocMemory
	out := f.FormatValue(typ, b, loc.Addr, inMem, mem, 0)
	out.Name, out.InMemory = v.Name, inMem
	if inMem {
		out.Addr = loc.Addr
	} else {
		out.Addr = 0
	}
	return out, nil
}

// locBytes reads the size bytes a location holds.
func (f *File) locBytes(name string, loc Loc, size int, fr *Frame, mem Memory) ([]byte, error) {
	switch loc.Kind {
	case LocMemory:
		if mem == nil {
			return nil, fmt.Errorf("elfsym: no memory here")
		}
		b, err := mem.ReadMemory(loc.Addr, size)
		if err != nil || len(b) < size { // gdb's words
			return nil, &memoryError{loc.Addr}
		}
		return b, nil
	case LocRegister:
		if fr == nil {
			return nil, fmt.Errorf("elfsym: %s is in a register but there is no frame", name)
		}
		r, ok := fr.Register(loc.Reg)
		if !ok {
			return nil, fmt.Errorf("elfsym: register %s (%d) unknown in this frame", f.Arch.RegName(loc.Reg), loc.Reg)
		}
		return f.wordBytes(r, size), nil
	case LocValue:
		if loc.Bytes != nil {
			return loc.Bytes, nil
		}
		return f.wordBytes(loc.Addr, size), nil
	case LocPieces:
		var out []byte
		for _, p := range loc.Pieces {
			n := p.Size
			if p.BitSize > 0 {
				n = (p.BitSize + 7) / 8 // byte-aligned bit pieces only
			}
			if p.Loc.Kind == LocOptimized {
				return nil, fmt.Errorf("elfsym: part of %s is optimized out: %w", name, ErrOptimizedOut)
			}
			b, err := f.locBytes(name, p.Loc, n, fr, mem)
			if err != nil {
				return nil, err
			}
			out = append(out, b[:min(n, len(b))]...)
		}
		for len(out) < size {
			out = append(out, 0)
		}
		return out[:size], nil
	}
	return nil, fmt.Errorf("elfsym: %s is optimized out here: %w", name, ErrOptimizedOut)
}

// wordBytes is the low size bytes of a register-sized value, in target order (a value
// wider than a word, as a double in a register pair, is taken as far as it goes).
func (f *File) wordBytes(v uint64, size int) []byte {
	b := make([]byte, 8)
	f.Arch.ByteOrder.PutUint64(b, v)
	if f.Arch.ByteOrder == binary.BigEndian {
		return b[8-min(size, 8):]
	}
	return b[:min(size, 8)]
}

// FormatValue formats the bytes b of type t (at addr when inMem) like gdb. Pointers to
// char are followed to show the string; other pointers get their target as a child.
func (f *File) FormatValue(t dwarf.Type, b []byte, addr uint64, inMem bool, mem Memory, depth int) Value {
	v := Value{Bytes: b, Addr: addr, InMemory: inMem, typ: t}
	if t == nil {
		v.Kind, v.Type, v.Text = "raw", "?", fmt.Sprintf("%x", b)
		return v
	}
	v.Type = TypeName(t)
	u := uintFrom(b, f.Arch)
	n := len(b)
	sext := func() int64 { return signExtend(u, n) }
	switch tt := resolve(t).(type) {
	case *dwarf.BoolType:
		v.Kind = "bool"
		v.Text = strconv.FormatBool(u != 0)
	case *dwarf.CharType:
		v.Kind = "char"
		v.Text = fmt.Sprintf("%d %s", sext(), cstring.CharLit(byte(u)))
	case *dwarf.UcharType:
		v.Kind = "char"
		v.Text = fmt.Sprintf("%d %s", u, cstring.CharLit(byte(u)))
	case *dwarf.IntType:
		v.Kind = "int"
		v.Text = strconv.FormatInt(sext(), 10)
		if n == 16 {
			v.Text = f.wideInt(b, true)
		}
		if p, ok := wideChar(t); ok && n <= 4 { // 81 L'Q'
			v.Text += " " + cstring.UnitLit(p, uint32(u))
		}
	case *dwarf.UintType:
		v.Kind = "uint"
		v.Text = strconv.FormatUint(u, 10)
		if n == 16 {
			v.Text = f.wideInt(b, false)
		}
		if p, ok := wideChar(t); ok && n <= 4 { // 90 U'Z'
			v.Text += " " + cstring.UnitLit(p, uint32(u))
		}
	case *dwarf.FloatType:
		v.Kind = "float"
		var ok bool
		if v.Text, ok = f.floatText(b, strings.Contains(tt.Name, "bfloat16")); !ok {
			v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
		}
	case *dwarf.ComplexType: // as gdb: 1.5 + 2i, its parts each as a float of half its size
		re, okRe := f.floatText(b[:n/2], false)
		im, okIm := f.floatText(b[n/2:], false)
		v.Kind, v.Text = "complex", re+" + "+im+"i"
		if !okRe || !okIm {
			v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
		}
	case *dwarf.EnumType:
		v.Kind = "enum"
		x := sext()
		v.Text = strconv.FormatInt(x, 10)
		named := false
		for _, e := range tt.Val {
			if e.Val == x {
				v.Text, named = e.Name, true
			}
		}
		if !named && flagEnum(tt) { // (its bits as they are: no value of a flag enum is negative)
			v.Text = flagsText(tt, u)
		}
	case *MemberPtrType:
		v.Kind, v.Text = "memberptr", f.memberPtrText(tt, b)
	case *dwarf.PtrType:
		v.Kind = "pointer"
		v.Text = fmt.Sprintf("%#x", u)
		target := resolve(tt.Type)
		if name, ok := f.SymbolAt(u); ok && u != 0 { // as gdb: 0x555555558024 <vals+4>
			v.Text += " <" + cxxname.Symbol(name) + ">"
		}
		if u == 0 || mem == nil || depth >= maxDepth {
			break
		}
		if p, ok := wideChar(tt.Type); ok && target.Size() <= 4 { // 0x2004 L"ptr"
			max := unlimited(f.PrintLimits().Elements)
			if units, more, err := f.readWideString(mem, u, int(target.Size()), min(max, 1<<20)); err == nil {
				v.Text += " " + f.unitsText(units, p, more)
			} else {
				v.Text += fmt.Sprintf(" <error: Cannot access memory at address %#x>", u)
			}
			break
		}
		switch target.(type) {
		case *dwarf.CharType, *dwarf.UcharType:
			max := unlimited(f.PrintLimits().Elements)
			if s, err := f.readCString(mem, u, min(max, 1<<20)+1); err == nil { // one more: is there more?
				more := len(s) > max
				if more {
					s = s[:max]
				}
				v.Text += " " + f.charsText([]byte(s), more)
			} else { // as gdb says a string it cannot read
				v.Text += fmt.Sprintf(" <error: Cannot access memory at address %#x>", u)
			}
		case *dwarf.VoidType, *dwarf.FuncType, nil:
		default:
			sz := int(tt.Type.Size())
			if sz > 0 && sz <= 1<<16 {
				if tb, err := mem.ReadMemory(u, sz); err == nil && len(tb) == sz {
					c := f.FormatValue(tt.Type, tb, u, true, mem, depth+1)
					c.Name = "*"
					v.Children = []Value{c}
				}
			}
		}
	case *RefType: // as gdb: @0x7ffe3c: {x = 1, y = 2}, the object's own address and value
		v.Kind = "reference"
		v.Text = fmt.Sprintf("@%#x", u)
		if u == 0 || mem == nil || depth >= maxDepth {
			break
		}
		if sz := int(tt.Type.Size()); sz > 0 {
			if tb, err := mem.ReadMemory(u, sz); err == nil && len(tb) == sz {
				c := f.FormatValue(tt.Type, tb, u, true, mem, depth+1)
				c.Name = v.Name
				v.Referent, v.Children = &c, c.Children
				v.Text += ": " + c.Text
				if c.printed { // as gdb with libstdc++'s printers: "zed", not @0x...: "zed"
					v.Text = c.Text
				}
			}
		}
	case *dwarf.StructType:
		v.Kind = "struct"
		f.structValue(&v, tt, b, addr, inMem, mem, depth)
		if isCXX(tt) && !f.PrintLimits().Raw {
			v.printed = f.stdValue(&v, tt, b, addr, mem, depth) // std::string, std::vector: as libstdc++'s printers show them
		}
	case *dwarf.ArrayType:
		v.Kind = "array"
		es := int(tt.Type.Size())
		if es <= 0 {
			v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
			break
		}
		cnt := n / es
		if n == 0 && tt.Count <= 0 && inMem && addr != 0 { // a flexible array member (int data[]): its address, as gdb shows it
			ptr := &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: tt.Type}
			v.Text = f.FormatValue(ptr, f.wordBytes(addr, f.Arch.PtrSize), 0, false, mem, depth).Text
			break
		}
		elem := func(i int) Value {
			c := f.FormatValue(tt.Type, b[i*es:(i+1)*es], addr+uint64(i*es), inMem, mem, depth+1)
			c.Name = fmt.Sprintf("[%d]", i)
			return c
		}
		for i := 0; i < cnt && i < maxArrayChildren; i++ {
			v.Children = append(v.Children, elem(i))
		}
		if isChar(tt.Type) {
			v.Text = f.charArray(b)
			break
		}
		if p, ok := wideChar(tt.Type); ok && es <= 4 { // L"wide"
			v.Text = f.wideArray(p, f.unitsOf(b, es))
			break
		}
		v.Text = f.arrayText(cnt, func(i int) string {
			if i < len(v.Children) {
				return v.Children[i].Text
			}
			return elem(i).Text
		}, func(i, j int) bool { return string(b[i*es:(i+1)*es]) == string(b[j*es:(j+1)*es]) })
	case *dwarf.UnspecifiedType: // C++'s std::nullptr_t, decltype(nullptr): a pointer that is null
		v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
		if tt.Name == "decltype(nullptr)" && n == f.Arch.PtrSize {
			v.Kind, v.Text = "pointer", fmt.Sprintf("%#x", u)
		}
	default:
		v.Kind = "raw"
		v.Text = fmt.Sprintf("%x", b)
	}
	if v.Kind == "pointer" {
		v.Text = f.addressShown(v.Text, t)
	}
	return v
}

// addressShown is a pointer's text (0x5555555580d0 <grid+16> "..."), of type t, as print
// address and print symbol have it: without the address (<grid+16>, "alpha", and nothing
// for a null pointer), without the symbol of data (the function a pointer to one points to
// is named still), as gdb's.
func (f *File) addressShown(text string, t dwarf.Type) string {
	l := f.PrintLimits()
	if !l.HideAddresses && !l.HideSymbols {
		return text
	}
	hex, rest, _ := strings.Cut(text, " ")
	if pt, ok := resolve(t).(*dwarf.PtrType); ok && l.HideSymbols && strings.HasPrefix(rest, "<") {
		if _, fn := resolve(pt.Type).(*dwarf.FuncType); !fn {
			if _, after, ok := strings.Cut(rest, "> "); ok {
				rest = after
			} else if strings.HasSuffix(rest, ">") {
				rest = ""
			}
		}
	}
	if l.HideAddresses {
		return rest
	}
	return strings.TrimSuffix(hex+" "+rest, " ")
}

// flagEnum reports whether gdb takes enum t for one of flags: each of its values a single
// bit (or none), never negative.
func flagEnum(t *dwarf.EnumType) bool {
	for _, e := range t.Val {
		if e.Val < 0 || bits.OnesCount64(uint64(e.Val)) > 1 {
			return false
		}
	}
	return len(t.Val) > 0
}

// flagsText is value x of flag enum t as gdb writes it: the names of its bits, the first
// of each, and what is left in hex ((F_READ | F_WRITE), (F_EXEC | unknown: 0x10)).
func flagsText(t *dwarf.EnumType, x uint64) string {
	var parts []string
	for _, e := range t.Val {
		if b := uint64(e.Val); b != 0 && x&b != 0 {
			parts = append(parts, e.Name)
			x &^= b
		}
	}
	if x != 0 {
		parts = append(parts, fmt.Sprintf("unknown: %#x", x))
	}
	if len(parts) == 0 {
		return "0"
	}
	return "(" + strings.Join(parts, " | ") + ")"
}

func (f *File) bitfield(fld *dwarf.StructField, b []byte, c Value) Value {
	u := uintFrom(b, f.Arch)
	shift := bitShift(fld, len(b))
	if shift < 0 || shift >= 64 {
		return c
	}
	u = (u >> uint(shift)) & (1<<uint(fld.BitSize) - 1)
	if signedBits(fld.Type) && u&(1<<uint(fld.BitSize-1)) != 0 {
		u |= ^uint64(0) << uint(fld.BitSize) // sign-extended
	}
	// the member's value alone, in bytes of its type: arithmetic reads them (b.big + 1), an
	// enum's is named, a bool's true
	out := f.FormatValue(fld.Type, f.wordBytes(u, len(b)), c.Addr, c.InMemory, nil, 0)
	out.Name = c.Name
	return out
}

// fieldOffset is where member fld's bytes start in its struct: its byte offset, or for a
// bit field placed by its bit offset alone (DWARF 4's data_bit_offset) the first byte of a
// unit of its type's size that holds all its bits (int neg : 4 at bit 58 is read from
// byte 4, bits 26 to 29).
func fieldOffset(fld *dwarf.StructField) int64 {
	size := fld.Type.Size()
	if fld.BitSize == 0 || size <= 0 || !(fld.DataBitOffset > 0 || fld.BitOffset == 0) {
		return fld.ByteOffset
	}
	if shift := fld.DataBitOffset - 8*fld.ByteOffset; shift >= 0 && shift+fld.BitSize <= 8*size {
		return fld.ByteOffset
	}
	return min(max((fld.DataBitOffset+fld.BitSize-8*size+7)/8, 0), fld.DataBitOffset/8)
}

// bitShift is how far bit field fld's lowest bit is from the lowest of the unit of n bytes
// at fieldOffset that holds it.
func bitShift(fld *dwarf.StructField, n int) int64 {
	if fld.DataBitOffset > 0 || fld.BitOffset == 0 {
		return fld.DataBitOffset - 8*fieldOffset(fld)
	}
	return 8*int64(n) - fld.BitOffset - fld.BitSize
}

// signedBits reports whether a bit field of type t holds a signed number: an int, a char,
// an enum with a negative value.
func signedBits(t dwarf.Type) bool {
	switch tt := resolve(t).(type) {
	case *dwarf.IntType, *dwarf.CharType:
		return true
	case *dwarf.EnumType:
		for _, v := range tt.Val {
			if v.Val < 0 {
				return true
			}
		}
	}
	return false
}

// wideInt is a 128-bit integer in decimal (a target's uint128 register part, __int128).
func (f *File) wideInt(b []byte, signed bool) string {
	be := make([]byte, len(b)) // big.Int reads the most significant byte first
	for i := range b {
		if f.Arch.ByteOrder == binary.BigEndian {
			be[i] = b[i]
		} else {
			be[len(b)-1-i] = b[i]
		}
	}
	n := new(big.Int).SetBytes(be)
	if signed && len(be) > 0 && be[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n.String()
}

// charArray formats a char array as gdb does: all of it up to the elements limit (NULs
// included, bar one at the end), long runs of one character as repeats.
func (f *File) charArray(b []byte) string {
	if n := len(b); n > 0 && b[n-1] == 0 {
		b = b[:n-1]
	}
	if i := bytes.IndexByte(b, 0); i >= 0 && f.PrintLimits().NullStop {
		b = b[:i]
	}
	return f.charsText(b, false)
}

// ReadCString reads the NUL-terminated string at addr, at most max bytes of it.
func (f *File) ReadCString(mem Memory, addr uint64, max int) (string, error) {
	return f.readCString(mem, addr, max)
}

func (f *File) readCString(mem Memory, addr uint64, max int) (string, error) {
	var out []byte
	for len(out) < max {
		chunk, err := mem.ReadMemory(addr+uint64(len(out)), 32)
		if err != nil {
			if len(out) > 0 {
				return string(out), nil
			}
			return "", err
		}
		if len(chunk) == 0 {
			break
		}
		for _, c := range chunk {
			if c == 0 {
				return string(out), nil
			}
			out = append(out, c)
		}
	}
	return string(out), nil
}

// signExtend is u, an n-byte two's complement number, as a signed one.
func signExtend(u uint64, n int) int64 {
	if n == 0 || n >= 8 {
		return int64(u)
	}
	shift := uint(64 - 8*n)
	return int64(u<<shift) >> shift
}

// floatText is the float in bytes b as gdb prints it: %.9g and %.17g, the digits that
// always read back the same value (floattext.go); false for a size it does not know.
func (f *File) floatText(b []byte, bfloat bool) (string, bool) {
	u := uintFrom(b, f.Arch)
	switch n := len(b); {
	case n == 2 && bfloat: // a target's vector element (x86's vec128)
		return FloatText(BFloat16, 0, u), true
	case n == 2: // _Float16, a half
		return FloatText(Half, 0, u), true
	case n == 4:
		return FloatText(Single, 0, u), true
	case n == 8:
		return FloatText(Double, 0, u), true
	case (n == 10 || n == 16) && (f.Arch.Machine == elf.EM_X86_64 || f.Arch.Machine == elf.EM_386): // long double: x87's
		return FloatText(Extended, uint64(f.Arch.ByteOrder.Uint16(b[8:10])), f.Arch.ByteOrder.Uint64(b[:8])), true
	}
	return "", false
}

// ComplexPart is the real part of complex value v, or its imaginary part (imag): a float
// of half v's size, as gdb's $_creal and $_cimag give it.
func (f *File) ComplexPart(v Value, imag bool) (Value, error) {
	_, ok := resolve(v.typ).(*dwarf.ComplexType)
	n := len(v.Bytes)
	if !ok || n == 0 || n%2 != 0 {
		return Value{}, fmt.Errorf("expected a complex number") // gdb's words
	}
	name := map[int]string{4: "float", 8: "double"}[n/2]
	if name == "" {
		name = "long double"
	}
	part := &dwarf.FloatType{BasicType: dwarf.BasicType{CommonType: dwarf.CommonType{ByteSize: int64(n / 2), Name: name}}}
	b := v.Bytes[:n/2]
	if imag {
		b = v.Bytes[n/2:]
	}
	return f.FormatValue(part, b, 0, false, nil, 0), nil
}

// memoryError is gdb's error for a variable whose memory cannot be read.
type memoryError struct{ addr uint64 }

func (e *memoryError) Error() string {
	return fmt.Sprintf("Cannot access memory at address %#x", e.addr)
}

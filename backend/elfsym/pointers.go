package elfsym

// Values as C sees them through their types: p[i] and p + n on pointers, gdb's v@n, sizeof
// and casts. A Value read from the program keeps its DWARF type for these.

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxRepeat bounds v@n, as gdb's `set max-value-size` does (64 KiB).
const maxRepeat = 64 << 10

// SizeOf is the size in bytes of v's type.
func (f *File) SizeOf(v Value) (int, error) {
	if v.typ == nil {
		return 0, fmt.Errorf("%s has no type to take the size of", v.Name)
	}
	if n := v.typ.Size(); n >= 0 {
		return int(n), nil
	}
	return 0, fmt.Errorf("%s is of incomplete type %s", v.Name, v.Type)
}

// TypeSize is sizeof(t).
func TypeSize(t dwarf.Type) (int, error) {
	if n := t.Size(); n > 0 {
		return int(n), nil
	}
	return 0, fmt.Errorf("sizeof of incomplete type %s", TypeName(t))
}

// pointee is the type pointer v points to and its size (an element of p[i] and p + n).
func (v Value) pointee() (dwarf.Type, int, error) {
	pt, ok := resolve(v.typ).(*dwarf.PtrType)
	if !ok {
		return nil, 0, fmt.Errorf("%s is not a pointer", v.Name)
	}
	if _, void := pt.Type.(*dwarf.VoidType); void || pt.Type == nil { // gdb moves a void * byte by byte
		return &dwarf.VoidType{}, 1, nil
	}
	if _, fn := pt.Type.(*dwarf.FuncType); fn { // gdb moves a function pointer byte by byte
		return pt.Type, 1, nil
	}
	n, err := TypeSize(pt.Type)
	return pt.Type, n, err
}

// Element is v[i]: an element of an array (any index its bounds allow), or the i-th object
// from where a pointer points (C's *(p + i)).
func (f *File) Element(v Value, i int64, mem Memory) (Value, error) {
	switch t := resolve(v.typ).(type) {
	case *dwarf.PtrType:
		et, n, err := v.pointee()
		if err != nil {
			return v, err
		}
		if _, void := et.(*dwarf.VoidType); void {
			return v, errors.New("Attempt to dereference a generic pointer.") // gdb's
		}
		return f.readAt(fmt.Sprintf("%s[%d]", v.Name, i), et, uintFrom(v.Bytes, f.Arch)+uint64(i*int64(n)), n, mem)
	case *dwarf.ArrayType:
		n, err := TypeSize(t.Type)
		if err != nil {
			return v, err
		}
		if i < 0 || i >= int64(len(v.Bytes)/n) {
			if v.InMemory && v.Addr != 0 { // past its bounds (a flexible array member's elements): memory, as gdb reads it
				return f.readAt(fmt.Sprintf("%s[%d]", v.Name, i), t.Type, v.Addr+uint64(i*int64(n)), n, mem)
			}
			return v, errors.New("no such vector element") // gdb's, for a value not in memory
		}
		out := f.FormatValue(t.Type, v.Bytes[i*int64(n):(i+1)*int64(n)], v.Addr+uint64(i*int64(n)), v.InMemory, mem, 0)
		out.Name = fmt.Sprintf("%s[%d]", v.Name, i)
		return out, nil
	case *dwarf.StructType: // a standard container's v[i]
		if out, ok, err := f.containerElement(v, t, i, false, mem); ok {
			return out, err
		}
	}
	return v, fmt.Errorf("cannot subscript something of type `%s'", v.Type)
}

func (f *File) readAt(name string, t dwarf.Type, addr uint64, n int, mem Memory) (Value, error) {
	if mem == nil {
		return Value{}, errors.New("elfsym: no memory here")
	}
	b, err := mem.ReadMemory(addr, n)
	if err != nil || len(b) < n { // (a stub's error, E01, in gdb's words)
		return Value{}, fmt.Errorf("Cannot access memory at address %#x", addr)
	}
	out := f.FormatValue(t, b, addr, true, mem, 0)
	out.Name = name
	return out, nil
}

// Add is pointer v moved by n objects of the type it points to (C's p + n, p - n).
func (f *File) Add(v Value, n int64, mem Memory) (Value, error) {
	_, size, err := v.pointee()
	if err != nil {
		return v, err
	}
	addr := uintFrom(v.Bytes, f.Arch) + uint64(n*int64(size))
	out := f.FormatValue(v.typ, f.wordBytes(addr, len(v.Bytes)), 0, false, mem, 0)
	out.Name = v.Name
	return out, nil
}

// Diff is p - q, in objects of the type both point to.
func (f *File) Diff(p, q Value) (int64, error) {
	pt, n, err := p.pointee()
	if err != nil {
		return 0, err
	}
	qt, _, err := q.pointee()
	if err != nil {
		return 0, err
	}
	if TypeName(pt) != TypeName(qt) {
		return 0, fmt.Errorf("first argument of `-' is a pointer and second argument is neither\nan integer nor a pointer of the same type")
	}
	return int64(uintFrom(p.Bytes, f.Arch)-uintFrom(q.Bytes, f.Arch)) / int64(n), nil
}

// Repeat is gdb's v@n: n objects of v's type from where v lives, as an array.
func (f *File) Repeat(v Value, n int64, mem Memory) (Value, error) {
	if n <= 0 {
		return v, fmt.Errorf("Only values in memory can be extended with '@'.")
	}
	if !v.InMemory {
		return v, errors.New("Only values in memory can be extended with '@'.")
	}
	size, err := f.SizeOf(v)
	if err != nil {
		return v, err
	}
	if size*int(n) > maxRepeat || n > maxRepeat {
		return v, fmt.Errorf("%s@%d is %d bytes, more than %d", v.Name, n, int64(size)*n, maxRepeat)
	}
	at := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: int64(size) * n}, Type: v.typ, Count: n}
	return f.readAt(fmt.Sprintf("%s@%d", v.Name, n), at, v.Addr, size*int(n), mem)
}

// Convert is (t) of a number given as an integer or, with isFloat, a double: C's conversion
// of a scalar to an integer, character, boolean, enum, floating or pointer type.
func (f *File) Convert(t dwarf.Type, i int64, x float64, isFloat bool, mem Memory) (Value, error) {
	n, err := TypeSize(t)
	if err != nil {
		return Value{}, err
	}
	var u uint64
	switch resolve(t).(type) {
	case *dwarf.FloatType:
		if !isFloat {
			x = float64(i)
		}
		switch n {
		case 4:
			u = uint64(math.Float32bits(float32(x)))
		case 8:
			u = math.Float64bits(x)
		default:
			return Value{}, fmt.Errorf("cannot convert to %s", TypeName(t))
		}
	case *dwarf.BoolType:
		if isFloat && x != 0 || !isFloat && i != 0 {
			u = 1
		}
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.EnumType, *dwarf.PtrType:
		u = uint64(i)
		if isFloat {
			u = uint64(int64(x))
		}
	case *dwarf.ArrayType, *dwarf.FuncType:
		return Value{}, errors.New("Invalid cast.") // gdb's
	default:
		return Value{}, fmt.Errorf("Invalid cast to %s.", TypeName(t))
	}
	out := f.FormatValue(t, f.wordBytes(u, n), 0, false, mem, 0)
	return out, nil
}

// arrayType is the array of elem's type with the dimensions dims ("[2][4]": two arrays of
// four).
func (f *File) arrayType(elem, dims string) (dwarf.Type, error) {
	var counts []int64
	for rest := dims; rest != ""; {
		j := strings.IndexByte(rest, ']')
		if rest[0] != '[' || j < 0 {
			return nil, fmt.Errorf("bad array type %s%s", elem, dims)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(rest[1:j]), 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad array type %s%s", elem, dims)
		}
		counts, rest = append(counts, n), strings.TrimSpace(rest[j+1:])
	}
	t, err := f.ParseType(strings.TrimSpace(elem))
	if err != nil {
		return nil, err
	}
	for i := len(counts) - 1; i >= 0; i-- {
		size := t.Size()
		if size < 0 {
			return nil, fmt.Errorf("array of incomplete type %s", TypeName(t))
		}
		t = &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: size * counts[i]}, Type: t, StrideBitSize: 0, Count: counts[i]}
	}
	return t, nil
}

// StringLiteral is a C string literal's value: an array of char holding b and its NUL, not
// in the program's memory (sizeof "abc" is 4; it prints as gdb prints it).
func (f *File) StringLiteral(b []byte) Value {
	ch, _ := f.ParseType("char") // the program's char, else C's (builtinType): never an error
	n := int64(len(b) + 1)
	t := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: n}, Type: ch, Count: n}
	return f.FormatValue(t, append(append([]byte(nil), b...), 0), 0, false, nil, 0)
}

// ParseType reads a C type name as a cast or sizeof writes it: a base type ("unsigned
// long"), "struct s", a typedef, each followed by any number of "*".
func (f *File) ParseType(name string) (dwarf.Type, error) {
	if i := strings.IndexByte(name, '('); i > 0 { // int (*)(int), char (*)[8]
		return f.declaratorType(name[:i], name[i:])
	}
	if i := strings.IndexByte(name, '['); i > 0 && strings.HasSuffix(name, "]") { // int[3], char *[2][4]
		return f.arrayType(name[:i], name[i:])
	}
	base := strings.TrimRight(name, "* ")
	stars := strings.Count(name[len(base):], "*")
	var words, quals []string
	for _, w := range strings.Fields(base) {
		if w == "const" || w == "volatile" {
			quals = append(quals, w)
		} else {
			words = append(words, w)
		}
	}
	base = cIntegerName(words)
	if base == "void" {
		if stars == 0 {
			return nil, errors.New("Invalid cast to void.")
		}
		var t dwarf.Type = &dwarf.VoidType{}
		for range stars {
			t = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: t}
		}
		return t, nil
	}
	lookup := f.LookupType
	if !slices.ContainsFunc(words, func(w string) bool { return !IsTypeKeyword(w) }) {
		lookup = f.ownType // C's own (unsigned long): the program's, else builtinType, no library's
	}
	t, err := lookup(base)
	if err != nil {
		var ok bool
		if t, ok = f.builtinType(base); !ok {
			return nil, err
		}
	}
	for i := len(quals) - 1; i >= 0; i-- { // const int *: the qualifiers stay in the type's name
		t = &dwarf.QualType{CommonType: *t.Common(), Qual: quals[i], Type: t}
	}
	for range stars {
		t = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: t}
	}
	return t, nil
}

// fixedWidth are <stdint.h>'s signed types by size in bits (the unsigned ones are "u"
// before them).
var fixedWidth = map[string]int64{"int8_t": 8, "int16_t": 16, "int32_t": 32, "int64_t": 64}

// builtinType is a C base type the program's DWARF may not describe (it describes only the
// ones it uses), sized for the target's data model (LP64, or ILP32 with 4-byte pointers).
func (f *File) builtinType(name string) (dwarf.Type, bool) {
	if bits, ok := fixedWidth[strings.TrimPrefix(name, "u")]; ok { // gdb knows int32_t, uint8_t... itself
		ct := dwarf.CommonType{ByteSize: bits / 8, Name: name}
		if strings.HasPrefix(name, "u") {
			return &dwarf.UintType{BasicType: dwarf.BasicType{CommonType: ct}}, true
		}
		return &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: ct}}, true
	}
	long := int64(8)
	if f.Arch.PtrSize == 4 {
		long = 4
	}
	unsigned := false
	var rest []string
	for _, w := range strings.Fields(name) {
		switch w {
		case "unsigned":
			unsigned = true
		case "signed", "int": // signed is the default, int implied by short and long
		default:
			rest = append(rest, w)
		}
	}
	key := strings.Join(rest, " ")
	if key == "" {
		key = "int"
	}
	longDouble := map[elf.Machine]int64{elf.EM_X86_64: 16, elf.EM_386: 12, elf.EM_AARCH64: 16}[f.ELF.Machine]
	if longDouble == 0 {
		longDouble = 8 // Arm's AAPCS: a double
	}
	sizes := map[string]int64{"char": 1, "short": 2, "int": 4, "long": long, "long long": 8, "float": 4, "double": 8,
		"long double": longDouble, "_Bool": 1, "bool": 1}
	size, ok := sizes[key]
	if !ok {
		return nil, false
	}
	ct := dwarf.CommonType{ByteSize: size, Name: name}
	bt := dwarf.BasicType{CommonType: ct}
	switch {
	case key == "float" || key == "double" || key == "long double":
		return &dwarf.FloatType{BasicType: bt}, true
	case key == "_Bool" || key == "bool":
		return &dwarf.BoolType{BasicType: bt}, true
	case key == "char" && unsigned:
		return &dwarf.UcharType{BasicType: bt}, true
	case key == "char":
		return &dwarf.CharType{BasicType: bt}, true
	case unsigned:
		return &dwarf.UintType{BasicType: bt}, true
	}
	return &dwarf.IntType{BasicType: bt}, true
}

// AddressOf is &v for a value in memory: a pointer to v's type.
func (f *File) AddressOf(v Value, mem Memory) (Value, error) {
	v = v.Referred() // &r is the object's address, as C++'s
	if !v.InMemory {
		return Value{}, errors.New("attempt to take address of value not located in memory")
	}
	if v.typ == nil && (v.Kind == "func" || v.Kind == "nodebug") { // known by its symbol alone: gdb's (<text variable, no debug info> *)
		return Value{Name: "&" + v.Name, Type: v.Type + " *", Kind: "pointer", Bytes: f.wordBytes(v.Addr, f.Arch.PtrSize),
			Text: fmt.Sprintf("%#x <%s>", v.Addr, v.Name)}, nil
	}
	pt := &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: v.typ}
	if v.typ == nil {
		pt.Type = &dwarf.VoidType{}
	}
	out := f.FormatValue(pt, f.wordBytes(v.Addr, f.Arch.PtrSize), 0, false, mem, 0)
	out.Name = "&" + v.Name
	return out, nil
}

// IsTypeKeyword reports whether name is one of C's type keywords (a base type, struct,
// union, enum, void, a qualifier): never a variable's name.
func IsTypeKeyword(name string) bool {
	switch name {
	case "char", "short", "int", "long", "unsigned", "signed", "float", "double", "_Bool",
		"struct", "union", "enum", "void", "const", "volatile":
		return true
	}
	return false
}

// isCKeyword reports whether name is a C keyword an expression may begin with (a type's,
// sizeof): no function or variable of any library has it, so none is read to look.
func isCKeyword(name string) bool { return IsTypeKeyword(name) || name == "sizeof" }

// IsTypeName reports whether name begins a C type name (a cast's or sizeof's): a base type
// keyword, struct, union, enum, or a typedef of the program.
func (f *File) IsTypeName(name string) bool {
	if IsTypeKeyword(name) {
		return true
	}
	t, err := f.LookupType(name)
	if err != nil {
		_, fixed := fixedWidth[strings.TrimPrefix(name, "u")]
		return fixed
	}
	switch t.(type) {
	case *dwarf.TypedefType:
		return true
	case *dwarf.StructType, *dwarf.EnumType: // C++ names a class without its keyword
		return f.cplus
	}
	return false
}

// Decay is v as C uses an array in an expression: a pointer to its first element. Other
// values are returned as they are.
func (f *File) Decay(v Value, mem Memory) (Value, error) {
	at, ok := resolve(v.typ).(*dwarf.ArrayType)
	if !ok {
		return v, nil
	}
	if !v.InMemory {
		return v, errors.New("attempt to take address of value not located in memory")
	}
	pt := &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: at.Type}
	out := f.FormatValue(pt, f.wordBytes(v.Addr, f.Arch.PtrSize), 0, false, mem, 0)
	out.Name = v.Name
	return out, nil
}

// DWARFType is the program's type v was read with, nil for a register's word or a number.
func (v Value) DWARFType() dwarf.Type { return v.typ }

// TypeOnly is a value of type t that was not read: what an expression's type is asked of
// (gdb's whatis and ptype of a call, which do not run it).
func TypeOnly(t dwarf.Type, name string) Value { return Value{Name: name, Type: TypeName(t), typ: t} }

// Typed reports whether v was read with a type of the program (a register's word was not):
// only such a pointer moves by the size of what it points to.
func (v Value) Typed() bool { return v.typ != nil }

// declaratorType is the type of C's abstract declarator decl, which starts with a
// parenthesis, after base: a pointer to a function, "(*)(int, char *)", or to an array,
// "(*)[8]", nested as C nests them ("(*[2])(int)" an array of pointers to functions,
// "(*(*)[2])(int)" a pointer to one).
func (f *File) declaratorType(base, decl string) (dwarf.Type, error) {
	bad := fmt.Errorf("A syntax error in expression, near `%s'.", strings.TrimSpace(decl))
	var t dwarf.Type = &dwarf.VoidType{}
	if b := strings.TrimSpace(base); b != "void" {
		var err error
		if t, err = f.ParseType(b); err != nil {
			return nil, err
		}
	}
	t, err := f.applyDeclarator(t, decl, bad)
	if _, void := t.(*dwarf.VoidType); void && err == nil {
		return nil, errors.New("Invalid cast to void.")
	}
	return t, err
}

// applyDeclarator is type t with C's abstract declarator decl around it: its stars first,
// then its suffixes ([N], (params)) right to left, then what a parenthesis groups.
func (f *File) applyDeclarator(t dwarf.Type, decl string, bad error) (dwarf.Type, error) {
	d := strings.TrimSpace(decl)
	for strings.HasPrefix(d, "*") {
		t = &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: int64(f.Arch.PtrSize)}, Type: t}
		d = strings.TrimSpace(d[1:])
		for _, q := range []string{"const", "volatile"} { // (a pointer's own qualifiers are not kept)
			d = strings.TrimSpace(strings.TrimPrefix(d, q))
		}
	}
	grouped, inner := false, ""
	if strings.HasPrefix(d, "(") {
		j := closing(d)
		if j < 0 {
			return nil, bad
		}
		if body := strings.TrimSpace(d[1:j]); body != "" && strings.ContainsAny(body[:1], "*([") {
			grouped, inner, d = true, body, d[j+1:]
		}
	}
	var suffixes []string
	for d = strings.TrimSpace(d); d != ""; d = strings.TrimSpace(d) {
		j := -1
		switch d[0] {
		case '[':
			j = strings.IndexByte(d, ']')
		case '(':
			j = closing(d)
		}
		if j < 0 {
			return nil, bad
		}
		suffixes, d = append(suffixes, d[:j+1]), d[j+1:]
	}
	for i := len(suffixes) - 1; i >= 0; i-- {
		var err error
		if t, err = f.suffixed(t, suffixes[i], bad); err != nil {
			return nil, err
		}
	}
	if grouped {
		return f.applyDeclarator(t, inner, bad)
	}
	return t, nil
}

// suffixed is t with one declarator suffix after it: an array's "[N]" ("[]": of unknown
// bound) or a function's "(params)" returning t.
func (f *File) suffixed(t dwarf.Type, sfx string, bad error) (dwarf.Type, error) {
	body := strings.TrimSpace(sfx[1 : len(sfx)-1])
	if sfx[0] == '[' {
		n := int64(-1)
		if body != "" {
			v, err := strconv.ParseInt(body, 0, 64)
			if err != nil || v < 0 {
				return nil, bad
			}
			n = v
		}
		size := t.Size()
		if _, void := t.(*dwarf.VoidType); void || size < 0 {
			return nil, fmt.Errorf("array of incomplete type %s", TypeName(t))
		}
		return &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: size * max(n, 0)}, Type: t, Count: n}, nil
	}
	ft := &dwarf.FuncType{CommonType: dwarf.CommonType{ByteSize: 1}}
	if _, void := t.(*dwarf.VoidType); !void {
		ft.ReturnType = t
	}
	if body != "" && body != "void" {
		for _, p := range splitTopLevel(body) {
			pt, err := f.ParseType(strings.TrimSpace(p))
			if err != nil {
				return nil, err
			}
			ft.ParamType = append(ft.ParamType, pt)
		}
	}
	return ft, nil
}

// closing is the index of the parenthesis that closes the one s starts with, -1 if none.
func closing(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitTopLevel splits a parameter list at its commas outside parentheses.
func splitTopLevel(s string) []string {
	var parts []string
	depth, from := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				parts, from = append(parts, s[from:i]), i+1
			}
		}
	}
	return append(parts, s[from:])
}

// cIntegerName is the type the words name, a C integer type spelled as gdb names it
// ("unsigned" is unsigned int, "long unsigned int" unsigned long, "short unsigned" unsigned
// short), or the words as they are.
func cIntegerName(words []string) string {
	var longs int
	var unsigned, signed, short, char bool
	for _, w := range words {
		switch w {
		case "long":
			longs++
		case "unsigned":
			unsigned = true
		case "signed":
			signed = true
		case "short":
			short = true
		case "char":
			char = true
		case "int":
		default:
			return strings.Join(words, " ")
		}
	}
	name := "int"
	switch {
	case char && signed:
		return "signed char"
	case char:
		name = "char"
	case short:
		name = "short"
	case longs >= 2:
		name = "long long"
	case longs == 1:
		name = "long"
	}
	if unsigned {
		return "unsigned " + name
	}
	return name
}

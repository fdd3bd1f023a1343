package elfsym

// C++ types as gdb names and reads them. debug/dwarf names a class by its own name only
// and does not read references, base classes or static members; every type read passes
// here once (dwarfType), its DWARF entries walked beside it: a class, enum or typedef
// declared in a namespace or class gets its scopes (geo::Shape), a reference becomes a
// RefType, and a class's bases and static members are kept (ClassOf).

import (
	"debug/dwarf"
	"encoding/binary"
	"strings"
	"sync"
)

// cxxTypes holds the classes and enums read from C++ units, which C++ (and gdb) name
// without their keyword (geo::Shape, not class geo::Shape), each with the entry it was
// read from (a cxxDecl), for ptype's members, methods and access.
var cxxTypes sync.Map

// cxxDecl is where a C++ type was declared: its file and entry; for an enum, whether it
// is an enum class and the type under it.
type cxxDecl struct {
	f          *File
	off        dwarf.Offset
	scoped     bool
	underlying string
}

func isCXX(t dwarf.Type) bool { _, ok := cxxTypes.Load(t); return ok }

// RefType is a C++ reference, T& (or T&& when RValue).
type RefType struct {
	dwarf.CommonType
	Type   dwarf.Type
	RValue bool
}

func (t *RefType) String() string { return TypeName(t) }

// Class is what debug/dwarf leaves out of a C++ class: its base classes, in order, and its
// static members.
type Class struct {
	Bases   []Base
	Statics []Static
}

// Base is a base class at an offset in the derived one. A virtual base has no fixed
// offset (-1): where it is, the object's vtable says, as Loc computes from the address of
// the object that derives from it.
type Base struct {
	Type    *dwarf.StructType
	Offset  int64
	Virtual bool
	Loc     []byte // a virtual base's DWARF location expression
}

// Static is a static data member, read from the variable that defines it (linkage name).
type Static struct {
	Name    string
	Type    dwarf.Type
	Linkage string // the symbol of its storage ("" when it has none: a constant)
	Before  int    // how many of the class's members are declared before it
	// Const is its value where the compiler gave it instead of storage (a constexpr
	// one's DW_AT_const_value): an integer, or the bytes of a larger one.
	Const any
}

// ClassOf returns the bases and statics of a C++ class type (nil for others).
func (f *File) ClassOf(st *dwarf.StructType) *Class {
	f.lazy.Lock()
	defer f.lazy.Unlock()
	return f.classes[st]
}

// fixCXXType walks the entries of the type t read at off beside it, once per entry (under
// f.lazy), and returns it with its references made RefTypes.
func (f *File) fixCXXType(off dwarf.Offset, t dwarf.Type) dwarf.Type {
	if done, ok := f.fixed[off]; ok {
		return done
	}
	if f.fixed == nil {
		f.fixed, f.classes = map[dwarf.Offset]dwarf.Type{}, map[*dwarf.StructType]*Class{}
	}
	f.fixed[off] = t // (a class that points to itself)
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return t
	}
	inner := func() dwarf.Type {
		to, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
		if !ok {
			return nil
		}
		it, err := f.DWARF.Type(to)
		if err != nil {
			return nil
		}
		return f.fixCXXType(to, it)
	}
	q := f.typeScope[off]
	switch e.Tag {
	case dwarf.TagReferenceType, dwarf.TagRvalueReferenceType:
		in := inner()
		if in == nil {
			return t
		}
		ref := &RefType{Type: in, RValue: e.Tag == dwarf.TagRvalueReferenceType}
		ref.ByteSize = int64(f.Arch.PtrSize)
		f.fixed[off] = ref
		return ref
	case dwarf.TagAtomicType: // C11's _Atomic, which debug/dwarf leaves unsupported
		if in := inner(); in != nil {
			q := atomicOf(in)
			f.fixed[off] = q
			return q
		}
	case dwarf.TagPtrToMemberType:
		mp := f.memberPtrType(e, inner())
		f.fixed[off] = mp
		return mp
	case dwarf.TagPointerType:
		if pt, ok := t.(*dwarf.PtrType); ok {
			if in := inner(); in != nil {
				pt.Type = in
			}
		}
	case dwarf.TagConstType, dwarf.TagVolatileType, dwarf.TagRestrictType:
		if qt, ok := t.(*dwarf.QualType); ok {
			if in := inner(); in != nil {
				qt.Type = in
			}
		}
	case dwarf.TagArrayType:
		if at, ok := t.(*dwarf.ArrayType); ok {
			if in := inner(); in != nil {
				at.Type = in
			}
		}
	case dwarf.TagTypedef:
		if tt, ok := t.(*dwarf.TypedefType); ok {
			if q != "" && !strings.HasPrefix(tt.Name, q+"::") {
				tt.Name = q + "::" + tt.Name
			}
			if in := inner(); in != nil {
				tt.Type = in
			}
		}
	case dwarf.TagEnumerationType:
		if et, ok := t.(*dwarf.EnumType); ok {
			if q != "" && et.EnumName != "" && !strings.HasPrefix(et.EnumName, q+"::") {
				et.EnumName = q + "::" + et.EnumName
			}
			d := cxxDecl{f: f, off: off}
			d.scoped, _ = e.Val(dwarf.AttrEnumClass).(bool)
			if under := inner(); under != nil {
				d.underlying = TypeName(under)
			}
			// Its constants by the names C++ gives them: geo::Dir::S (enum class), geo::K1
			// (a plain enum's are its scope's)
			prefix := q
			if d.scoped {
				prefix = et.EnumName
			}
			for i := range et.Val {
				if prefix != "" && !strings.HasPrefix(et.Val[i].Name, prefix+"::") {
					et.Val[i].Name = prefix + "::" + et.Val[i].Name
				}
			}
			cxxTypes.Store(t, d)
		}
	case dwarf.TagClassType, dwarf.TagStructType, dwarf.TagUnionType:
		if st, ok := t.(*dwarf.StructType); ok {
			cxxTypes.Store(t, cxxDecl{f: f, off: off})
			if q != "" && st.StructName != "" && !strings.HasPrefix(st.StructName, q+"::") {
				st.StructName = q + "::" + st.StructName
			}
			st.StructName = canonicalArgs(st.StructName)
			if e.Children {
				f.fixMembers(r, st)
			}
		}
	}
	return t
}

// fixMembers reads the children of a class entry (r just read it): its members' types,
// bases and static members.
func (f *File) fixMembers(r *dwarf.Reader, st *dwarf.StructType) {
	var cl Class
	field := 0
	for {
		kid, err := r.Next()
		if err != nil || kid == nil || kid.Tag == 0 {
			break
		}
		to, hasType := kid.Val(dwarf.AttrType).(dwarf.Offset)
		typeOf := func() dwarf.Type {
			if !hasType {
				return nil
			}
			it, err := f.DWARF.Type(to)
			if err != nil {
				return nil
			}
			return it
		}
		switch kid.Tag {
		case dwarf.TagMember:
			if decl, _ := kid.Val(dwarf.AttrDeclaration).(bool); decl { // DWARF 4's static member
				if it := typeOf(); it != nil {
					cl.Statics = append(cl.Statics, f.static(kid, f.fixCXXType(to, it), field))
				}
				break
			}
			if field < len(st.Field) {
				if it := typeOf(); it != nil {
					st.Field[field].Type = f.fixCXXType(to, it)
				}
			}
			field++
		case dwarf.TagVariable: // DWARF 5's static member
			if it := typeOf(); it != nil {
				cl.Statics = append(cl.Statics, f.static(kid, f.fixCXXType(to, it), field))
			}
		case dwarf.TagInheritance:
			if it := typeOf(); it != nil {
				if bt, ok := f.fixCXXType(to, it).(*dwarf.StructType); ok {
					b := Base{Type: bt}
					switch o := kid.Val(dwarf.AttrDataMemberLoc).(type) {
					case int64:
						b.Offset = o
					case []byte: // computed: a virtual base
						b.Offset, b.Loc = -1, o
					}
					if v, _ := kid.Val(dwarf.AttrVirtuality).(int64); v != 0 {
						b.Offset, b.Virtual = -1, true
					}
					cl.Bases = append(cl.Bases, b)
				}
			}
		}
		if kid.Children {
			r.SkipChildren()
		}
	}
	if len(cl.Bases) > 0 || len(cl.Statics) > 0 {
		f.classes[st] = &cl
	}
}

// static describes the static member declared by entry e of type t.
func (f *File) static(e *dwarf.Entry, t dwarf.Type, before int) Static {
	s := Static{Type: t, Before: before}
	s.Name, _ = e.Val(dwarf.AttrName).(string)
	s.Linkage, _ = e.Val(dwarf.AttrLinkageName).(string)
	s.Const = e.Val(dwarf.AttrConstValue)
	return s
}

// structValue formats a struct or class: its base classes first, as gdb shows them
// ({<geo::Shape> = {...}, side = 3}), then its members with its static ones among them
// where they are declared (static count = 0).
func (f *File) structValue(v *Value, st *dwarf.StructType, b []byte, addr uint64, inMem bool, mem Memory, depth int) {
	f.classValue(v, st, b, addr, inMem, mem, depth, nil)
}

// classValue is structValue with the virtual bases already shown elsewhere in the object
// (shown), which gdb shows once, where they are first met.
func (f *File) classValue(v *Value, st *dwarf.StructType, b []byte, addr uint64, inMem bool, mem Memory, depth int, shown map[*dwarf.StructType]bool) {
	var parts []string
	add := func(c Value, label string) {
		v.Children = append(v.Children, c)
		text := c.Text
		if c.Kind == "reference" && (c.Referent == nil || !c.Referent.printed) { // a reference member: its address alone, as gdb
			text, _, _ = strings.Cut(text, ": ")
		}
		if st, ok := resolve(c.typ).(*dwarf.StructType); ok && st.Kind == "union" && f.PrintLimits().HideUnions {
			text = "{...}" // print union off: a union inside is not shown, as gdb's
		}
		if label == "" { // an anonymous union or struct: its members' braces alone, as gdb
			parts = append(parts, text)
			return
		}
		parts = append(parts, label+" = "+text)
	}
	cl := f.ClassOf(st)
	statics := func(before int) {
		if cl == nil {
			return
		}
		for _, s := range cl.Statics {
			if s.Before == before {
				c := f.staticValue(s, mem, depth)
				add(c, "static "+s.Name)
			}
		}
	}
	if cl != nil {
		for _, base := range cl.Bases {
			if shown == nil {
				shown = map[*dwarf.StructType]bool{}
			}
			if c, ok := f.baseValue(base, b, addr, inMem, mem, depth+1, shown); ok {
				add(c, c.Name)
			}
		}
	}
	for i, fld := range st.Field {
		statics(i)
		off := int(fieldOffset(fld))
		sz := int(fld.Type.Size())
		if off < 0 || sz < 0 || off+sz > len(b) {
			continue
		}
		c := f.FormatValue(fld.Type, b[off:off+sz], addr+uint64(off), inMem, mem, depth+1)
		if fld.BitSize > 0 {
			c = f.bitfield(fld, b[off:off+sz], c)
		}
		c.Name = fld.Name
		add(c, fld.Name)
	}
	statics(len(st.Field))
	if len(st.Field) == 0 && (cl == nil || len(cl.Statics) == 0) { // as gdb says a class without members of its own
		parts = append(parts, "<No data fields>")
	}
	v.Text = "{" + strings.Join(parts, ", ") + "}"
}

// baseValue is the part of a class object (its bytes b, at addr) that is its base class
// base, as gdb shows it (<geo::Shape> = {...}); false for a virtual base already shown, or
// one whose place is not known (the object is not in memory).
func (f *File) baseValue(base Base, b []byte, addr uint64, inMem bool, mem Memory, depth int, shown map[*dwarf.StructType]bool) (Value, bool) {
	sz := int(base.Type.Size())
	if sz < 0 || base.Virtual && shown[base.Type] {
		return Value{}, false
	}
	var part []byte
	at := addr + uint64(base.Offset)
	switch {
	case base.Offset >= 0 && int(base.Offset)+sz <= len(b):
		part = b[base.Offset : int(base.Offset)+sz]
	case base.Loc == nil || !inMem || mem == nil:
		return Value{}, false
	default: // where the vtable says
		loc, err := f.evalExpr(base.Loc, &exprEnv{mem: mem}, []uint64{addr})
		if err != nil || loc.Kind != LocMemory {
			return Value{}, false
		}
		at = loc.Addr
		if part, err = mem.ReadMemory(at, sz); err != nil || len(part) < sz {
			return Value{}, false
		}
	}
	if base.Virtual {
		shown[base.Type] = true
	}
	c := Value{Bytes: part, Addr: at, InMemory: inMem, typ: base.Type, Type: TypeName(base.Type), Kind: "struct"}
	f.classValue(&c, base.Type, part, at, inMem, mem, depth, shown)
	if isCXX(base.Type) && !f.PrintLimits().Raw {
		c.printed = f.stdValue(&c, base.Type, part, at, mem, depth)
	}
	c.Name = "<" + base.Type.StructName + ">"
	return c, true
}

// staticValue reads a static member from the storage its symbol names.
func (f *File) staticValue(s Static, mem Memory, depth int) Value {
	out := Value{Name: s.Name, Type: TypeName(s.Type), Kind: "raw", Text: "<optimized out>"}
	addr, _, ok := f.Symbol(s.Linkage)
	sz := int(s.Type.Size())
	if (s.Linkage == "" || !ok) && s.Const != nil && sz > 0 { // no storage: the value the compiler gave
		b := make([]byte, sz)
		switch c := s.Const.(type) {
		case int64:
			var w [8]byte
			f.Arch.ByteOrder.PutUint64(w[:], uint64(c))
			if f.Arch.ByteOrder == binary.BigEndian {
				copy(b, w[max(0, 8-sz):])
			} else {
				copy(b, w[:])
			}
		case []byte:
			copy(b, c)
		default:
			return out
		}
		out = f.FormatValue(s.Type, b, 0, false, mem, depth+1)
		out.Name = s.Name
		return out
	}
	if s.Linkage == "" || !ok || mem == nil || sz <= 0 {
		return out
	}
	b, err := mem.ReadMemory(addr, sz)
	if err != nil || len(b) != sz {
		return out
	}
	out = f.FormatValue(s.Type, b, addr, true, mem, depth+1)
	out.Name = s.Name
	return out
}

// DerivesFrom reports whether the class t is the class named base or derives from it.
func (f *File) DerivesFrom(t dwarf.Type, base string) bool { return f.derivesFrom(t, base, 16) }

func (f *File) derivesFrom(t dwarf.Type, base string, depth int) bool {
	st, ok := resolve(t).(*dwarf.StructType)
	if !ok || depth == 0 {
		return false
	}
	if st.StructName == base {
		return true
	}
	if cl := f.ClassOf(st); cl != nil {
		for _, b := range cl.Bases {
			if f.derivesFrom(b.Type, base, depth-1) {
				return true
			}
		}
	}
	return false
}

// canonicalArgs spells the integer types of a template's arguments as gdb (and the
// demangler) do: Arr<short int, 3> is Arr<short, 3>.
func canonicalArgs(name string) string {
	if !strings.Contains(name, "<") || !strings.Contains(name, " int") {
		return name
	}
	for _, long := range []string{"long long unsigned int", "long long int", "long unsigned int", "short unsigned int", "long int", "short int"} {
		for from := 0; ; {
			i := strings.Index(name[from:], long)
			if i < 0 {
				break
			}
			i += from
			end := i + len(long)
			if (i == 0 || !isNameByte(name[i-1])) && (end == len(name) || !isNameByte(name[end])) {
				name = name[:i] + gdbIntNames[long] + name[end:]
				from = i + len(gdbIntNames[long])
				continue
			}
			from = end
		}
	}
	return name
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

package elfsym

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Var is a variable or parameter described by DWARF.
type Var struct {
	Name    string
	Type    dwarf.Type // nil when DWARF gives none
	IsParam bool
	Global  bool
	Line    int
	loc     []byte // DW_AT_location exprloc (nil: no location)
	fn      *Func  // enclosing function (nil for globals)
}

// TypeName is the C name of the variable's type.
func (v *Var) TypeName() string { return TypeName(v.Type) }

// TypeName is the C spelling of a DWARF type: "const char *", "int [5]", "struct point".
func TypeName(t dwarf.Type) string {
	switch tt := t.(type) {
	case nil:
		return "?"
	case *dwarf.PtrType:
		if _, ok := tt.Type.(*dwarf.VoidType); ok || tt.Type == nil {
			return "void *"
		}
		inner := TypeName(tt.Type)
		if strings.HasSuffix(inner, "*") {
			return inner + "*"
		}
		return inner + " *"
	case *dwarf.QualType:
		return tt.Qual + " " + TypeName(tt.Type)
	case *dwarf.ArrayType:
		n := TypeName(tt.Type)
		if i := strings.Index(n, " ["); i >= 0 { // int [2][3]
			return n[:i] + fmt.Sprintf(" [%d]", tt.Count) + n[i+1:]
		}
		return n + fmt.Sprintf(" [%d]", tt.Count)
	case *dwarf.StructType:
		if tt.StructName == "" {
			return tt.Kind + " {...}"
		}
		return tt.Kind + " " + tt.StructName
	case *dwarf.EnumType:
		if tt.EnumName == "" {
			return "enum {...}"
		}
		return "enum " + tt.EnumName
	case *dwarf.TypedefType:
		return tt.Name
	}
	return t.String()
}

// Size is the byte size of the variable's type (-1 when unknown).
func (v *Var) Size() int {
	if v.Type == nil {
		return -1
	}
	return int(v.Type.Size())
}

func (f *File) varFromEntry(e *dwarf.Entry) *Var {
	v := &Var{}
	name, _ := e.Val(dwarf.AttrName).(string)
	typ, hasType := e.Val(dwarf.AttrType).(dwarf.Offset)
	if spec, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset); ok && (name == "" || !hasType) {
		r := f.DWARF.Reader()
		r.Seek(spec)
		if se, err := r.Next(); err == nil && se != nil {
			if name == "" {
				name, _ = se.Val(dwarf.AttrName).(string)
			}
			if !hasType {
				typ, hasType = se.Val(dwarf.AttrType).(dwarf.Offset)
			}
		}
	}
	if name == "" {
		return nil
	}
	v.Name = name
	if hasType {
		if t, err := f.DWARF.Type(typ); err == nil {
			v.Type = t
		}
	}
	if l, ok := e.Val(dwarf.AttrDeclLine).(int64); ok {
		v.Line = int(l)
	}
	v.loc, _ = e.Val(dwarf.AttrLocation).([]byte)
	return v
}

// Globals returns the variables defined at file scope (with a location).
func (f *File) Globals() []*Var {
	if f.DWARF == nil {
		return nil
	}
	var out []*Var
	r := f.DWARF.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit || !cu.Children {
			r.SkipChildren()
			continue
		}
		for {
			e, err := r.Next()
			if err != nil || e == nil || e.Tag == 0 {
				break
			}
			if e.Tag == dwarf.TagVariable {
				if v := f.varFromEntry(e); v != nil && v.loc != nil {
					v.Global = true
					out = append(out, v)
				}
			}
			if e.Children {
				r.SkipChildren()
			}
		}
	}
	return out
}

// Global finds a global variable by name.
func (f *File) Global(name string) (*Var, bool) {
	for _, v := range f.Globals() {
		if v.Name == name {
			return v, true
		}
	}
	return nil, false
}

// FrameVars returns the parameters and the local variables visible at the run-time pc
// (lexical blocks that contain it), innermost block last.
func (f *File) FrameVars(pc uint64) (params, locals []*Var, err error) {
	fn := f.FuncAt(pc)
	if fn == nil || fn.entry == 0 || f.DWARF == nil {
		return nil, nil, nil
	}
	a := f.clearThumb(pc - f.Bias)
	r := f.DWARF.Reader()
	r.Seek(fn.entry)
	e, err := r.Next()
	if err != nil || e == nil || !e.Children {
		return nil, nil, err
	}
	// depth-first over children; skip blocks that do not contain a
	var walk func() error
	walk = func() error {
		for {
			e, err := r.Next()
			if err != nil {
				return err
			}
			if e == nil || e.Tag == 0 {
				return nil
			}
			switch e.Tag {
			case dwarf.TagFormalParameter, dwarf.TagVariable:
				if v := f.varFromEntry(e); v != nil {
					v.fn = fn
					if e.Tag == dwarf.TagFormalParameter {
						v.IsParam = true
						params = append(params, v)
					} else {
						locals = append(locals, v)
					}
				}
				if e.Children {
					r.SkipChildren()
				}
			case dwarf.TagLexDwarfBlock:
				if !e.Children {
					continue
				}
				if !f.blockContains(e, a) {
					r.SkipChildren()
					continue
				}
				if err := walk(); err != nil {
					return err
				}
			default:
				if e.Children {
					r.SkipChildren()
				}
			}
		}
	}
	return params, locals, walk()
}

func (f *File) blockContains(e *dwarf.Entry, a uint64) bool {
	if rs, err := f.DWARF.Ranges(e); err == nil && len(rs) > 0 {
		for _, rg := range rs {
			if a >= f.clearThumb(rg[0]) && a < f.clearThumb(rg[1]) {
				return true
			}
		}
		return false
	}
	return true // no range information: assume visible
}

// LookupVar finds the variable name visible at the run-time pc: innermost local first,
// then parameters, then globals.
func (f *File) LookupVar(pc uint64, name string) (*Var, error) {
	params, locals, err := f.FrameVars(pc)
	if err != nil {
		return nil, err
	}
	for i := len(locals) - 1; i >= 0; i-- {
		if locals[i].Name == name {
			return locals[i], nil
		}
	}
	for _, v := range params {
		if v.Name == name {
			return v, nil
		}
	}
	if v, ok := f.Global(name); ok {
		return v, nil
	}
	return nil, fmt.Errorf("elfsym: no variable %q here", name)
}

// Locate evaluates the variable's location in frame fr (nil for globals).
func (f *File) Locate(v *Var, fr *Frame, mem Memory) (Loc, error) {
	if v.loc == nil {
		return Loc{}, fmt.Errorf("elfsym: %s has no location (optimized out)", v.Name)
	}
	env := &exprEnv{mem: mem}
	if fr != nil {
		env.regs = fr
		cfa := fr.CFA
		env.cfa = func() (uint64, error) {
			if cfa == 0 {
				return 0, fmt.Errorf("elfsym: the frame's CFA is unknown")
			}
			return cfa, nil
		}
		if v.fn != nil && v.fn.frameBase != nil {
			fb := v.fn.frameBase
			env.frameBase = func() (uint64, error) {
				l, err := f.evalExpr(fb, &exprEnv{regs: fr, mem: mem, cfa: env.cfa}, nil)
				if err != nil {
					return 0, err
				}
				switch l.Kind {
				case LocRegister:
					r, ok := fr.Register(l.Reg)
					if !ok {
						return 0, fmt.Errorf("elfsym: frame base register %d unknown", l.Reg)
					}
					return r, nil
				case LocMemory:
					return l.Addr, nil
				}
				return 0, fmt.Errorf("%w: frame base", ErrUnsupportedExpr)
			}
		}
	}
	return f.evalExpr(v.loc, env, nil)
}

// StaticLoc is where a variable lives at a given pc, as a register plus an offset, without
// reading the target: what a breakpoint condition evaluated by a stub needs.
type StaticLoc struct {
	InReg  bool  // the value is DWARF register Reg
	Reg    int   // DWARF register, -1 for an absolute address
	Offset int64 // address = Reg's value + Offset (or Offset alone)
}

// StaticLocation computes v's location at the run-time pc from its location expression,
// the function's frame base and the CFI rule for the CFA at pc. Only the simple forms gcc
// emits without optimisation are handled (DW_OP_addr, DW_OP_fbreg over DW_OP_call_frame_cfa
// or a register, DW_OP_breg*, DW_OP_reg*).
func (f *File) StaticLocation(v *Var, pc uint64) (StaticLoc, error) {
	if v.fn != nil && f.FuncAt(pc) != v.fn {
		return StaticLoc{}, fmt.Errorf("elfsym: %s is not visible at %#x", v.Name, pc)
	}
	l, err := f.staticExpr(v.loc, v.fn, pc)
	if err != nil {
		return l, fmt.Errorf("elfsym: %s: %w", v.Name, err)
	}
	return l, nil
}

func (f *File) staticExpr(expr []byte, fn *Func, pc uint64) (StaticLoc, error) {
	if len(expr) == 0 {
		return StaticLoc{}, fmt.Errorf("no location")
	}
	r := &cfiReader{b: expr, order: f.Arch.ByteOrder}
	op := r.u8()
	var out StaticLoc
	switch {
	case op == 0x03:
		out = StaticLoc{Reg: -1, Offset: int64(r.addr(f.Arch.PtrSize) + f.Bias)}
	case op >= 0x50 && op <= 0x6f:
		out = StaticLoc{InReg: true, Reg: int(op - 0x50)}
	case op == 0x90:
		out = StaticLoc{InReg: true, Reg: int(r.uleb())}
	case op >= 0x70 && op <= 0x8f:
		out = StaticLoc{Reg: int(op - 0x70), Offset: r.sleb()}
	case op == 0x92:
		reg := int(r.uleb())
		out = StaticLoc{Reg: reg, Offset: r.sleb()}
	case op == 0x9c:
		fde := f.frames.find(f.clearThumb(pc - f.Bias))
		if fde == nil {
			return out, fmt.Errorf("no CFI at %#x", pc)
		}
		row, err := f.frames.rowAt(fde, f.clearThumb(pc-f.Bias))
		if err != nil || row.cfa.expr != nil {
			return out, fmt.Errorf("CFA at %#x is not register+offset", pc)
		}
		out = StaticLoc{Reg: row.cfa.reg, Offset: row.cfa.off}
	case op == 0x91:
		off := r.sleb()
		if fn == nil || fn.frameBase == nil {
			return out, fmt.Errorf("no frame base")
		}
		fb, err := f.staticExpr(fn.frameBase, fn, pc)
		if err != nil {
			return out, err
		}
		if fb.InReg {
			fb = StaticLoc{Reg: fb.Reg}
		}
		out = StaticLoc{Reg: fb.Reg, Offset: fb.Offset + off}
	default:
		return out, fmt.Errorf("%w: opcode %#x", ErrUnsupportedExpr, op)
	}
	if r.err != nil || r.pos != len(expr) {
		return StaticLoc{}, fmt.Errorf("%w: not a simple location", ErrUnsupportedExpr)
	}
	return out, nil
}

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
}

const (
	maxArrayChildren = 100
	maxDepth         = 4
)

// ReadVar reads and formats a variable in frame fr (nil for globals).
func (f *File) ReadVar(v *Var, fr *Frame, mem Memory) (Value, error) {
	loc, err := f.Locate(v, fr, mem)
	if err != nil {
		return Value{Name: v.Name, Type: v.TypeName(), Kind: "raw", Text: "<" + err.Error() + ">"}, err
	}
	size := v.Size()
	if size < 0 {
		size = f.Arch.PtrSize
	}
	var b []byte
	val := Value{Name: v.Name, Type: v.TypeName()}
	switch loc.Kind {
	case LocMemory:
		b, err = mem.ReadMemory(loc.Addr, size)
		if err == nil && len(b) < size {
			err = fmt.Errorf("elfsym: short read at %#x", loc.Addr)
		}
		if err != nil {
			val.Kind, val.Text = "raw", "<"+err.Error()+">"
			return val, err
		}
		val.Addr, val.InMemory = loc.Addr, true
	case LocRegister:
		if fr == nil {
			return val, fmt.Errorf("elfsym: %s is in a register but there is no frame", v.Name)
		}
		r, ok := fr.Register(loc.Reg)
		if !ok {
			return val, fmt.Errorf("elfsym: register %d unknown in this frame", loc.Reg)
		}
		b = make([]byte, 8)
		f.Arch.ByteOrder.PutUint64(b, r)
		if f.Arch.ByteOrder == binary.BigEndian {
			b = b[8-size:]
		} else {
			b = b[:min(size, 8)]
		}
	case LocValue:
		if loc.Bytes != nil {
			b = loc.Bytes
		} else {
			b = make([]byte, 8)
			f.Arch.ByteOrder.PutUint64(b, loc.Addr)
			b = b[:min(size, 8)]
		}
	}
	out := f.FormatValue(v.Type, b, val.Addr, val.InMemory, mem, 0)
	out.Name, out.Addr, out.InMemory = v.Name, val.Addr, val.InMemory
	return out, nil
}

func resolve(t dwarf.Type) dwarf.Type {
	for range 32 {
		switch tt := t.(type) {
		case *dwarf.TypedefType:
			t = tt.Type
		case *dwarf.QualType:
			t = tt.Type
		default:
			return t
		}
	}
	return t
}

// FormatValue formats the bytes b of type t (at addr when inMem) like gdb. Pointers to
// char are followed to show the string; other pointers get their target as a child.
func (f *File) FormatValue(t dwarf.Type, b []byte, addr uint64, inMem bool, mem Memory, depth int) Value {
	v := Value{Bytes: b, Addr: addr, InMemory: inMem}
	if t == nil {
		v.Kind, v.Type, v.Text = "raw", "?", fmt.Sprintf("%x", b)
		return v
	}
	v.Type = TypeName(t)
	u := uintFrom(b, f.Arch)
	n := len(b)
	sext := func() int64 {
		if n == 0 || n >= 8 {
			return int64(u)
		}
		shift := uint(64 - 8*n)
		return int64(u<<shift) >> shift
	}
	switch tt := resolve(t).(type) {
	case *dwarf.BoolType:
		v.Kind = "bool"
		v.Text = strconv.FormatBool(u != 0)
	case *dwarf.CharType:
		v.Kind = "char"
		v.Text = fmt.Sprintf("%d %s", sext(), charLit(byte(u)))
	case *dwarf.UcharType:
		v.Kind = "char"
		v.Text = fmt.Sprintf("%d %s", u, charLit(byte(u)))
	case *dwarf.IntType:
		v.Kind = "int"
		v.Text = strconv.FormatInt(sext(), 10)
	case *dwarf.UintType:
		v.Kind = "uint"
		v.Text = strconv.FormatUint(u, 10)
	case *dwarf.FloatType:
		v.Kind = "float"
		switch n {
		case 4:
			v.Text = strconv.FormatFloat(float64(math.Float32frombits(uint32(u))), 'g', -1, 32)
		case 8:
			v.Text = strconv.FormatFloat(math.Float64frombits(u), 'g', -1, 64)
		default:
			v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
		}
	case *dwarf.EnumType:
		v.Kind = "enum"
		x := sext()
		v.Text = strconv.FormatInt(x, 10)
		for _, e := range tt.Val {
			if e.Val == x {
				v.Text = e.Name
			}
		}
	case *dwarf.PtrType:
		v.Kind = "pointer"
		v.Text = fmt.Sprintf("%#x", u)
		if u == 0 || mem == nil || depth >= maxDepth {
			break
		}
		target := resolve(tt.Type)
		switch target.(type) {
		case *dwarf.CharType, *dwarf.UcharType:
			if s, err := f.readCString(mem, u, 200); err == nil {
				v.Text += " " + cQuote([]byte(s))
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
	case *dwarf.StructType:
		v.Kind = "struct"
		var parts []string
		for _, fld := range tt.Field {
			off := int(fld.ByteOffset)
			sz := int(fld.Type.Size())
			if off < 0 || sz < 0 || off+sz > n {
				continue
			}
			c := f.FormatValue(fld.Type, b[off:off+sz], addr+uint64(off), inMem, mem, depth+1)
			if fld.BitSize > 0 {
				c = f.bitfield(fld, b[off:off+sz], c)
			}
			c.Name = fld.Name
			v.Children = append(v.Children, c)
			parts = append(parts, fld.Name+" = "+c.Text)
		}
		v.Text = "{" + strings.Join(parts, ", ") + "}"
	case *dwarf.ArrayType:
		v.Kind = "array"
		es := int(tt.Type.Size())
		if es <= 0 {
			v.Kind, v.Text = "raw", fmt.Sprintf("%x", b)
			break
		}
		cnt := n / es
		var parts []string
		for i := 0; i < cnt && i < maxArrayChildren; i++ {
			c := f.FormatValue(tt.Type, b[i*es:(i+1)*es], addr+uint64(i*es), inMem, mem, depth+1)
			c.Name = fmt.Sprintf("[%d]", i)
			v.Children = append(v.Children, c)
			parts = append(parts, c.Text)
		}
		if cnt > maxArrayChildren {
			parts = append(parts, "...")
		}
		v.Text = "{" + strings.Join(parts, ", ") + "}"
		if isChar(tt.Type) {
			v.Text = cQuote(b)
		}
	default:
		v.Kind = "raw"
		v.Text = fmt.Sprintf("%x", b)
	}
	return v
}

func (f *File) bitfield(fld *dwarf.StructField, b []byte, c Value) Value {
	u := uintFrom(b, f.Arch)
	var shift int64
	if fld.DataBitOffset > 0 || fld.BitOffset == 0 {
		shift = fld.DataBitOffset - 8*fld.ByteOffset
	} else {
		shift = 8*int64(len(b)) - fld.BitOffset - fld.BitSize
	}
	if shift < 0 || shift >= 64 {
		return c
	}
	u = (u >> uint(shift)) & (1<<uint(fld.BitSize) - 1)
	c.Text = strconv.FormatUint(u, 10)
	return c
}

// cQuote quotes a C string as gdb prints it: up to the first NUL (all of it if there is
// none), octal escapes for what is not printable.
func cQuote(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	var sb strings.Builder
	sb.WriteByte('"')
	for _, c := range b {
		switch {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c >= 0x20 && c < 0x7f:
			sb.WriteByte(c)
		default:
			fmt.Fprintf(&sb, "\\%03o", c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

func isChar(t dwarf.Type) bool {
	switch resolve(t).(type) {
	case *dwarf.CharType, *dwarf.UcharType:
		return true
	}
	return false
}

func charLit(c byte) string {
	switch {
	case c == '\'':
		return `'\''`
	case c >= 0x20 && c < 0x7f:
		return "'" + string(rune(c)) + "'"
	case c == 0:
		return `'\000'`
	case c == '\n':
		return `'\n'`
	case c == '\t':
		return `'\t'`
	}
	return fmt.Sprintf(`'\%03o'`, c)
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

// IntKind reports whether t (through typedefs and qualifiers) is an integer-like type
// (integers, chars, bools, enums, pointers) and whether it is signed.
func IntKind(t dwarf.Type) (isInt, signed bool) {
	switch resolve(t).(type) {
	case *dwarf.IntType, *dwarf.CharType:
		return true, true
	case *dwarf.EnumType:
		return true, true
	case *dwarf.UintType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.PtrType:
		return true, false
	}
	return false, false
}

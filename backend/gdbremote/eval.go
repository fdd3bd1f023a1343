package gdbremote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// evaluator evaluates expressions on the host in one frame: variables with field, index
// and dereference paths, registers, numbers, and conditions.
type evaluator struct {
	t    *Target
	fr   *elfsym.Frame
	pure bool // may not run the program's code (a call of one of its functions)
	// typeOnly asks the type of the value only: a call is its function's return type, not run.
	typeOnly bool
	// scratch is how much of the stack's scratch zone (below the red zone, above a called
	// function's frame: call.go) the expression's temporaries use.
	scratch int64
}

// value evaluates name, name.f, name[i], name->f, *name, &name..., $reg or a number.
func (e *evaluator) value(expr string) (elfsym.Value, error) {
	if expr == "" {
		return elfsym.Value{}, fmt.Errorf("empty expression")
	}
	if obj, ok := strings.CutPrefix(expr, "&"); ok { // the address of an object in memory
		v, err := e.value(strings.TrimSpace(obj))
		if err != nil {
			return v, err
		}
		a, err := e.t.sym.AddressOf(v, cachedMem{e.t})
		a.Name = expr
		return a, err
	}
	if _, err := strconv.ParseInt(expr, 0, 64); err == nil { // typed as C types a literal: -1 is an int
		return e.arith(expr)
	}
	if rest, ok := isSiginfo(expr); ok {
		v, err := e.siginfo()
		if errors.Is(err, errNoSiginfo) {
			return elfsym.Value{Name: expr, Type: "void", Kind: "void", Text: "void"}, nil // gdb's
		}
		if err != nil {
			return v, err
		}
		return e.walk(v, rest, expr)
	}
	if rest, ok := strings.CutPrefix(expr, "$_exception"); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
		v, err := e.exception()
		if err != nil {
			return v, err
		}
		return e.walk(v, rest, expr)
	}
	if expr[0] == '$' {
		if i := strings.IndexAny(expr, ".["); i > 0 { // $xmm0.v4_float[1]: a register's member
			v, err := e.register(expr[:i])
			if err != nil {
				return v, err
			}
			return e.walk(v, expr[i:], expr)
		}
		if name, rest := ident(expr[1:]); name == "" || rest != "" { // $_streq(a, b), $x + 1: C
			return elfsym.Value{}, fmt.Errorf("cannot evaluate %q", expr)
		}
		return e.register(expr)
	}
	if file, rest, ok := strings.Cut(expr, "'::"); ok && file != "" && file[0] == '\'' { // 'file.c'::name
		file = file[1:]
		i := nameEnd(rest, 0)
		if !e.t.sym.HasSourceFile(file) {
			return elfsym.Value{}, fmt.Errorf("No symbol %q in current context.", file)
		}
		v, ok := e.t.sym.FileGlobal(file, rest[:i])
		if !ok {
			return elfsym.Value{}, fmt.Errorf("No symbol %q in specified context.", rest[:i])
		}
		val, err := e.t.sym.ReadVar(v, e.fr, cachedMem{e.t})
		if err != nil {
			return val, err
		}
		return e.walk(val, rest[i:], expr)
	}
	if strings.Contains(expr, "(") { // (*p).f, (s).a[1]: through the places of setvar.go
		if p, err := parsePath(expr); err == nil {
			return e.t.readPath(e.fr, p, expr)
		}
	}
	deref := strings.HasPrefix(expr, "*")
	path := strings.TrimPrefix(expr, "*")
	i := nameEnd(path, 0)
	name, rest := path[:i], path[i:]
	if name == "" {
		return elfsym.Value{}, fmt.Errorf("cannot evaluate %q", expr)
	}
	v, err := e.t.sym.LookupVar(lookupPC(e.fr), name)
	fr := e.fr
	if err != nil {
		if m, ok := e.thisMember(name); ok { // in a C++ method, w_ is this->w_
			return e.walk(m, rest, expr)
		}
		var scoped bool
		if v, fr, scoped, err = e.funcScopeVar(name, err); !scoped || err != nil {
			return elfsym.Value{}, err
		}
	}
	val, err := e.t.sym.ReadVar(v, fr, cachedMem{e.t})
	if err != nil {
		return val, err
	}
	if val, err = e.walk(val, rest, expr); err != nil {
		return val, err
	}
	if deref {
		if val, err = child(val, "*"); err != nil {
			return val, err
		}
		val.Name = expr
	}
	return val, nil
}

// funcScopeVar reads gdb's FUNCTION::NAME, a variable of a function's outermost scope:
// a static one anywhere, another in the innermost frame running the function. scoped is
// false (and notFound the error) when name is not of that form or FUNCTION is no function.
func (e *evaluator) funcScopeVar(name string, notFound error) (v *elfsym.Var, fr *elfsym.Frame, scoped bool, err error) {
	i := strings.LastIndex(name, "::")
	if i <= 0 {
		return nil, nil, false, notFound
	}
	fnName := name[:i]
	if _, ok := e.t.sym.LastOverload(fnName); !ok {
		if !e.t.sym.CXXAt(lookupPC(e.fr)) && !strings.Contains(fnName, "::") { // C has no namespaces: the function is what is missing
			return nil, nil, false, fmt.Errorf("No symbol %q in current context.", fnName)
		}
		return nil, nil, false, notFound
	}
	v, fn, err := e.t.sym.FuncScopeVar(fnName, name[i+2:])
	if err != nil || !v.NeedsFrame() {
		return v, nil, true, err
	}
	if !e.t.started() {
		return nil, nil, true, errors.New("No frame selected.")
	}
	frames, err := e.t.frames()
	if err != nil {
		return nil, nil, true, err
	}
	for i := range frames { // from the selected frame out, as gdb's block_innermost_frame
		if i >= e.fr.Index && frames[i].Func == fn && frames[i].Inline() == nil {
			return v, &frames[i], true, nil
		}
	}
	return nil, nil, true, fmt.Errorf("No frame is currently executing in block %s.", fnName)
}

// thisMember is, in a C++ method, the member name of the object this points to (its
// bases' and its class's static members too).
func (e *evaluator) thisMember(name string) (elfsym.Value, bool) {
	obj, ok := e.thisObject()
	if !ok || strings.Contains(name, "::") {
		return elfsym.Value{}, false
	}
	return member(obj, name)
}

// thisObject is, in a C++ method, the object this points to.
func (e *evaluator) thisObject() (elfsym.Value, bool) {
	if e.fr != nil && e.fr.Func != nil && !e.fr.Func.IsCXX() {
		return elfsym.Value{}, false // (C has no this: not looked for in the libraries either)
	}
	v, err := e.t.sym.LookupVar(lookupPC(e.fr), "this")
	if err != nil {
		return elfsym.Value{}, false
	}
	this, err := e.t.sym.ReadVar(v, e.fr, cachedMem{e.t})
	if err != nil {
		return elfsym.Value{}, false
	}
	obj, err := child(this, "*")
	return obj, err == nil
}

// walk reads the members and elements rest names (.f, ->f, [i]) of val, expr's value.
func (e *evaluator) walk(val elfsym.Value, rest, expr string) (elfsym.Value, error) {
	var err error
	for rest != "" {
		var key string
		switch {
		case strings.HasPrefix(rest, "->"):
			if d, derr := child(val, "*"); derr == nil {
				val = d
			} else if r := val.Referred(); r.Kind != "struct" && r.Kind != "union" { // (s->f of a struct s is s.f, as gdb's)
				return d, derr
			}
			rest = rest[2:]
			key, rest = ident(rest)
		case rest[0] == '.':
			key, rest = ident(rest[1:])
		case rest[0] == '[':
			j := strings.IndexByte(rest, ']')
			if j < 0 {
				return val, fmt.Errorf("missing ] in %q", expr)
			}
			idx := strings.TrimSpace(rest[1:j])
			if n, err := strconv.Atoi(idx); err == nil {
				idx = strconv.Itoa(n)
			}
			key, rest = "["+idx+"]", rest[j+1:]
		default:
			return val, fmt.Errorf("cannot evaluate %q", expr)
		}
		if val, err = child(val, key); err != nil {
			return val, err
		}
	}
	val.Name = expr
	return val, nil
}

// isIdentByte reports whether c may be part of a C identifier.
func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func ident(s string) (string, string) {
	i := 0
	for i < len(s) && isIdentByte(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func child(v elfsym.Value, key string) (elfsym.Value, error) {
	v = v.Referred()
	if c, ok := member(v, key); ok {
		return c, nil
	}
	if key == "*" {
		if v.Kind == "pointer" && (v.Text == "0x0" || strings.HasPrefix(v.Text, "0x0 ")) {
			return v, errors.New("Cannot access memory at address 0x0") // gdb's words
		}
		return v, errors.New("Attempt to take contents of a non-pointer value.") // gdb's words
	}
	switch {
	case strings.HasPrefix(key, "["):
	case v.Kind == "struct" && v.IsCXX(): // gdb's words
		return v, fmt.Errorf("There is no member or method named %s.", key)
	case v.Kind == "struct":
		return v, fmt.Errorf("There is no member named %s.", key)
	default:
		return v, errors.New("Attempt to extract a component of a value that is not a structure.")
	}
	return v, fmt.Errorf("%s has no %s", v.Name, key)
}

// member is v's child named key, or its base classes' (C++: a Square's w_ is its Shape's).
func member(v elfsym.Value, key string) (elfsym.Value, bool) {
	for _, c := range v.Children {
		if c.Name == key {
			return c, true
		}
	}
	for _, c := range v.Children { // a base class's members, an anonymous union's or struct's
		if (strings.HasPrefix(c.Name, "<") || c.Name == "") && c.Kind == "struct" {
			if m, ok := member(c, key); ok {
				return m, true
			}
		}
	}
	return elfsym.Value{}, false
}

// number extracts an integer from a formatted value ("42", "112 'p'", "true", "0x10").
func number(v elfsym.Value) (int64, error) {
	if v.Kind == "complex" { // C's arithmetic evaluates it
		return 0, errNotInteger
	}
	if (v.Kind == "int" || v.Kind == "uint") && len(v.Bytes) > 8 { // __int128
		return 0, errors.New("That operation is not available on integers of more than 8 bytes.") // gdb's
	}
	s := v.Text
	if f := strings.Fields(s); len(f) > 0 {
		s = f[0]
	}
	switch s {
	case "true":
		return 1, nil
	case "false":
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 0, 64); err == nil {
		return n, nil
	}
	if n, err := strconv.ParseUint(s, 0, 64); err == nil {
		return int64(n), nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return int64(f), nil
	}
	return 0, fmt.Errorf("%s (%s) is not a number", v.Name, v.Type)
}

// isRegister reports whether $name names a register of the target: by its description,
// its DWARF numbering, gdb's $pc, $sp and $fp, a part of one ($eax) or a pseudo register.
func (e *evaluator) isRegister(name string) bool {
	if _, ok := e.t.desc.Reg(name); ok {
		return true
	}
	if _, ok := e.t.sym.Arch.RegNum(name); ok {
		return true
	}
	if _, ok := e.t.desc.Pseudo(name); ok {
		return true
	}
	_, sub := x86SubRegisters[name]
	return sub || name == "pc" || name == "sp" || name == "fp"
}

// register reads $NAME in the frame: a register by its name, or gdb's $pc, $sp and $fp.
// As in gdb, $pc (and a register the target describes as code_ptr, $rip) is a code
// pointer, $sp and $fp (and a data_ptr, $rsp) data pointers, the others longs.
func (e *evaluator) register(expr string) (elfsym.Value, error) {
	if v, ok := e.t.historyValue(expr); ok { // $1, $v: a value a front end kept whole
		return v, nil
	}
	name, arch := expr[1:], e.t.sym.Arch
	if !e.t.started() && e.isRegister(name) { // before run there is the file only, as gdb says
		return elfsym.Value{}, errors.New("No registers.")
	}
	if !e.isRegister(name) { // a convenience variable never set: void, as gdb's ($_isvoid($x) is 1)
		return elfsym.Value{Name: expr, Type: "void", Kind: "void", Text: "void"}, nil
	}
	kind := ""
	switch name {
	case "pc":
		kind = name
		if r, ok := e.t.desc.PCReg(); ok {
			name = r.Name
		}
	case "sp", "fp":
		kind = name
		if n := map[string]int{"sp": arch.SP, "fp": arch.FP}[name]; n >= 0 && arch.RegName(n) != "" {
			name = arch.RegName(n)
		}
	}
	if r, ok := e.t.desc.Reg(name); ok && kind == "" { // $rip, $rsp: typed as the target describes them
		kind = map[string]string{"code_ptr": "pc", "data_ptr": "sp"}[r.Type]
	}
	if r, ok := e.t.desc.Reg(name); ok && e.fr.Index == 0 && kind == "" {
		if v, ok, err := e.describedRegister(expr, r); ok || err != nil { // a vector, flags, x87's float
			return v, err
		}
	}
	if p, ok := e.t.desc.Pseudo(name); ok && e.fr.Index == 0 { // $ymm0, $zmm0
		b, err := e.t.pseudoBytes(p)
		if err != nil {
			return elfsym.Value{}, err
		}
		return e.typedRegister(expr, p.Type, b), nil
	}
	var v uint64
	found := false
	if n, ok := arch.RegNum(name); ok {
		v, found = e.fr.Register(n)
	}
	if !found && e.fr.Index == 0 {
		if r, ok := e.t.desc.Reg(name); ok {
			b, err := e.t.reg(r.Num)
			if err != nil {
				return elfsym.Value{}, err
			}
			v, found = Uint(b, e.t.order), true
		}
	}
	if !found {
		if sub, ok := x86SubRegisters[name]; ok && e.t.desc.Arch == "i386:x86-64" { // $eax, $ax, $al
			w, err := e.register("$" + sub.of)
			if err != nil {
				return elfsym.Value{}, err
			}
			u := Uint(w.Bytes, e.t.order) >> sub.shift
			shift := 64 - 8*uint(sub.size)
			n := int64(u<<shift) >> shift
			return elfsym.Value{Name: expr, Type: sub.ctype, Kind: "int", Bytes: w.Bytes[:sub.size], Text: strconv.FormatInt(n, 10)}, nil
		}
		return elfsym.Value{}, fmt.Errorf("no register %s", expr)
	}
	b := make([]byte, arch.PtrSize)
	for i := range b { // the register's word, in the target's order
		if arch.ByteOrder == binary.BigEndian {
			b[len(b)-1-i] = byte(v >> (8 * i))
		} else {
			b[i] = byte(v >> (8 * i))
		}
	}
	out := elfsym.Value{Name: expr, Type: "long", Kind: "int", Bytes: b, Text: strconv.FormatInt(int64(v), 10)}
	if arch.PtrSize == 4 {
		out.Text = strconv.FormatInt(int64(int32(v)), 10)
	}
	if ptr := map[string]string{"pc": "code_ptr", "sp": "data_ptr", "fp": "data_ptr"}[kind]; ptr != "" {
		out.Text, out.Type = e.t.registerText(ptr, arch.PtrSize, v)
		out.Kind = "pointer"
	} else if r, ok := e.t.desc.Reg(name); ok { // typed as the description types it, as gdb
		switch r.Type {
		case "i386_eflags": // [ IF ZF ], a number to arithmetic and /x
			out.Text, out.Type = eflagsText(v), r.Type
		case "int64", "int32", "int16", "int8":
			out.Type = r.Type + "_t"
		}
	}
	return out, nil
}

// describedRegister is register r of a type the target description declares, or of a
// float type: its value as gdb prints it, typed as gdb types it (union vec128,
// i386_mxcsr, builtin_type_i387_ext); false for another register.
func (e *evaluator) describedRegister(expr string, r Reg) (elfsym.Value, bool, error) {
	rt := e.t.desc.Types[r.Type]
	_, float := floatFormats[r.Type]
	if rt == nil && !float {
		return elfsym.Value{}, false, nil
	}
	b, err := e.t.reg(r.Num)
	if err != nil {
		return elfsym.Value{}, true, err
	}
	return e.typedRegister(expr, r.Type, b), true, nil
}

// typedRegister is a register's value b of the description's type typ (or a float type),
// as gdb prints and types it, with its members to be read.
func (e *evaluator) typedRegister(expr, typ string, b []byte) elfsym.Value {
	text, _ := e.t.desc.DescribedText(typ, b, e.t.order, false)
	out := elfsym.Value{Name: expr, Type: typ, Kind: "struct", Bytes: b, Text: text}
	if dt := e.t.desc.dwarfType(typ, 0); dt != nil && int(dt.Size()) <= len(b) { // its members, to be read
		out.Children = e.t.sym.FormatValue(dt, b[:dt.Size()], 0, false, cachedMem{e.t}, 0).Children
	}
	switch rt := e.t.desc.Types[typ]; {
	case rt == nil:
		out.Kind, out.Type = "raw", "builtin_type_"+typ
	case rt.Kind == "union" || rt.Kind == "struct":
		out.Type = rt.Kind + " " + typ
	case rt.Kind == "flags" || rt.Kind == "enum": // a number to arithmetic and /x, as eflags
		out.Kind = "int"
	}
	return out
}

// subRegister is a part of an x86-64 register gdb names on its own: its low 32, 16 or 8
// bits, or the second byte (ah).
type subRegister struct {
	of    string
	shift uint
	size  int
	ctype string
}

// x86SubRegisters are gdb's pseudo-registers of x86-64 ($eax, $r8d, $ax, $al, $ah...).
var x86SubRegisters = func() map[string]subRegister {
	m := map[string]subRegister{}
	for _, r := range []struct{ full, d, w, l, h string }{
		{"rax", "eax", "ax", "al", "ah"}, {"rbx", "ebx", "bx", "bl", "bh"}, {"rcx", "ecx", "cx", "cl", "ch"},
		{"rdx", "edx", "dx", "dl", "dh"}, {"rsi", "esi", "si", "sil", ""}, {"rdi", "edi", "di", "dil", ""},
		{"rbp", "ebp", "bp", "bpl", ""}, {"rsp", "esp", "sp", "spl", ""},
	} {
		m[r.d], m[r.w], m[r.l] = subRegister{r.full, 0, 4, "int32_t"}, subRegister{r.full, 0, 2, "int16_t"}, subRegister{r.full, 0, 1, "int8_t"}
		if r.h != "" {
			m[r.h] = subRegister{r.full, 8, 1, "int8_t"}
		}
	}
	for i := 8; i <= 15; i++ {
		full := "r" + strconv.Itoa(i)
		m[full+"d"], m[full+"w"], m[full+"l"] = subRegister{full, 0, 4, "int32_t"}, subRegister{full, 0, 2, "int16_t"}, subRegister{full, 0, 1, "int8_t"}
	}
	return m
}()

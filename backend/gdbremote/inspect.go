package gdbremote

// Target: memory, registers, stack, scopes, variables and evaluation for a stopped target.

import (
	"bytes"
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// ReadMemory reads target memory (the target must be stopped).
func (t *Target) ReadMemory(addr uint64, n int) ([]byte, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	return t.readCached(addr, n)
}

// WriteMemory writes target memory (the target must be stopped).
func (t *Target) WriteMemory(addr uint64, data []byte) error {
	if err := t.needStopped(); err != nil {
		return err
	}
	t.cache().forget(-1, nil)
	return t.c.WriteMemory(t.ctx, addr, data)
}

// Register is one register's value.
type Register struct {
	Name    string
	Num     int
	Size    int
	Value   uint64 // the low 64 bits
	Bytes   []byte
	Natural string // as gdb prints it, by the description's type (regtext.go, regtypes.go)
	Hex     string // a vector's, as gdb's info registers shows it: each element in hex
	Float   bool   // of a floating-point type of the description
}

// Registers returns the general registers of the current thread (those in the 'g' packet).
func (t *Target) Registers() ([]Register, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	var out []Register
	for _, r := range t.desc.Regs {
		if r.Offset < 0 {
			continue
		}
		b, err := t.reg(r.Num)
		if err != nil {
			continue
		}
		if !t.cache().hasAllRegs() {
			continue
		}
		v := Uint(b, t.order)
		natural, _ := t.registerText(r.Type, r.Bitsize/8, v)
		hex := ""
		if text, ok := t.desc.DescribedText(r.Type, b, t.order, false); ok && natural == "" { // a vector, flags, a float
			natural = text
			if k := t.desc.Types[r.Type]; k != nil && (k.Kind == "vector" || k.Kind == "union" || k.Kind == "struct") {
				hex, _ = t.desc.DescribedText(r.Type, b, t.order, true)
			}
		}
		_, float := floatFormats[r.Type]
		if float {
			hex = "0x" + strings.Repeat("0", max(0, 2*len(b)+2-len(numberHex(b, t.order)))) + numberHex(b, t.order)[2:]
		}
		out = append(out, Register{Name: r.Name, Num: r.Num, Size: r.Bitsize / 8, Value: v, Bytes: b, Natural: natural, Hex: hex, Float: float})
	}
	for _, p := range t.desc.pseudos { // ymm, zmm: after the registers they are made of
		b, err := t.pseudoBytes(p)
		if err != nil {
			continue
		}
		natural, _ := t.desc.DescribedText(p.Type, b, t.order, false)
		hex, _ := t.desc.DescribedText(p.Type, b, t.order, true)
		out = append(out, Register{Name: p.Name, Num: -1, Size: len(b), Value: Uint(b[:8], t.order), Bytes: b, Natural: natural, Hex: hex})
	}
	return out, nil
}

// pseudoBytes is the value of a pseudo register: its parts' bytes, the low ones first.
func (t *Target) pseudoBytes(p Pseudo) ([]byte, error) {
	var b []byte
	for _, n := range p.Parts {
		part, err := t.reg(n)
		if err != nil {
			return nil, err
		}
		b = append(b, part...)
	}
	if len(b) < 8 {
		return nil, fmt.Errorf("gdbremote: pseudo register %s is short", p.Name)
	}
	return b, nil
}

// WriteRegister sets a register by name.
func (t *Target) WriteRegister(name string, value uint64) error {
	if err := t.needStopped(); err != nil {
		return err
	}
	r, ok := t.desc.Reg(name)
	if !ok {
		return fmt.Errorf("gdbremote: no register %q", name)
	}
	b := make([]byte, r.Bitsize/8)
	var full [8]byte
	t.order.PutUint64(full[:], value)
	if t.order == binary.BigEndian {
		copy(b[max(0, len(b)-8):], full[max(0, 8-len(b)):])
	} else {
		copy(b, full[:])
	}
	if err := t.c.WriteRegister(t.ctx, r.Num, b); err != nil {
		return err
	}
	t.cache().forget(r.Num, b)
	return nil
}

// Stack implements engine.Target.
func (t *Target) Stack() ([]engine.Frame, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	fs, err := t.frames()
	if err != nil {
		return nil, err
	}
	out := make([]engine.Frame, len(fs))
	for i, f := range fs {
		name := fmt.Sprintf("%#x", f.PC)
		switch n := f.Name(); {
		case n != "":
			name = n // an inlined copy's function for its own frame
		case f.Library != "":
			name = "?? (" + f.Library + ")" // a library function without a symbol, as gdb's ??
		}
		out[i] = engine.Frame{Index: i, Func: name, Module: f.LibraryPath, Location: engine.Location{File: f.Loc.File, Line: f.Loc.Line,
			Col: f.Loc.Column, Func: f.Loc.Function, PC: f.PC, HasPC: true}, AtInlinedCall: i > 0 && fs[i-1].Inline() != nil && !fs[i-1].TailCall}
		if f.Dummy {
			out[i] = engine.Frame{Index: i, Func: "<function called from the debugger>", Dummy: true, Location: engine.Location{PC: f.PC, HasPC: true}}
		}
	}
	return out, nil
}

func (t *Target) newRef(e refEntry) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextRef++
	t.refs[t.nextRef] = e
	return t.nextRef
}

// Scopes implements engine.Target: Locals (parameters and locals), Globals, Registers.
func (t *Target) Scopes(frame int) ([]engine.Scope, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	if _, err := t.frame(frame); err != nil {
		return nil, err
	}
	return []engine.Scope{
		{Name: "Locals", Ref: t.newRef(refEntry{frame: frame, kind: "locals"})},
		{Name: "Globals", Ref: t.newRef(refEntry{frame: frame, kind: "globals"})},
		{Name: "Registers", Ref: t.newRef(refEntry{frame: frame, kind: "registers"})},
	}, nil
}

// lookupPC is where variables of frame fr are looked up (the call, for callers).
func lookupPC(fr *elfsym.Frame) uint64 { return fr.LookupPC() }

// Variables implements engine.Target.
func (t *Target) Variables(ref int) ([]engine.Variable, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	e, ok := t.refs[ref]
	t.mu.Unlock()
	if !ok {
		return nil, engine.ErrNoVariable
	}
	switch e.kind {
	case "locals", "globals":
		fr, err := t.frame(e.frame)
		if err != nil {
			return nil, err
		}
		var vars []*elfsym.Var
		nparams := 0
		if e.kind == "locals" {
			params, locals, err := t.sym.FrameVarsOf(fr)
			if err != nil {
				return nil, err
			}
			// as gdb's info locals: the innermost block's locals first
			slices.SortStableFunc(locals, func(a, b *elfsym.Var) int { return b.Depth - a.Depth })
			vars, nparams = append(params, locals...), len(params)
		} else {
			vars = t.sym.Globals()
			sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
		}
		out := make([]engine.Variable, 0, len(vars))
		for i, v := range vars {
			val, _ := t.sym.ReadVar(v, fr, cachedMem{t})
			root := v.Name
			if e.kind == "globals" {
				root = globalRoot + root // a local of the same name must not be found instead
			}
			ev := t.pathVariable(e.frame, val, []string{root})
			ev.Arg = i < nparams
			ev.Constant, ev.ConstantBytes = v.Constant()
			out = append(out, ev)
		}
		return out, nil
	case "registers":
		fr, err := t.frame(e.frame)
		if err != nil {
			return nil, err
		}
		var out []engine.Variable
		if e.frame == 0 {
			regs, err := t.Registers()
			if err != nil {
				return nil, err
			}
			for _, r := range regs {
				out = append(out, engine.Variable{Name: r.Name, Value: fmt.Sprintf("%#x", r.Value), Type: fmt.Sprintf("uint%d", 8*r.Size)})
			}
			return out, nil
		}
		regs := fr.Regs()
		nums := make([]int, 0, len(regs))
		for n := range regs {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			if name := t.sym.Arch.RegName(n); name != "" {
				out = append(out, engine.Variable{Name: name, Value: fmt.Sprintf("%#x", regs[n])})
			}
		}
		return out, nil
	case "value":
		out := make([]engine.Variable, 0, len(e.val.Children))
		for _, c := range e.val.Children {
			var path []string
			if e.path != nil {
				path = append(slices.Clone(e.path), c.Name)
			}
			out = append(out, t.pathVariable(e.frame, c, path))
		}
		return out, nil
	}
	return nil, engine.ErrNoVariable
}

// pathVariable is variable for a value read from a variable through path (its name and
// the members, elements or "*" below), so that its children can be set.
func (t *Target) pathVariable(frame int, v elfsym.Value, path []string) engine.Variable {
	ev := engine.Variable{Name: v.Name, Value: v.Text, Type: v.Type}
	if keptWhole(v) {
		ev.Kept = &v
	}
	if len(v.Children) > 0 {
		ev.Ref = t.newRef(refEntry{frame: frame, kind: "value", val: v, path: path})
		ev.Len = len(v.Children)
	}
	return ev
}

// Evaluate implements engine.Target: a variable (name, name.field, name[i], *name), a
// register ($pc, $sp, $rax...), a number, or a condition (comparisons with and/or).
func (t *Target) Evaluate(frame int, expr string, mode engine.EvalMode) (engine.Variable, error) {
	if err := t.needStopped(); err != nil {
		return engine.Variable{}, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Variable{}, err
	}
	ev := &evaluator{t: t, fr: fr, pure: mode.Pure, typeOnly: mode.TypeOnly}
	v, err := ev.value(strings.TrimSpace(expr))
	if err == nil {
		path, _ := parsePath(expr)
		out := t.pathVariable(frame, v, path)
		out.Name = expr
		return out, nil
	}
	if n, perr := parseCond(expr); perr == nil && n.op != "" { // a comparison: C's truth, 1 or 0 (not "(10)")
		if truth, cerr := ev.eval(n); cerr == nil {
			if t.sym.CXXAt(lookupPC(fr)) { // C++'s bool
				return engine.Variable{Name: expr, Value: strconv.FormatBool(truth), Type: "bool"}, nil
			}
			return engine.Variable{Name: expr, Value: strconv.FormatInt(bool01(truth).i, 10), Type: "int"}, nil
		}
	}
	v, err = ev.arith(strings.TrimSpace(expr)) // C arithmetic: x + 1, a->x - b->x, arr[i]
	if err != nil {
		return engine.Variable{}, err
	}
	out := t.pathVariable(frame, v, nil)
	out.Name = expr
	return out, nil
}

type refEntry struct {
	frame int
	kind  string // "locals", "globals", "registers", "value"
	val   elfsym.Value
	path  []string // for "value": the variable and keys it was read through (nil: not settable); a global's name starts with globalRoot
}

// DescribeType implements engine.TypeDescriber from the program's DWARF types.
func (t *Target) DescribeType(name string, expand bool) (string, error) {
	typ, err := t.sym.ParseType(name) // a name with its *s: struct pt *, unsigned long
	if err != nil {
		return "", err
	}
	return elfsym.DescribeType(typ, expand), nil
}

// DescribeExprType implements engine.ExprTypeDescriber: the DWARF type of the value expr
// reads in the frame (pure: nothing of the program runs).
func (t *Target) DescribeExprType(frame int, expr string, expand bool) (string, error) {
	typ, err := t.exprType(frame, expr)
	if errors.Is(err, errNoDebugFunc) { // puts, known by its symbol alone: gdb's words
		if expand {
			return "<unknown return type> ()", nil
		}
		return "<text variable, no debug info>", nil
	}
	if errors.Is(err, errNoDebugData) {
		return elfsym.NoDebugDataType, nil
	}
	if err != nil {
		return "", err
	}
	if !expand { // whatis: the type's name as the program says it, a typedef's too
		return elfsym.TypeName(typ), nil
	}
	return elfsym.DescribeType(typ, expand), nil
}

// errNoDebugFunc says an expression is a function known by its symbol alone: it has no type.
var errNoDebugFunc = errors.New("a function without debug information has no type")

// errNoDebugData says an expression is a variable known by its symbol alone.
var errNoDebugData = errors.New("a variable without debug information has no type")

// exprType is the DWARF type of the value expr reads in the frame (pure).
func (t *Target) exprType(frame int, expr string) (dwarf.Type, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return nil, err
	}
	ev := &evaluator{t: t, fr: fr, pure: true, typeOnly: true}
	v, err := ev.value(strings.TrimSpace(expr))
	if err != nil {
		if v, err = ev.arith(strings.TrimSpace(expr)); err != nil {
			return nil, err
		}
	}
	if v.DWARFType() == nil && v.Kind == "void" { // a call of a function that returns nothing
		return &dwarf.VoidType{}, nil
	}
	if v.DWARFType() == nil && v.Kind == "func" {
		return nil, errNoDebugFunc
	}
	if v.DWARFType() == nil && v.Kind == "nodebug" {
		return nil, errNoDebugData
	}
	if v.DWARFType() == nil {
		return nil, fmt.Errorf("%s has no type of the program: %w", expr, engine.ErrUnsupported)
	}
	return v.DWARFType(), nil
}

// SymbolAt implements engine.Symbolizer from the program's symbol table.
func (t *Target) SymbolAt(addr uint64) (name, section string, ok bool) {
	return t.symbolAt(addr, t.sym.SymbolAt)
}

// TableSymbolAt implements engine.TableSymbolizer: a clone by its own symbol.
func (t *Target) TableSymbolAt(addr uint64) (name, section string, ok bool) {
	return t.symbolAt(addr, t.sym.TableSymbolAt)
}

// symbolAt is addr named by name, with the section it is in.
func (t *Target) symbolAt(addr uint64, named func(uint64) (string, bool)) (name, section string, ok bool) {
	addr = t.sym.LoadedAddress(addr) // (before run, a file's address)
	name, ok = named(addr)
	img := t.sym
	if t.sym.SectionAt(addr) == "" {
		img = t.sym.ImageAt(addr) // a loaded library's
	}
	section = img.SectionAt(addr)
	if img.Bias != 0 && img.Path != "" { // a position-independent program or a library, as gdb says it
		section += " of " + img.Path
	}
	return name, section, ok
}

// EnumeratorValue implements engine.Enumerators from the program's enumerations.
func (t *Target) EnumeratorValue(name string) (int64, bool) {
	_, n, ok := t.sym.Enumerator(name)
	return n, ok
}

// LineCode implements engine.LineTabler.
func (t *Target) LineCode(file string, line int) (engine.LineCode, error) {
	lc, err := t.sym.LineCodeOf(file, line)
	return engine.LineCode(lc), err
}

// LineCodeAt implements engine.LineTabler.
func (t *Target) LineCodeAt(pc uint64) (engine.LineCode, error) {
	lc, err := t.sym.LineCodeAt(t.clearThumb(pc))
	return engine.LineCode(lc), err
}

// FrameInfo implements engine.FrameDescriber from the unwound stack.
func (t *Target) FrameInfo(i int) (engine.FrameInfo, error) {
	fs, err := t.frames()
	if err != nil {
		return engine.FrameInfo{}, err
	}
	if i < 0 || i >= len(fs) {
		return engine.FrameInfo{}, engine.ErrNoFrame
	}
	fr, a := &fs[i], t.sym.Arch
	u, _ := t.sym.Unit(fr)
	info := engine.FrameInfo{CFA: fr.CFA, PC: fr.PC, PCName: a.RegName(a.PC), Language: u.Language,
		Unit: engine.SourceUnit{Name: u.Name, CompDir: u.CompDir, Producer: u.Producer, DWARFVersion: u.Version, Macros: u.Macros}}
	if info.PCName == "" {
		info.PCName = "pc"
	}
	info.SPName = a.RegName(a.SP)
	if fr.Inline() != nil && !fr.TailCall && i+1 < len(fs) { // no frame of its own: where its function returns
		info.Inlined, info.InlinedInto = true, i+1
		if p := physicalFrame(fs[i:]) + i; p+1 < len(fs) {
			info.SavedPC = fs[p+1].PC // (its function's frame's caller: a tail call frame too)
		}
		return info, nil
	}
	if fr.TailCall { // its frame is gone: where it returns is its caller's return address
		info.TailCall = true
		for k := i + 1; k < len(fs); k++ {
			if fs[k].PC != fs[i+1].PC {
				info.SavedPC = fs[k].PC
				break
			}
		}
		return info, nil
	}
	if a.FP >= 0 {
		info.Base, _ = fr.Register(a.FP)
		if t.desc.Arch == "i386:x86-64" {
			start := fr.SymbolAddr // a library's function, by its symbol
			if fr.Func != nil {
				start = fr.Func.Start()
			}
			info.Base = t.amd64FrameBase(fr, start)
		}
	}
	saved := t.sym.SavedRegisters(fr, cachedMem{t})
	switch ra, ok := saved[a.RA]; {
	case i+1 < len(fs):
		info.SavedPC = fs[i+1].PC
	case ok: // the outermost frame shown (main): its return address, into the C library
		if b, err := t.ReadMemory(ra, a.PtrSize); err == nil && len(b) == a.PtrSize {
			info.SavedPC = Uint(b, a.ByteOrder)
		}
	}
	nums := make([]int, 0, len(saved))
	for n := range saved {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	tailCaller := i+1 < len(fs) && fs[i+1].TailCall // (whose return address is not saved by this frame, as gdb says)
	for _, n := range nums {
		if tailCaller && n == a.RA {
			continue
		}
		if name := a.RegName(n); name != "" {
			info.Saved = append(info.Saved, engine.SavedRegister{Name: name, Addr: saved[n]})
		}
	}
	return info, nil
}

// amd64FrameBase is where gdb's info frame says an x86-64 function's arguments and locals
// are (gdb's amd64 prologue analysis of the function starting at start, 0 when unknown):
// its frame pointer once its prologue has set it ("push %rbp; mov %rsp,%rbp", after an
// endbr64), else its stack pointer less the return address's 8 bytes, or the stack
// pointer itself when the function begins by pushing %rbp without setting it.
func (t *Target) amd64FrameBase(fr *elfsym.Frame, start uint64) uint64 {
	a := t.sym.Arch
	sp, _ := fr.Register(a.SP)
	if start == 0 {
		return sp - 8
	}
	code, err := t.ReadMemory(start, 8)
	if err != nil || len(code) < 8 {
		return sp - 8
	}
	if bytes.HasPrefix(code, []byte{0xf3, 0x0f, 0x1e, 0xfa}) { // endbr64
		start += 4
		if code, err = t.ReadMemory(start, 4); err != nil || len(code) < 4 {
			return sp - 8
		}
	}
	if code[0] != 0x55 { // push %rbp
		return sp - 8
	}
	if (bytes.HasPrefix(code[1:], []byte{0x48, 0x89, 0xe5}) || bytes.HasPrefix(code[1:], []byte{0x48, 0x8b, 0xec})) &&
		fr.LookupPC() >= start+4 {
		bp, _ := fr.Register(a.FP)
		return bp
	}
	return sp
}

// SourceName implements engine.SourceNamer.
func (t *Target) SourceName(file string) string { return t.sym.SourceName(file) }

// DescribeOffsets implements engine.OffsetDescriber: the layout of the struct or union a
// type name names, or of expr's type in the frame.
func (t *Target) DescribeOffsets(frame int, expr string) (string, error) {
	typ, err := t.sym.ParseType(expr)
	if err != nil {
		var verr error
		if typ, verr = t.exprType(frame, expr); verr != nil {
			return "", err
		}
	}
	text, ok := elfsym.DescribeOffsets(typ)
	if !ok {
		return "type = " + elfsym.DescribeType(typ, true), nil
	}
	return text, nil
}

// FileInfo implements engine.FileDescriber from the unit whose primary source file is.
func (t *Target) FileInfo(file string) (engine.FrameInfo, bool) {
	u, ok := t.sym.UnitOfFile(file)
	if !ok {
		return engine.FrameInfo{}, false
	}
	return engine.FrameInfo{Language: u.Language,
		Unit: engine.SourceUnit{Name: u.Name, CompDir: u.CompDir, Producer: u.Producer, DWARFVersion: u.Version, Macros: u.Macros}}, true
}

// AddressOf implements engine.AddressEvaluator: expr's value as an address, from its
// bytes (a pointer's, an integer's), a function's or an array's place.
func (t *Target) AddressOf(frame int, expr string) (uint64, error) {
	if err := t.needStopped(); err != nil {
		return 0, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return 0, err
	}
	op, p, err := runArith(&evaluator{t: t, fr: fr, pure: true}, strings.TrimSpace(expr), false)
	if err != nil {
		return 0, err
	}
	n, err := p.number(op)
	switch {
	case err != nil:
		return 0, err
	case n.kind == "float":
		return 0, fmt.Errorf("%s is not an address", expr)
	case n.kind == "uint":
		return n.u, nil
	}
	return uint64(n.i), nil
}

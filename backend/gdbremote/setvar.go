package gdbremote

// Changing variables of a stopped program: engine.VariableSetter over elfsym's places.

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// SetVariable implements engine.VariableSetter: a C scalar, pointer, enum, bool, char,
// float, struct member, array element or bit field, wherever DWARF places it. The value is
// a C literal (42, -1, 0x10, 'a', 2.5, true, an enumerator), what the evaluator reads
// (another variable, a member, a register) or arithmetic over them (setvalue.go). With ref 0, name is an lvalue: x, s.f,
// p->f, a[2], *p.
func (t *Target) SetVariable(frame, ref int, name, valueExpr string) (engine.Variable, error) {
	if err := t.needStopped(); err != nil {
		return engine.Variable{}, err
	}
	var path []string
	global := false
	if ref != 0 {
		t.mu.Lock()
		e, ok := t.refs[ref]
		t.mu.Unlock()
		if !ok {
			return engine.Variable{}, engine.ErrNoVariable
		}
		frame = e.frame
		switch e.kind {
		case "registers":
			return t.setRegisterVar(frame, name, valueExpr)
		case "locals", "globals":
			path, global = []string{name}, e.kind == "globals"
		case "value":
			if e.path == nil {
				return engine.Variable{}, fmt.Errorf("%s was not read from a variable: it cannot be set", name)
			}
			path = append(slices.Clone(e.path), name)
		}
	} else {
		if reg, ok := strings.CutPrefix(name, "$"); ok {
			return t.setRegisterVar(frame, reg, valueExpr)
		}
		var err error
		if path, err = parsePath(name); err != nil {
			if !strings.HasPrefix(strings.TrimSpace(name), "*") && !strings.Contains(name, "::") && !strings.Contains(name, ".*") {
				return engine.Variable{}, err
			}
			return t.setThroughPointer(frame, name, valueExpr) // *(int *)&counter = 2, fact::calls = 0 (in memory)
		}
	}
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Variable{}, err
	}
	p, err := t.place(fr, path, global)
	if err != nil {
		if ref == 0 { // a base class's member (d.a), base->derived_member: the evaluator finds it
			v, serr := t.setThroughPointer(frame, name, valueExpr)
			if serr == nil || !errors.Is(serr, errNotLvalue) {
				return v, serr // (the evaluator's error, in gdb's words)
			}
		}
		return engine.Variable{}, err
	}
	if err := t.store(fr, p, valueExpr); err != nil {
		return engine.Variable{}, err
	}
	// Read it back from the target, through a fresh unwind (a register may have changed).
	if fr, err = t.frame(frame); err != nil {
		return engine.Variable{}, err
	}
	if p, err = t.place(fr, path, global); err != nil {
		return engine.Variable{}, err
	}
	return t.readBack(frame, fr, p, name, path)
}

// setThroughPointer sets what a pointer expression points to, as gdb's set var *EXPR =
// VALUE does for any pointer the program's types describe (*(int *)&counter = 2, *(p + 1)
// = 0): the place is where the pointer points, of the type it points to.
func (t *Target) setThroughPointer(frame int, lhs, valueExpr string) (engine.Variable, error) {
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Variable{}, err
	}
	ev := &evaluator{t: t, fr: fr}
	target, err := ev.arith(strings.TrimSpace(lhs))
	if err != nil {
		return engine.Variable{}, err
	}
	if target.Kind == "nodebug" { // *&counter: no type to convert the value to
		return engine.Variable{}, errors.New("Invalid cast.")
	}
	if !target.InMemory || !target.Typed() {
		return engine.Variable{}, errNotLvalue
	}
	p := elfsym.Place{Name: lhs, Loc: elfsym.Loc{Kind: elfsym.LocMemory, Addr: target.Addr}, Type: target.DWARFType()}
	if err := t.store(fr, p, valueExpr); err != nil {
		return engine.Variable{}, err
	}
	return t.readBack(frame, fr, p, lhs, nil)
}

// readBack is the variable at p after it was set, named name (path: what it was read
// through, for its children).
func (t *Target) readBack(frame int, fr *elfsym.Frame, p elfsym.Place, name string, path []string) (engine.Variable, error) {
	val, err := t.sym.Read(p, fr, cachedMem{t})
	val.Name = name
	if err != nil {
		return engine.Variable{}, err
	}
	return t.pathVariable(frame, val, path), nil
}

// store writes the value valueExpr gives (a constant the place's type reads, or else an
// expression computed in the frame) to the place.
func (t *Target) store(fr *elfsym.Frame, p elfsym.Place, valueExpr string) error {
	if v := strings.TrimSpace(valueExpr); v == "" || v[0] == '=' { // x =, x = = 1: gdb's parser stops there
		return syntaxError(v)
	}
	switch elfsym.Underlying(p.Type).(type) {
	case *dwarf.StructType, *dwarf.ArrayType, *elfsym.MemberPtrType: // set whole, as gdb's
		data, err := t.wholeBytes(fr, p.Type, valueExpr)
		if err != nil {
			return err
		}
		return t.sym.StoreBytes(p, data, fr, storer{t})
	case *dwarf.ComplexType:
		data, err := t.complexBytes(fr, p.Size(), valueExpr)
		if err != nil {
			return err
		}
		return t.sym.StoreBytes(p, data, fr, storer{t})
	}
	text := valueExpr
	if _, err := t.sym.Encode(p.Type, valueExpr); err != nil {
		var aerr error
		if text, aerr = t.valueText(fr, valueExpr); aerr != nil {
			return aerr
		}
	}
	return t.sym.Store(p, text, fr, cachedMem{t}, storer{t})
}

// globalRoot starts the first element of a path read from the Globals scope: that name is
// the global even where a local of the same name is in scope.
const globalRoot = "::"

// place walks path (a variable and the members, elements or "*" below it) in frame fr.
func (t *Target) place(fr *elfsym.Frame, path []string, global bool) (elfsym.Place, error) {
	var v *elfsym.Var
	var err error
	if name, ok := strings.CutPrefix(path[0], globalRoot); ok {
		path = append([]string{name}, path[1:]...)
		global = true
	}
	if global {
		var ok bool
		if v, ok = t.sym.Global(path[0]); !ok {
			err = fmt.Errorf("no global variable %q", path[0])
		}
	} else {
		v, err = t.sym.LookupVar(lookupPC(fr), path[0])
	}
	if err != nil {
		m, ok := t.dataSymbol(path[0])
		if !ok || global {
			return elfsym.Place{}, err
		}
		typ, _, declared := t.sym.ExternType(path[0]) // extern int counter; of a library's variable
		if !declared {
			return elfsym.Place{}, elfsym.UnknownTypeError(path[0]) // known by its symbol alone: no type to store by
		}
		return t.members(elfsym.Place{Name: path[0], Loc: elfsym.Loc{Kind: elfsym.LocMemory, Addr: m.Addr}, Type: typ}, path[1:], fr)
	}
	p, err := t.sym.PlaceOf(v, fr, cachedMem{t})
	if err != nil {
		return p, err
	}
	return t.members(p, path[1:], fr)
}

// members is the place of the member path names of the object at p.
func (t *Target) members(p elfsym.Place, path []string, fr *elfsym.Frame) (elfsym.Place, error) {
	var err error
	for _, k := range path {
		if err != nil {
			break
		}
		p, err = t.sym.Member(p, k, fr, cachedMem{t})
	}
	return p, err
}

// setRegisterVar sets a register shown in a Registers scope (frame 0 only).
func (t *Target) setRegisterVar(frame int, name, valueExpr string) (engine.Variable, error) {
	if frame != 0 {
		return engine.Variable{}, fmt.Errorf("only the innermost frame's registers can be set")
	}
	n, err := strconv.ParseUint(valueExpr, 0, 64)
	if err != nil {
		sn, serr := strconv.ParseInt(valueExpr, 0, 64)
		if serr != nil {
			return engine.Variable{}, fmt.Errorf("%q is not a number (decimal, 0x hex, 0o octal, 0b binary)", valueExpr)
		}
		n = uint64(sn)
	}
	if err := t.WriteRegister(name, n); err != nil {
		return engine.Variable{}, err
	}
	r, _ := t.desc.Reg(name)
	b, err := t.reg(r.Num)
	if err != nil {
		return engine.Variable{}, err
	}
	return engine.Variable{Name: name, Value: fmt.Sprintf("%#x", Uint(b, t.order)), Type: fmt.Sprintf("uint%d", r.Bitsize)}, nil
}

// storer writes memory and DWARF-numbered registers for elfsym.Store, keeping the stop's
// cache true.
type storer struct{ t *Target }

func (s storer) WriteMemory(addr uint64, data []byte) error {
	s.t.cache().forget(-1, nil)
	err := s.t.c.WriteMemory(s.t.ctx, addr, data)
	if se := (*StubError)(nil); errors.As(err, &se) { // (E01: gdb's words)
		return fmt.Errorf("Cannot access memory at address %#x", addr)
	}
	return err
}

func (s storer) WriteRegister(dwarfReg int, value uint64) error {
	name := s.t.sym.Arch.RegName(dwarfReg)
	r, ok := s.t.desc.Reg(name)
	if name == "" || !ok {
		return fmt.Errorf("DWARF register %d is not one the stub has", dwarfReg)
	}
	old, err := s.t.reg(r.Num)
	if err != nil {
		return err
	}
	b := slices.Clone(old)
	var full [8]byte
	s.t.order.PutUint64(full[:], value)
	if len(b) >= 8 {
		copy(b, full[:]) // the low 64 bits; a wider register keeps the rest
	} else {
		copy(b, full[:len(b)])
	}
	if err := s.t.c.WriteRegister(s.t.ctx, r.Num, b); err != nil {
		return err
	}
	s.t.cache().forget(r.Num, b)
	return nil
}

// errNotLvalue is gdb's error for an assignment to what is not stored anywhere (3 = 4, a
// cast).
var errNotLvalue = errors.New("Left operand of assignment is not an lvalue.")

// parsePath splits an lvalue (x, s.f, p->f, a[2], *p, combinations) into a variable and
// the keys below it, as Variables names children: field names, "[i]" and "*".
func parsePath(expr string) ([]string, error) {
	s := strings.TrimSpace(expr)
	derefs := 0
	for strings.HasPrefix(s, "*") {
		derefs++
		s = strings.TrimSpace(s[1:])
	}
	var path []string
	var rest string
	if strings.HasPrefix(s, "(") {
		depth, j := 0, -1
		for i, c := range s {
			if c == '(' {
				depth++
			} else if c == ')' {
				if depth--; depth == 0 {
					j = i
					break
				}
			}
		}
		if j < 0 {
			return nil, fmt.Errorf("missing ) in %q", expr)
		}
		inner, err := parsePath(s[1:j])
		if err != nil {
			return nil, err
		}
		path, rest = inner, s[j+1:]
	} else {
		var name string
		name, rest = ident(s)
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			return nil, errNotLvalue
		}
		path = []string{name}
	}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		var key string
		switch {
		case strings.HasPrefix(rest, "->"):
			path = append(path, "*")
			key, rest = ident(strings.TrimSpace(rest[2:]))
		case rest[0] == '.':
			key, rest = ident(strings.TrimSpace(rest[1:]))
		case rest[0] == '[':
			j := strings.IndexByte(rest, ']')
			if j < 0 {
				return nil, fmt.Errorf("missing ] in %q", expr)
			}
			n, err := strconv.ParseInt(strings.TrimSpace(rest[1:j]), 0, 32)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q is not an index in %q", rest[1:j], expr)
			}
			key, rest = "["+strconv.FormatInt(n, 10)+"]", rest[j+1:]
		default:
			return nil, errNotLvalue
		}
		if key == "" {
			return nil, fmt.Errorf("a member name is missing in %q", expr)
		}
		path = append(path, key)
	}
	return appendDerefs(path, derefs), nil
}

func appendDerefs(path []string, n int) []string {
	for range n {
		path = append(path, "*")
	}
	return path
}

// readPath reads the value at path in frame fr, named name.
func (t *Target) readPath(fr *elfsym.Frame, path []string, name string) (elfsym.Value, error) {
	p, err := t.place(fr, path, false)
	if err != nil {
		return elfsym.Value{}, err
	}
	v, err := t.sym.Read(p, fr, cachedMem{t})
	v.Name = name
	return v, err
}

package gdbremote

// Target: where a C++ program throws, rethrows and catches exceptions (engine's
// ExceptionSites), as gdb finds it: libstdc++'s SystemTap probe for the event, else the
// runtime function that does it.

import (
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/backend/elfsym"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// exceptionFuncs are the C++ runtime's functions for each event, where a runtime has no
// probes.
var exceptionFuncs = map[string]string{
	engine.ExceptionThrow: "__cxa_throw", engine.ExceptionRethrow: "__cxa_rethrow", engine.ExceptionCatch: "__cxa_begin_catch",
}

// ExceptionSite implements engine.ExceptionSites.
func (t *Target) ExceptionSite(event string) (engine.Location, error) {
	fn, ok := exceptionFuncs[event]
	if !ok {
		return engine.Location{}, fmt.Errorf("no exception event %q", event)
	}
	if !t.started() || t.core != nil {
		return engine.Location{}, fmt.Errorf("the program is not running")
	}
	t.addLibraries()
	if pc, ok := t.sym.ProbeAddress("libstdcxx", event); ok {
		return t.location(pc), nil
	}
	if pc, _, ok := t.sym.LibraryFunction(fn); ok {
		return t.location(pc), nil
	}
	if f, ok := t.sym.FuncByName(fn); ok { // linked in statically
		return t.location(f.Start()), nil
	}
	return engine.Location{}, fmt.Errorf("no C++ runtime loaded")
}

// DescribeException implements engine.ExceptionDescriber: at a stop where an exception is
// thrown, rethrown or caught (libstdc++'s probe, whose arguments are the object and its
// std::type_info), the exception's type, from the type_info's name (std::runtime_error),
// and for a std::exception its what() (called virtually, as the program would).
func (t *Target) DescribeException(message bool) (typeName, text string, err error) {
	if err := t.needStopped(); err != nil {
		return "", "", err
	}
	obj, tinfo, err := t.exceptionArgs()
	if err != nil {
		return "", "", err
	}
	if typeName, err = t.typeInfoName(tinfo); err != nil {
		return "", "", err
	}
	what := ""
	if message && t.typeInfoDerives(tinfo, "std::exception", 8) {
		what = t.exceptionWhat(obj)
	}
	return typeName, what, nil
}

// errNoException is gdb's answer to $_exception away from an exception's probe.
var errNoException = errors.New("did not find exception probe (does libstdcxx have SDT probes?)")

// exceptionArgs are the arguments of the libstdc++ probe the program stopped at: the
// exception object and its std::type_info; errNoException when it stopped at none.
func (t *Target) exceptionArgs() (obj, tinfo uint64, err error) {
	pc, err := t.pc()
	if err != nil {
		return 0, 0, err
	}
	for event := range exceptionFuncs {
		p, ok := t.sym.FindProbe("libstdcxx", event)
		if !ok || p.Addr != pc || len(p.Args) < 2 {
			continue
		}
		obj, err1 := t.probeArg(p.Args[0])
		tinfo, err2 := t.probeArg(p.Args[1])
		return obj, tinfo, errors.Join(err1, err2)
	}
	return 0, 0, errNoException
}

// exception is gdb's $_exception: at a stop where an exception is thrown, rethrown or
// caught, the object, of the type its std::type_info names as the program's debug
// information describes it (gdb's error when it does not: a library's std::runtime_error).
func (e *evaluator) exception() (elfsym.Value, error) {
	obj, tinfo, err := e.t.exceptionArgs()
	if err != nil {
		return elfsym.Value{}, err
	}
	name, err := e.t.typeInfoName(tinfo)
	if err != nil {
		return elfsym.Value{}, err
	}
	typ, err := e.t.sym.ParseType(name)
	if err != nil || typ.Size() <= 0 {
		if i := strings.LastIndex(name, "::"); i > 0 {
			return elfsym.Value{}, fmt.Errorf("No symbol \"%s\" in namespace \"%s\".", name[i+2:], name[:i])
		}
		return elfsym.Value{}, fmt.Errorf("No symbol \"%s\" in current context.", name)
	}
	b, err := cachedMem{e.t}.ReadMemory(obj, int(typ.Size()))
	if err != nil {
		return elfsym.Value{}, err
	}
	v := e.t.sym.FormatValue(typ, b, obj, true, cachedMem{e.t}, 0)
	v.Name = "$_exception"
	return v, nil
}

// probeOperand is where a SystemTap probe argument is: a constant, a register, or memory
// at a register plus an offset.
type probeOperand struct {
	isConst bool
	value   uint64 // the constant
	reg     string // without its %
	mem     bool
	off     int64
}

// parseProbeArg reads a probe argument in x86's assembler words: "8@%rdi" (a register),
// "8@-80(%rbx)" (memory at a register and offset), "8@$5" (a constant).
func parseProbeArg(arg string) (probeOperand, error) {
	_, op, ok := strings.Cut(arg, "@")
	if !ok || op == "" {
		return probeOperand{}, fmt.Errorf("probe argument %q", arg)
	}
	if n, ok := strings.CutPrefix(op, "$"); ok {
		v, err := strconv.ParseUint(n, 0, 64)
		return probeOperand{isConst: true, value: v}, err
	}
	var o probeOperand
	o.reg = op
	if i := strings.IndexByte(op, '('); i >= 0 && strings.HasSuffix(op, ")") {
		if i > 0 {
			off, err := strconv.ParseInt(op[:i], 0, 64)
			if err != nil {
				return probeOperand{}, fmt.Errorf("probe argument %q", arg)
			}
			o.off = off
		}
		o.reg, o.mem = op[i+1:len(op)-1], true
	}
	reg, ok := strings.CutPrefix(o.reg, "%")
	if !ok || reg == "" {
		return probeOperand{}, fmt.Errorf("probe argument %q: not a register", arg)
	}
	o.reg = reg
	return o, nil
}

// probeArg reads a SystemTap probe argument at the probe (parseProbeArg).
func (t *Target) probeArg(arg string) (uint64, error) {
	o, err := parseProbeArg(arg)
	if err != nil || o.isConst {
		return o.value, err
	}
	fr, err := t.frame(0)
	if err != nil {
		return 0, err
	}
	v, err := (&evaluator{t: t, fr: fr, pure: true}).register("$" + o.reg)
	if err != nil || len(v.Bytes) == 0 {
		return 0, fmt.Errorf("probe argument %q: %v", arg, err)
	}
	r := Uint(v.Bytes, t.order)
	if !o.mem {
		return r, nil
	}
	b, err := cachedMem{t}.ReadMemory(uint64(int64(r)+o.off), t.sym.Arch.PtrSize)
	if err != nil {
		return 0, err
	}
	return Uint(b, t.order), nil
}

// typeInfoName is the C++ type a std::type_info names (its second word: the mangled name
// without _ZTS, "St13runtime_error"), demangled.
func (t *Target) typeInfoName(tinfo uint64) (string, error) {
	ptr := t.sym.Arch.PtrSize
	w, err := cachedMem{t}.ReadMemory(tinfo+uint64(ptr), ptr)
	if err != nil {
		return "", err
	}
	name, err := t.sym.ReadCString(cachedMem{t}, Uint(w, t.order), 1024)
	if err != nil {
		return "", err
	}
	full := cxxname.Symbol("_ZTS" + strings.TrimPrefix(name, "*"))
	return strings.TrimPrefix(full, "typeinfo name for "), nil
}

// typeInfoDerives reports whether the class a std::type_info describes is base or derives
// from it, as the C++ runtime's own type_info objects say: a __si_class_type_info has one
// base (its third word), a __vmi_class_type_info a count of them (its fourth half-word)
// each followed by its offset; a __class_type_info none.
func (t *Target) typeInfoDerives(tinfo uint64, base string, depth int) bool {
	if name, err := t.typeInfoName(tinfo); err != nil || depth == 0 {
		return false
	} else if name == base {
		return true
	}
	ptr := uint64(t.sym.Arch.PtrSize)
	mem := cachedMem{t}
	word := func(at uint64) (uint64, bool) {
		b, err := mem.ReadMemory(at, int(ptr))
		return Uint(b, t.order), err == nil
	}
	vptr, ok := word(tinfo)
	if !ok {
		return false
	}
	is := func(vtable string) bool { // the type_info's class: its vtable, past its two header words
		a, ok := t.sym.AnySymbol(vtable)
		return ok && vptr == a+2*ptr
	}
	switch {
	case is("_ZTVN10__cxxabiv120__si_class_type_infoE"):
		b, ok := word(tinfo + 2*ptr)
		return ok && t.typeInfoDerives(b, base, depth-1)
	case is("_ZTVN10__cxxabiv121__vmi_class_type_infoE"):
		counts, err := mem.ReadMemory(tinfo+2*ptr, 8)
		if err != nil {
			return false
		}
		n := uint64(t.sym.Arch.ByteOrder.Uint32(counts[4:]))
		for i := range min(n, 16) {
			b, ok := word(tinfo + 2*ptr + 8 + i*2*ptr)
			if ok && t.typeInfoDerives(b, base, depth-1) {
				return true
			}
		}
	}
	return false
}

// exceptionWhat is what() of the std::exception obj: its vtable's what (the third slot,
// after the two destructors), run with obj as this; "" when the call fails.
func (t *Target) exceptionWhat(obj uint64) string {
	ptr := uint64(t.sym.Arch.PtrSize)
	mem := cachedMem{t}
	vptr, err := mem.ReadMemory(obj, int(ptr))
	if err != nil {
		return ""
	}
	slot, err := mem.ReadMemory(Uint(vptr, t.order)+2*ptr, int(ptr))
	if err != nil {
		return ""
	}
	ret, err := t.callFunction(Uint(slot, t.order), []uint64{obj})
	if err != nil {
		return ""
	}
	s, _ := t.sym.ReadCString(mem, ret, 4096)
	return s
}

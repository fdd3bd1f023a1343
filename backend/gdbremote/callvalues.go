package gdbremote

// What a call of the program's function passes and gets back, by the x86-64 System V ABI:
// an object passed by reference by its address, a float or a double in an SSE register, a
// class returned in memory the call makes room for or in registers, a temporary the next
// call takes by reference put in a scratch room of the stack.

import (
	"debug/dwarf"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// scratchZone is the room below the red zone where an expression's temporaries are put
// when a call takes them by reference or as this ((a + b) + a): calls go below the part
// used, as gdb pushes them.
const scratchZone = 4096

// redZone is the x86-64 ABI's: the 128 bytes below the stack pointer a function may use
// without moving it, which a call from the debugger leaves alone.
const redZone = 128

// scratchAt is where the temporary that ends used bytes into the scratch zone starts.
func (t *Target) scratchAt(used int64) uint64 {
	return (t.sp() - redZone - uint64(used)) &^ 0xf
}

// inMemory is v, a class object or an array that lives in no memory (a call's result
// returned in registers, a string literal), put in the stack's scratch zone so that a call
// can take its address; v as it is when it is in memory or no object.
func (p *arithParser) inMemory(v arithOperand) (arithOperand, error) {
	v = v.referred()
	if v.obj == nil || v.obj.InMemory || v.obj.Kind != "struct" && v.obj.Kind != "array" || len(v.obj.Bytes) == 0 {
		return v, nil
	}
	size := (int64(len(v.obj.Bytes)) + 15) &^ 15
	if p.e.scratch+size > scratchZone {
		return v, errors.New("the expression's temporaries fill the debugger's scratch room")
	}
	p.e.scratch += size
	at := p.e.t.scratchAt(p.e.scratch)
	if err := p.e.t.WriteMemory(at, v.obj.Bytes); err != nil {
		return v, err
	}
	c := p.e.t.sym.FormatValue(v.obj.DWARFType(), v.obj.Bytes, at, true, cachedMem{p.e.t}, 0)
	c.Name = v.obj.Name
	return arithOperand{obj: &c}, nil
}

// passObject passes the class object o by value as the ABI has it (ArgumentPassingOf):
// its bytes in registers or on the stack, or the address of a copy made in the scratch
// zone by its copy constructor (gdb's way), or byte for byte where the class has none the
// program or a library has code for.
func (p *arithParser) passObject(ca *callArgs, o arithOperand) error {
	v := o.obj
	t := v.DWARFType()
	if t == nil || len(v.Bytes) == 0 {
		return fmt.Errorf("%s (%s) cannot be passed by value: its type is not known", v.Name, v.Type)
	}
	how, sse := p.e.t.sym.ArgumentPassingOf(t)
	switch how {
	case elfsym.PassInRegisters:
		ca.object(v.Bytes, sse)
		return nil
	case elfsym.PassOnStack:
		ca.onStack(v.Bytes)
		return nil
	}
	size := (int64(len(v.Bytes)) + 15) &^ 15
	if p.e.scratch+size > scratchZone {
		return errors.New("the expression's temporaries fill the debugger's scratch room")
	}
	p.e.scratch += size
	at := p.e.t.scratchAt(p.e.scratch)
	if err := p.e.t.WriteMemory(at, v.Bytes); err != nil { // byte for byte, unless a constructor copies it
		return err
	}
	if fvs, found, _ := p.methods(o, constructorName(elfsym.TypeName(elfsym.Underlying(t)))); found {
		orig, err := p.inMemory(o)
		if err != nil {
			return err
		}
		if _, err := p.callWith(arithOperand{obj: &fvs[0], overloads: fvs}, &at, []arithOperand{orig}); err != nil {
			return err
		}
	}
	ca.integer(at)
	return nil
}

// constructorName is the name of a class's constructors: its own, without its scope and
// template arguments (geo::Pair<int> has Pair).
func constructorName(class string) string {
	if i := strings.IndexByte(class, '<'); i >= 0 {
		class = class[:i]
	}
	if i := strings.LastIndex(class, "::"); i >= 0 {
		class = class[i+2:]
	}
	return class
}

// returnRoom is how much memory a call of a function of type ft must make for the value it
// returns in memory (0 for one it returns in registers), or why its value cannot be read.
func (p *arithParser) returnRoom(ft *dwarf.FuncType, name string) (int64, error) {
	if ft == nil || ft.ReturnType == nil {
		return 0, nil
	}
	switch rt := elfsym.Underlying(ft.ReturnType).(type) {
	case *dwarf.FloatType:
		if rt.Size() > 8 && !isLongDouble(rt) {
			return 0, fmt.Errorf("%s returns %s, which is not read back", name, elfsym.TypeName(ft.ReturnType))
		}
	case *dwarf.ArrayType:
		return 0, fmt.Errorf("%s returns an array, which is not read back", name)
	case *dwarf.StructType:
		conv, ok := p.e.t.sym.ReturnConventionOf(ft.ReturnType)
		if !ok {
			return 0, fmt.Errorf("%s returns %s, which is not read back", name, elfsym.TypeName(ft.ReturnType))
		}
		if conv.InMemory {
			return rt.Size(), nil
		}
	}
	return 0, nil
}

// callResult is the value a function of type ft returned (out): converted to its return
// type, void for none; a class from where it was built or from its registers, a float or
// a double from xmm0, a reference as the object it refers to.
func (p *arithParser) callResult(ft *dwarf.FuncType, out callOut, name string) (arithOperand, error) {
	if ft == nil || ft.ReturnType == nil {
		v := elfsym.Value{Name: name, Type: "void", Kind: "void", Text: "void"}
		return arithOperand{obj: &v}, nil
	}
	sym, mem := p.e.t.sym, cachedMem{p.e.t}
	var c elfsym.Value
	switch rt := elfsym.Underlying(ft.ReturnType).(type) {
	case *dwarf.FloatType:
		b := binary.LittleEndian.AppendUint64(nil, out.sse[0])
		if isLongDouble(rt) { // from st0
			if len(out.x87) < 10 {
				return arithOperand{}, fmt.Errorf("%s returns %s in st0, which the stub does not show", name, elfsym.TypeName(ft.ReturnType))
			}
			b = append(append([]byte(nil), out.x87[:10]...), make([]byte, 6)...)
		}
		c = sym.FormatValue(ft.ReturnType, b[:max(min(rt.Size(), int64(len(b))), 0)], 0, false, mem, 0)
	case *dwarf.ArrayType:
		return arithOperand{}, fmt.Errorf("%s returns an array, which is not read back", name)
	case *dwarf.StructType:
		size := rt.Size()
		if out.mem != 0 {
			b, err := p.e.t.ReadMemory(out.mem, int(size))
			if err != nil {
				return arithOperand{}, err
			}
			c = sym.FormatValue(ft.ReturnType, b, out.mem, true, mem, 0)
			break
		}
		conv, _ := sym.ReturnConventionOf(ft.ReturnType)
		var b []byte
		ints, sses := out.ints[:], out.sse[:]
		for _, sse := range conv.SSE { // each eightbyte from the next register of its class
			if sse {
				b, sses = binary.LittleEndian.AppendUint64(b, sses[0]), sses[1:]
			} else {
				b, ints = binary.LittleEndian.AppendUint64(b, ints[0]), ints[1:]
			}
		}
		if int64(len(b)) < size {
			b = append(b, make([]byte, size-int64(len(b)))...)
		}
		c = sym.FormatValue(ft.ReturnType, b[:size], 0, false, mem, 0)
	case *elfsym.RefType: // the object it refers to, at the address returned (std::string's at())
		c = sym.FormatValue(rt, binary.LittleEndian.AppendUint64(nil, out.ints[0]), 0, false, mem, 0)
	default:
		var err error
		if c, err = sym.Convert(ft.ReturnType, int64(out.ints[0]), 0, false, mem); err != nil {
			return arithOperand{}, err
		}
	}
	c.Name = name
	return arithOperand{obj: &c}, nil
}

// paramType is the type of parameter i of a function of type ft, nil for one it does not
// declare (past its ..., or of a function without a prototype).
func paramType(ft *dwarf.FuncType, i int) dwarf.Type {
	if ft == nil || i >= len(ft.ParamType) {
		return nil
	}
	if _, dots := ft.ParamType[i].(*dwarf.DotDotDotType); dots {
		return nil
	}
	return ft.ParamType[i]
}

// isLongDouble reports whether t is x86-64's long double: x87's 80-bit extended format in
// 16 bytes.
func isLongDouble(t dwarf.Type) bool {
	ft, ok := elfsym.Underlying(t).(*dwarf.FloatType)
	return ok && ft.Size() == 16 && ft.Name != "__float128" && ft.Name != "_Float128"
}

// extended80 is f in x87's extended format, as a long double lies in memory (16 bytes):
// a 64-bit mantissa with its leading 1, a 15-bit exponent biased by 16383, the sign.
func extended80(f float64) []byte {
	b := make([]byte, 16)
	var sign uint16
	if math.Signbit(f) {
		sign, f = 0x8000, -f
	}
	var mant uint64
	var exp uint16
	switch {
	case math.IsNaN(f):
		mant, exp = 0xc000000000000000, 0x7fff
	case math.IsInf(f, 0):
		mant, exp = 0x8000000000000000, 0x7fff
	case f != 0:
		frac, e := math.Frexp(f) // f = frac * 2^e, frac in [0.5, 1)
		mant, exp = uint64(math.Ldexp(frac, 64)), uint16(e-1+16383)
	}
	binary.LittleEndian.PutUint64(b, mant)
	binary.LittleEndian.PutUint16(b[8:], exp|sign)
	return b
}

// isFloat reports whether t is a float or a double (under its typedefs and qualifiers).
func isFloat(t dwarf.Type) bool {
	ft, ok := elfsym.Underlying(t).(*dwarf.FloatType)
	return ok && ft.Size() <= 8
}

// byReference is the address of a, the argument that goes in place i of a function of
// type ft, when that parameter is a C++ reference and a an object in memory.
func byReference(ft *dwarf.FuncType, i int, a arithOperand) (uint64, bool) {
	if ft == nil || i >= len(ft.ParamType) || a.obj == nil {
		return 0, false
	}
	if _, ref := ft.ParamType[i].(*elfsym.RefType); !ref {
		return 0, false
	}
	v := a.referred().obj
	return v.Addr, v.InMemory && v.Kind != "pointer"
}

// Package vm runs compiled Kite programs: a stack machine with one interpreter loop, and the
// hooks a debugger needs (traps patched into the code, interrupts at safe points, frames and
// variables, evaluation in a frame's scope).
package vm

import (
	"math"
	"slices"
	"unsafe"

	"github.com/polydbg/polydbg/kite/compile"
)

// Kind is the type of a Value.
type Kind uint8

const (
	NilKind Kind = iota
	BoolKind
	IntKind
	FloatKind
	StringKind
	ListKind
	MapKind
	FuncKind    // a Kite function (closure)
	BuiltinKind // a builtin or host function
	iterKind    // an iterator of a for loop (never visible to programs)
	undefKind   // a global not yet defined
	cellKind    // a local slot holding a captured variable's cell
)

var kindNames = [...]string{"nil", "bool", "int", "float", "string", "list", "map", "fn", "fn", "iterator", "undefined", "cell"}

// String returns the Kite type name ("int", "list", ...), as type() does.
func (k Kind) String() string { return kindNames[k] }

// A Value is a Kite value. Nil, bools, ints and floats live in the struct itself and never
// allocate; a string keeps its bytes' pointer and length; other kinds point to their object.
// The zero Value is nil.
type Value struct {
	k Kind
	n uint64         // bool, int, float bits, or string length
	p unsafe.Pointer // string data, *List, *Map, *Closure, *Builtin or *iterator
}

var (
	Nil   = Value{}
	True  = Value{k: BoolKind, n: 1}
	False = Value{k: BoolKind}
	undef = Value{k: undefKind}
)

func Int(i int64) Value     { return Value{k: IntKind, n: uint64(i)} }
func Float(f float64) Value { return Value{k: FloatKind, n: math.Float64bits(f)} }
func Str(s string) Value {
	return Value{k: StringKind, n: uint64(len(s)), p: unsafe.Pointer(unsafe.StringData(s))}
}

func Bool(b bool) Value {
	if b {
		return True
	}
	return False
}

func ListOf(items []Value) Value    { return Value{k: ListKind, p: unsafe.Pointer(&List{Items: items})} }
func MapValue(m *Map) Value         { return Value{k: MapKind, p: unsafe.Pointer(m)} }
func ListValue(l *List) Value       { return Value{k: ListKind, p: unsafe.Pointer(l)} }
func FuncValue(c *Closure) Value    { return Value{k: FuncKind, p: unsafe.Pointer(c)} }
func BuiltinValue(b *Builtin) Value { return Value{k: BuiltinKind, p: unsafe.Pointer(b)} }

func (v Value) Kind() Kind        { return v.k }
func (v Value) Int() int64        { return int64(v.n) }
func (v Value) Float() float64    { return math.Float64frombits(v.n) }
func (v Value) BoolVal() bool     { return v.n != 0 }
func (v Value) Str() string       { return unsafe.String((*byte)(v.p), int(v.n)) }
func (v Value) List() *List       { return (*List)(v.p) }
func (v Value) Map() *Map         { return (*Map)(v.p) }
func (v Value) Closure() *Closure { return (*Closure)(v.p) }
func (v Value) Builtin() *Builtin { return (*Builtin)(v.p) }
func (v Value) iter() *iterator   { return (*iterator)(v.p) }
func cellValue(c *Cell) Value     { return Value{k: cellKind, p: unsafe.Pointer(c)} }
func (v Value) IsNil() bool       { return v.k == NilKind }

// TypeName is the value's Kite type name.
func (v Value) TypeName() string { return v.k.String() }

// Truth is Kite truthiness: nil, false, 0, 0.0, "", [] and {} are false.
func (v Value) Truth() bool {
	switch v.k {
	case NilKind:
		return false
	case BoolKind, IntKind, StringKind:
		return v.n != 0
	case FloatKind:
		return v.Float() != 0
	case ListKind:
		return len(v.List().Items) > 0
	case MapKind:
		return v.Map().Len() > 0
	}
	return true
}

// List is a mutable ordered list.
type List struct {
	Items []Value
	// snap is the array a map or filter in progress reads without copying it: the list
	// copies its items before changing one in place while they are that array (own).
	snap *Value
}

// own makes l's items safe to change in place (setting an item, pop): if a map or filter
// in progress reads the same array, the list moves to a copy first. Appending needs no
// copy: it writes past what the reader reads, or into a new array.
func (l *List) own() {
	if l.snap != nil && len(l.Items) > 0 && unsafe.SliceData(l.Items) == l.snap {
		l.Items = slices.Clone(l.Items)
	}
}

// A Cell holds a variable captured by a closure, shared by every function that uses it.
type Cell struct {
	V Value
}

// Closure is a Kite function value: its code and its captured variables.
type Closure struct {
	Fn   *compile.Func
	Free []*Cell
}

// Name is the function's name, "" when anonymous.
func (c *Closure) Name() string { return c.Fn.Name }

// A Builtin is a function implemented in Go. Pure builtins may run in watches and
// conditions; they must not change any value or have effects outside the VM.
type Builtin struct {
	Name string
	Pure bool
	Fn   func(vm *VM, args []Value) (Value, error)
}

// Equal reports Kite ==: ints and floats compare numerically, lists and maps by contents,
// functions by identity, anything else of different types is not equal.
func Equal(a, b Value) bool { return equal(a, b, 0) }

func equal(a, b Value, depth int) bool {
	if a.k != b.k {
		switch {
		case a.k == IntKind && b.k == FloatKind:
			return float64(a.Int()) == b.Float()
		case a.k == FloatKind && b.k == IntKind:
			return a.Float() == float64(b.Int())
		}
		return false
	}
	switch a.k {
	case NilKind:
		return true
	case BoolKind, IntKind:
		return a.n == b.n
	case FloatKind:
		return a.Float() == b.Float()
	case StringKind:
		return a.Str() == b.Str()
	case ListKind:
		x, y := a.List(), b.List()
		if x == y {
			return true
		}
		if len(x.Items) != len(y.Items) || depth > maxDepthCompare {
			return false
		}
		for i := range x.Items {
			if !equal(x.Items[i], y.Items[i], depth+1) {
				return false
			}
		}
		return true
	case MapKind:
		x, y := a.Map(), b.Map()
		if x == y {
			return true
		}
		if x.Len() != y.Len() || depth > maxDepthCompare {
			return false
		}
		eq := true
		x.Range(func(k, v Value) bool {
			w, ok := y.Get(k)
			if !ok || !equal(v, w, depth+1) {
				eq = false
			}
			return eq
		})
		return eq
	}
	return a.p == b.p
}

const maxDepthCompare = 1000

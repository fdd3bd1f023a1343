package engine

// C++: objects' virtual function tables (gdb's info vtbl) and the classes their vtables
// say they are (gdb's set print object); a name's overloads (gdb's list of an ambiguous
// name).

import "fmt"

// Vtable is a C++ object's virtual function table (gdb's info vtbl).
type Vtable struct {
	Class   string // the object's class
	Addr    uint64 // where its vtable pointer points
	Object  uint64 // the object
	Entries []VtableEntry
}

// VtableEntry is one slot of a vtable: the function it holds, named by its symbol.
type VtableEntry struct {
	Addr uint64
	Name string
}

// VtableReader is implemented by targets that can read a C++ object's vtable.
type VtableReader interface {
	Vtable(frame int, expr string) (Vtable, error)
}

// Vtable reads the vtable of the object expr is, or points to, in the frame.
func (s *Session) Vtable(frame int, expr string) (Vtable, error) {
	vr, ok := s.t.(VtableReader)
	if !ok {
		return Vtable{}, fmt.Errorf("info vtbl: %w", ErrUnsupported)
	}
	return vr.Vtable(frame, expr)
}

// DynamicClasses is implemented by targets whose objects may be of a class derived from
// their declared one (C++, by its vtable): gdb's set print object.
type DynamicClasses interface {
	// DynamicClass is the object expr is or points to, by its class as its vtable says.
	DynamicClass(frame int, expr string) (DynamicObject, error)
}

// DynamicObject is a C++ object as its vtable says it is.
type DynamicObject struct {
	Class   string // its class; "" for an object without a vtable
	Pointer bool   // the expression points to it
	// Top is what to add to the object's address for the whole object's: negative when
	// the expression is (or points to) a base that does not begin the object.
	Top int64
}

// DynamicClass asks the target which class the object expr is or points to really is.
func (s *Session) DynamicClass(frame int, expr string) (DynamicObject, error) {
	dc, ok := s.t.(DynamicClasses)
	if !ok {
		return DynamicObject{}, ErrUnsupported
	}
	return dc.DynamicClass(frame, expr)
}

// FunctionPlace is one function a name stands for: its signature and where it begins.
type FunctionPlace struct {
	Signature string
	File      string
	Line      int
}

// FunctionPlaces is implemented by targets whose languages give one name to several
// functions (C++'s overloads, template instances, the same name in several scopes).
type FunctionPlaces interface {
	// FunctionPlaces are the functions `break name` would bind at, by address.
	FunctionPlaces(name string) []FunctionPlace
}

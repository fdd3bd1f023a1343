package engine

import (
	"errors"
	"fmt"
)

// Register is one machine register of a stopped target.
type Register struct {
	Name  string
	Num   int // the target's own numbering (a GDB stub's register number)
	Size  int // bytes
	Value uint64
	// Natural is the value by the register's type as gdb prints it: a code pointer with
	// its symbol ("0x401136 <main+4>"), a data pointer in hex, x86's eflags by their flags
	// ("[ PF IF ]"), an integer signed at its width; "" when the target does not say.
	Natural string
	// Bytes is, for a register wider than Value (a vector, x87's 80-bit float), its whole
	// value in the target's byte order.
	Bytes []byte
	// Float says it is a floating-point register (x87's st0, a VFP d0): info registers
	// shows its value, then its raw bits (Hex).
	Float bool
	// Hex is the register's value in hex where Value cannot say it: a vector's elements
	// as gdb's info registers shows them ("{v4_float = {0x0, 0x3fc00000, ...}, ...}"),
	// a float's raw bits ("0x3fff8000000000000000"). Natural is then print's form.
	Hex string
}

// MemoryAccess is implemented by targets whose memory a debugger may read and write
// while they are stopped (native programs, microcontrollers).
type MemoryAccess interface {
	ReadMemory(addr uint64, n int) ([]byte, error)
	WriteMemory(addr uint64, data []byte) error
}

// RegisterAccess is implemented by targets with machine registers.
type RegisterAccess interface {
	ReadRegisters() ([]Register, error)
	WriteRegister(name string, value uint64) error
}

// ErrUnsupported says that the target lacks a capability (the Kite VM has no memory).
var ErrUnsupported = errors.New("not supported by this target")

// MaxMemoryRead bounds one memory read through the session.
const MaxMemoryRead = 1 << 20

// ReadMemoryLive reads n bytes at addr, while the target runs too when it can (LiveMemory:
// in a brief halt no subscriber sees); a target that cannot is read as ReadMemory does,
// stopped.
func (s *Session) ReadMemoryLive(addr uint64, n int) ([]byte, error) {
	m, ok := s.t.(LiveMemory)
	if !ok {
		return s.ReadMemory(addr, n)
	}
	if n <= 0 || n > MaxMemoryRead {
		return nil, fmt.Errorf("read memory: length %d out of range (1..%d)", n, MaxMemoryRead)
	}
	return m.ReadLive(addr, n)
}

// WriteMemoryLive writes data at addr while the target runs too, when it can (see
// ReadMemoryLive); memory-mapped I/O sees the write.
func (s *Session) WriteMemoryLive(addr uint64, data []byte) error {
	m, ok := s.t.(LiveMemory)
	if !ok {
		return s.WriteMemory(addr, data)
	}
	if len(data) == 0 || len(data) > MaxMemoryRead {
		return fmt.Errorf("write memory: length %d out of range (1..%d)", len(data), MaxMemoryRead)
	}
	return m.WriteLive(addr, data)
}

// ReadMemory reads n bytes at addr of a stopped target.
func (s *Session) ReadMemory(addr uint64, n int) ([]byte, error) {
	m, ok := s.t.(MemoryAccess)
	if !ok {
		return nil, fmt.Errorf("read memory: %w", ErrUnsupported)
	}
	if n <= 0 || n > MaxMemoryRead {
		return nil, fmt.Errorf("read memory: length %d out of range (1..%d)", n, MaxMemoryRead)
	}
	if err := s.checkInspectable("read memory"); err != nil {
		return nil, err
	}
	return m.ReadMemory(addr, n)
}

// WriteMemory writes data at addr of a stopped target.
func (s *Session) WriteMemory(addr uint64, data []byte) error {
	m, ok := s.t.(MemoryAccess)
	if !ok {
		return fmt.Errorf("write memory: %w", ErrUnsupported)
	}
	if len(data) == 0 || len(data) > MaxMemoryRead {
		return fmt.Errorf("write memory: length %d out of range (1..%d)", len(data), MaxMemoryRead)
	}
	if err := s.checkStopped("write memory"); err != nil {
		return err
	}
	return m.WriteMemory(addr, data)
}

// Registers returns the registers of a stopped target.
func (s *Session) Registers() ([]Register, error) {
	r, ok := s.t.(RegisterAccess)
	if !ok {
		return nil, fmt.Errorf("registers: %w", ErrUnsupported)
	}
	if err := s.checkStopped("read registers"); err != nil {
		return nil, err
	}
	return r.ReadRegisters()
}

// FrameRegisterReader is implemented by targets that recover the registers an outer frame
// had (its pc, its stack pointer, what its callees saved), as gdb shows them there.
type FrameRegisterReader interface {
	FrameRegisters(frame int) ([]Register, error)
}

// FrameRegisters returns the registers as frame has them (0 the innermost: Registers):
// for an outer frame, those the target recovers, the innermost frame's for the others.
func (s *Session) FrameRegisters(frame int) ([]Register, error) {
	r, ok := s.t.(FrameRegisterReader)
	if frame == 0 || !ok {
		return s.Registers()
	}
	if err := s.checkStopped("read registers"); err != nil {
		return nil, err
	}
	return r.FrameRegisters(frame)
}

// WriteRegister sets a register of a stopped target by name.
func (s *Session) WriteRegister(name string, value uint64) error {
	r, ok := s.t.(RegisterAccess)
	if !ok {
		return fmt.Errorf("write register: %w", ErrUnsupported)
	}
	if err := s.checkStopped("write register"); err != nil {
		return err
	}
	return r.WriteRegister(name, value)
}

// TypeDescriber is implemented by targets with named types (C's, through DWARF): gdb's
// ptype and whatis of a type name.
type TypeDescriber interface {
	// DescribeType is the type name names: expanded as ptype shows it, or as whatis does.
	DescribeType(name string, expand bool) (string, error)
}

// ExprTypeDescriber is implemented by targets that describe an expression's type as it is
// in the program (gdb's ptype EXPR: an array of pointers to a struct, a nested anonymous
// struct), which its type's name alone cannot say.
type ExprTypeDescriber interface {
	DescribeExprType(frame int, expr string, expand bool) (string, error)
}

// DescribeExprType describes the type of expr in a frame of the stopped program
// (ExprTypeDescriber); ErrUnsupported for targets without one.
func (s *Session) DescribeExprType(frame int, expr string, expand bool) (string, error) {
	td, ok := s.t.(ExprTypeDescriber)
	if !ok {
		return "", fmt.Errorf("expression types: %w", ErrUnsupported)
	}
	if err := s.checkInspectable("describe a type"); err != nil {
		return "", err
	}
	return td.DescribeExprType(frame, expr, expand)
}

// DescribeType describes a type by its name (TypeDescriber); ErrUnsupported for targets
// without named types.
func (s *Session) DescribeType(name string, expand bool) (string, error) {
	td, ok := s.t.(TypeDescriber)
	if !ok {
		return "", fmt.Errorf("types by name: %w", ErrUnsupported)
	}
	return td.DescribeType(name, expand)
}

// Symbolizer is implemented by targets whose addresses a symbol table names (a native
// program, firmware): gdb's info symbol.
type Symbolizer interface {
	// SymbolAt names addr by the function or object that holds it ("vals+4") and the section
	// it is in (".data", ".data of /path/prog" for a position-independent program, as gdb
	// says it); ok is false when no symbol covers it.
	SymbolAt(addr uint64) (name, section string, ok bool)
}

// TableSymbolizer is implemented by targets whose symbol table can name an address
// otherwise than SymbolAt does: a clone GCC made is weigh.constprop to gdb's info symbol,
// where a pointer to it shows <weigh>.
type TableSymbolizer interface {
	TableSymbolAt(addr uint64) (name, section string, ok bool)
}

// TableSymbolAt names an address by the symbol table alone (TableSymbolizer), else as
// SymbolAt does.
func (s *Session) TableSymbolAt(addr uint64) (name, section string, ok bool, err error) {
	if ts, has := s.t.(TableSymbolizer); has {
		name, section, ok = ts.TableSymbolAt(addr)
		return name, section, ok, nil
	}
	return s.SymbolAt(addr)
}

// SymbolAt names an address (Symbolizer); ErrUnsupported for targets without symbols.
func (s *Session) SymbolAt(addr uint64) (name, section string, ok bool, err error) {
	sz, has := s.t.(Symbolizer)
	if !has {
		return "", "", false, fmt.Errorf("symbols: %w", ErrUnsupported)
	}
	name, section, ok = sz.SymbolAt(addr)
	return name, section, ok, nil
}

// LineCode is where a source line's code is, as gdb's info line says: the range of its
// first row, or for a line without code (NoCode) the address of the next line with some.
type LineCode struct {
	File       string
	Line       int
	Start, End uint64
	NoCode     bool
}

// LineTabler is implemented by targets with a line table (native programs, firmware).
type LineTabler interface {
	LineCode(file string, line int) (LineCode, error)
	LineCodeAt(pc uint64) (LineCode, error)
}

// LineCode is where file:line's code is.
func (s *Session) LineCode(file string, line int) (LineCode, error) {
	lt, ok := s.t.(LineTabler)
	if !ok {
		return LineCode{}, fmt.Errorf("line table: %w", ErrUnsupported)
	}
	return lt.LineCode(file, line)
}

// LineCodeAt is where the code of the line holding pc is.
func (s *Session) LineCodeAt(pc uint64) (LineCode, error) {
	lt, ok := s.t.(LineTabler)
	if !ok {
		return LineCode{}, fmt.Errorf("line table: %w", ErrUnsupported)
	}
	return lt.LineCodeAt(pc)
}

// OffsetDescriber is implemented by targets that lay out a struct's or union's members
// with their offsets, sizes and holes (gdb's ptype/o), of a type name or of an expression's
// type in a frame.
type OffsetDescriber interface {
	DescribeOffsets(frame int, expr string) (string, error)
}

// ScopeSymbol is a variable as gdb's info scope lists it: where it lives, in gdb's words,
// and its size in bytes.
type ScopeSymbol struct {
	Name, Where string
	Size        int
}

// SymbolDescriber is implemented by targets that say where a symbol lives (gdb's info
// address, info scope): Where is the text after `Symbol "x" is `, without the final ".";
// shown is the symbol as the language names it there (a C++ function with its
// parameters: geo::add(int, int)), "" for the name asked.
type SymbolDescriber interface {
	DescribeSymbol(frame int, name string) (shown, where string, err error)
	// DescribeScope lists the variables visible at the run-time pc: the innermost block's
	// first, out to the function's parameters and locals.
	DescribeScope(pc uint64) ([]ScopeSymbol, error)
}

// FunctionLocator is implemented by targets whose ResolveFunction prepares a breakpoint
// (its other copies): FunctionLocation finds the function alone, for a look at it.
type FunctionLocator interface {
	FunctionLocation(name string) (Location, error)
	// FunctionFiles are the source files that define a function of that name, each once
	// (two files' static functions of one name: both).
	FunctionFiles(name string) []string
}

// ScopeFunctioner is implemented by targets that say which of the functions a name names
// a scope is described for (gdb's info scope takes the last of a C++ function's overloads).
type ScopeFunctioner interface {
	ScopeFunction(name string) (Location, error)
}

// CoreDumper is implemented by targets that can write the stopped program as a core dump
// (gdb's gcore), for a debugger to read later.
type CoreDumper interface {
	DumpCore(path string) error
}

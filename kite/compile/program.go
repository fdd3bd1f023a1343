package compile

import "github.com/polydbg/polydbg/kite/syntax"

// Program is a compiled Kite file. All functions share one code array, so a pc is a
// program-wide address that stays the same for as long as the program exists.
type Program struct {
	File     string      // the source file name, as given to Compile
	Source   []byte      // the source text (for listing)
	Code     []uint32    // every instruction of every function
	Lines    []LineInfo  // Lines[pc] describes Code[pc]
	Consts   []any       // int64, float64 or string constants
	Funcs    []*Func     // Funcs[0] is the top level ("main")
	Globals  []GlobalVar // top-level variables in declaration order
	MainFn   int         // global slot of a user `fn main`, or -1
	Builtins []string    // builtin names, in the order LOADBUILTIN numbers them
}

// LineInfo maps one instruction to its source position. Stmt marks the first instruction
// of a statement; Kind is then that statement's kind ("Let", "If", "Return"...).
type LineInfo struct {
	Line, Col int32
	Stmt      bool
	Kind      string
}

// GlobalVar is a top-level binding. Implicit globals are names used but never declared:
// reading them is the runtime error "undefined variable".
type GlobalVar struct {
	Name     string
	Const    bool
	Implicit bool
}

// Func is one function's code range and debug information.
type Func struct {
	Name      string // "main" for the top level, "" for an anonymous literal
	Pos       syntax.Pos
	Entry     int // pc of the first instruction
	End       int // pc after the last instruction
	NumParams int
	NumLocals int // slots, parameters first
	MaxStack  int // deepest operand stack the body needs
	Locals    []LocalVar
	Free      []FreeVar // captured variables of enclosing functions
}

// LocalVar is a named slot that is visible to the debugger while Start <= pc < End.
// A Cell local holds a cell because an inner function captures it.
type LocalVar struct {
	Name       string
	Slot       int
	Start, End int
	Cell       bool
	Const      bool
	Param      bool
}

// FreeVar is a variable captured from the enclosing function: its local slot there
// (FromLocal) or the enclosing function's own free variable Index.
type FreeVar struct {
	Name      string
	FromLocal bool
	Index     int
}

// FuncAt returns the function whose code contains pc, or nil.
func (p *Program) FuncAt(pc int) *Func {
	for _, f := range p.Funcs {
		if pc >= f.Entry && pc < f.End {
			return f
		}
	}
	return nil
}

// NextStmtLine returns the first line >= line that has a statement start, and its pc.
// ok is false when no line at or after line has code.
func (p *Program) NextStmtLine(line int) (gotLine, pc int, ok bool) {
	best := -1
	for i, li := range p.Lines {
		if !li.Stmt || int(li.Line) < line {
			continue
		}
		if best < 0 || li.Line < p.Lines[best].Line || (li.Line == p.Lines[best].Line && i < best) {
			best = i
		}
	}
	if best < 0 {
		return 0, 0, false
	}
	return int(p.Lines[best].Line), best, true
}

// StmtPCs returns every pc that begins a statement on the given line, in pc order.
func (p *Program) StmtPCs(line int) []int {
	var pcs []int
	for i, li := range p.Lines {
		if li.Stmt && int(li.Line) == line {
			pcs = append(pcs, i)
		}
	}
	return pcs
}

// FuncByName returns the named functions (several literals may share a name, e.g. "").
func (p *Program) FuncByName(name string) []*Func {
	var fs []*Func
	for _, f := range p.Funcs {
		if f.Name == name {
			fs = append(fs, f)
		}
	}
	return fs
}

// FirstStmt returns the pc of the first statement of f's body.
func (f *Func) FirstStmt(p *Program) int {
	for pc := f.Entry; pc < f.End; pc++ {
		if p.Lines[pc].Stmt {
			return pc
		}
	}
	return f.Entry
}

// VisibleLocals returns the locals of f in scope at pc, in declaration order; when two
// share a name, only the innermost (latest declared) is kept.
func (f *Func) VisibleLocals(pc int) []LocalVar {
	var out []LocalVar
	for _, l := range f.Locals {
		if pc < l.Start || pc >= l.End {
			continue
		}
		replaced := false
		for i := range out {
			if out[i].Name == l.Name {
				out[i] = l
				replaced = true
			}
		}
		if !replaced {
			out = append(out, l)
		}
	}
	return out
}

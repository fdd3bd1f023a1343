package compile

import (
	"fmt"
	"math"

	"github.com/polydbg/polydbg/kite/syntax"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// Compile resolves and compiles a parsed file. builtins lists the names of the builtin and
// host functions, in the order the VM numbers them. The error, when non-nil, is a
// syntax.ErrorList with every error found.
func Compile(f *syntax.File, src []byte, builtins []string) (*Program, error) {
	r := newResolver(f.Name, builtins)
	r.resolveFile(f)
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	c := &compiler{r: r, prog: &Program{File: f.Name, Source: src, MainFn: -1}, consts: map[any]int{}}
	top := c.newFunc("main", syntax.Pos{Line: 1, Col: 1}, r.top)
	c.fn = top
	for _, s := range f.Stmts {
		c.stmt(s)
	}
	if b, ok := r.gnames["main"]; ok && b.decl != nil && !b.Const {
		if fs, ok := declaredAsFn(f, b); ok {
			c.prog.MainFn = b.Slot
			c.emitAt(fs.Pos(), LOADGLOBAL, b.Slot)
			c.emitAt(fs.Pos(), CALL, 0)
			c.emitAt(fs.Pos(), POP, 0)
		}
	}
	c.emitAt(syntax.Pos{}, HALT, 0)
	c.finishFunc(top)
	for _, g := range r.globals {
		c.prog.Globals = append(c.prog.Globals, GlobalVar{Name: g.Name, Const: g.Const, Implicit: g.decl == nil})
	}
	c.prog.Builtins = builtins
	c.link()
	if len(c.errs) > 0 {
		return nil, c.errs
	}
	return c.prog, nil
}

func declaredAsFn(f *syntax.File, b *Binding) (*syntax.FnStmt, bool) {
	for _, s := range f.Stmts {
		if fs, ok := s.(*syntax.FnStmt); ok && fs.Name == b.decl {
			return fs, true
		}
	}
	return nil, false
}

// funcBuilder accumulates one function's code before it is laid out in the program.
type funcBuilder struct {
	fn     *Func
	scope  *fnScope
	code   []uint32
	lines  []LineInfo
	depth  int
	loops  []*loopLabels
	index  int // index in prog.Funcs
	locals []*localRange
}

type localRange struct {
	b     *Binding
	start int
	end   int
}

type loopLabels struct {
	continueAt int   // relative pc of the loop head
	breaks     []int // relative pcs of JUMPs to patch to the loop end
	extra      int   // operand stack slots the loop keeps (its iterator)
}

type compiler struct {
	r      *resolver
	prog   *Program
	fn     *funcBuilder
	funcs  []*funcBuilder
	consts map[any]int
	errs   syntax.ErrorList
	// pending statement start: the next emitted instruction begins this statement
	stmtPos  syntax.Pos
	stmtKind string
}

func (c *compiler) errorf(pos syntax.Pos, format string, args ...any) {
	c.errs = append(c.errs, &syntax.Error{File: c.prog.File, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) newFunc(name string, pos syntax.Pos, scope *fnScope) *funcBuilder {
	b := &funcBuilder{fn: &Func{Name: name, Pos: pos}, scope: scope, index: len(c.funcs)}
	c.funcs = append(c.funcs, b)
	c.prog.Funcs = append(c.prog.Funcs, b.fn)
	return b
}

func (c *compiler) finishFunc(b *funcBuilder) {
	b.fn.NumLocals = b.scope.nlocals
	b.fn.Free = b.scope.free
}

// stackEffect is how many operand slots an instruction adds (negative: removes).
func stackEffect(op Opcode, arg int) int {
	switch op {
	case CONST, SMALLINT, NIL, TRUE, FALSE, LOADLOCAL, LOADCELL, LOADFREE, LOADGLOBAL, LOADBUILTIN, CLOSURE:
		return 1
	case POP, STORELOCAL, STORECELL, INITCELL, STOREFREE, STOREGLOBAL, DEFGLOBAL, JUMPFALSE,
		ADD, SUB, MUL, DIV, MOD, EQ, NE, LT, LE, GT, GE, INDEX, RETURN:
		return -1
	case DUP2:
		return 2
	case SETINDEX:
		return -3
	case CALL:
		return -arg
	case MAKELIST:
		return 1 - arg
	case MAKEMAP:
		return 1 - 2*arg
	case INTERP:
		return 1 - arg
	case RANGEITER:
		return -2
	}
	return 0
}

// emitAt appends an instruction with its source position and returns its relative pc.
func (c *compiler) emitAt(pos syntax.Pos, op Opcode, arg int) int {
	b := c.fn
	if arg < 0 && op != SMALLINT || arg > MaxArg {
		c.errorf(pos, "program too large (argument %d of %s)", arg, op)
		arg = 0
	}
	li := LineInfo{Line: pos.Line, Col: pos.Col}
	if c.stmtKind != "" {
		li = LineInfo{Line: c.stmtPos.Line, Col: c.stmtPos.Col, Stmt: true, Kind: c.stmtKind}
		c.stmtKind = ""
	}
	b.code = append(b.code, Encode(op, arg&MaxArg))
	b.lines = append(b.lines, li)
	b.depth += stackEffect(op, arg)
	if b.depth > b.fn.MaxStack {
		b.fn.MaxStack = b.depth
	}
	return len(b.code) - 1
}

func (c *compiler) here() int { return len(c.fn.code) }

// patch sets the target of the jump at relative pc at to the relative pc target.
func (c *compiler) patch(at, target int) {
	op := Op(c.fn.code[at])
	c.fn.code[at] = Encode(op, target)
}

// beginStmt marks the next emitted instruction as the start of statement s.
func (c *compiler) beginStmt(pos syntax.Pos, kind string) {
	c.stmtPos, c.stmtKind = pos, kind
}

// floatBits keys a float constant by its bits, so that 0.0 and -0.0 (equal as Go values)
// stay two constants and NaN finds itself.
type floatBits uint64

func (c *compiler) constIndex(v any) int {
	key := v
	if f, ok := v.(float64); ok {
		key = floatBits(math.Float64bits(f))
	}
	if i, ok := c.consts[key]; ok {
		return i
	}
	c.prog.Consts = append(c.prog.Consts, v)
	c.consts[key] = len(c.prog.Consts) - 1
	return len(c.prog.Consts) - 1
}

// link lays every function out in the one program-wide code array and turns relative
// jump targets into absolute pcs.
func (c *compiler) link() {
	for _, b := range c.funcs {
		base := len(c.prog.Code)
		b.fn.Entry = base
		for _, ins := range b.code {
			switch op := Op(ins); op {
			case JUMP, LOOP, JUMPFALSE, JUMPFALSEKEEP, JUMPTRUEKEEP, NEXT:
				ins = Encode(op, Arg(ins)+base)
			}
			c.prog.Code = append(c.prog.Code, ins)
		}
		c.prog.Lines = append(c.prog.Lines, b.lines...)
		b.fn.End = len(c.prog.Code)
		for _, lr := range b.locals {
			end := lr.end
			if end < 0 {
				end = len(b.code)
			}
			b.fn.Locals = append(b.fn.Locals, LocalVar{
				Name: lr.b.Name, Slot: lr.b.Slot, Start: base + lr.start, End: base + end,
				Cell: lr.b.Captured, Const: lr.b.Const, Param: lr.b.Param,
			})
		}
	}
	if len(c.prog.Code) > MaxArg {
		c.errorf(syntax.Pos{Line: 1, Col: 1}, "program too large: %d instructions", len(c.prog.Code))
	}
}

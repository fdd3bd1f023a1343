package vm

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sync/atomic"

	"github.com/polydbg/polydbg/kite/compile"
)

// Options configure a VM. The zero value runs with no output and default limits.
type Options struct {
	Stdout, Stderr io.Writer
	MaxDepth       int        // recursion limit in frames; default 10,000
	MaxCycles      int64      // stop with an error after this many cycles; 0: no limit
	Host           []*Builtin // host functions (the console's syscalls), by name
	Seed           uint64     // seed of random(); 0 picks a fixed default
}

// DefaultMaxDepth is the recursion limit of the language doc.
const DefaultMaxDepth = 10000

// A Frame is one activation on the call stack.
type Frame struct {
	cl       *Closure
	pc       int // next pc to run (the return address of a caller frame)
	fp       int // stack index of local slot 0
	base     int // sp to restore when this frame returns
	boundary bool
}

// Hook is the debugger's side of the VM. Its methods run on the VM's goroutine while the
// program is suspended; they may inspect the VM and change traps.
type Hook interface {
	// Trap is called when execution reaches a trapped pc (see SetBreak, SetTrapMode) or the
	// next statement after Interrupt. A non-nil error aborts the program with that error.
	Trap(pc int) error
	// Exception is called with an uncaught runtime error before the stack unwinds.
	Exception(err *Error)
	// OutOfCycles is called at a safe point once Cycles reaches the limit set with
	// SetCycleLimit. The hook may raise the limit (a console's next frame) and return nil.
	OutOfCycles() error
}

// VM runs one compiled program. A VM is not safe for concurrent use, except Interrupt.
type VM struct {
	Prog     *compile.Program
	code     []uint32 // live code: program, then evaluation snippets; traps patched in
	orig     []uint32 // unpatched program code
	fused    []uint32 // program code with superinstructions, no traps (fuse.go)
	lines    []compile.LineInfo
	consts   []Value
	globals  []Value
	builtins []Value
	stack    []Value
	sp       int
	frames   []Frame
	opts     Options
	maxDepth int

	steps, cycles int64
	cycleLimit    int64  // OutOfCycles at this many cycles
	checkAt       int64  // min(cycleLimit, MaxCycles, evalLimit): the safe point test
	bias          uint32 // the start of the interpreter's packed cycle counter (budget)

	hook      Hook
	interrupt atomic.Bool
	trapMode  TrapMode
	pending   bool   // an interrupt is waiting for the next statement
	jumped    bool   // Jump moved the innermost frame during a trap
	bp        []bool // per program pc: a debugger trap is set

	evalDepth  int
	pure       int
	evalLimit  int64
	progLen    int
	snippetEnd int // code length reserved for compiled conditions

	rng         uint64
	stdoutBytes int64
	exitCode    int
}

// ErrExit is returned by Run when the program called exit(code); see ExitCode.
var ErrExit = errors.New("exit")

// New prepares prog to run. It fails if the program names a builtin the VM does not have.
func New(prog *compile.Program, opts Options) (*VM, error) {
	vm := &VM{Prog: prog, opts: opts, maxDepth: opts.MaxDepth}
	if vm.maxDepth <= 0 {
		vm.maxDepth = DefaultMaxDepth
	}
	if vm.opts.Stdout == nil {
		vm.opts.Stdout = io.Discard
	}
	if vm.opts.Stderr == nil {
		vm.opts.Stderr = io.Discard
	}
	if err := verify(prog); err != nil {
		return nil, err
	}
	vm.fused = fuse(prog)
	vm.code = append([]uint32(nil), vm.fused...)
	vm.orig = prog.Code
	vm.lines = append([]compile.LineInfo(nil), prog.Lines...)
	vm.progLen = len(prog.Code)
	vm.snippetEnd = vm.progLen
	vm.bp = make([]bool, len(prog.Code))
	for _, c := range prog.Consts {
		vm.consts = append(vm.consts, constValue(c))
	}
	vm.globals = make([]Value, len(prog.Globals))
	for i := range vm.globals {
		vm.globals[i] = undef
	}
	table := builtinTable(opts.Host)
	for _, name := range prog.Builtins {
		b, ok := table[name]
		if !ok {
			return nil, errors.New("kite: program uses unknown builtin " + name)
		}
		vm.builtins = append(vm.builtins, BuiltinValue(b))
	}
	vm.stack = make([]Value, 1024)
	vm.cycleLimit = math.MaxInt64
	vm.rng = opts.Seed
	if vm.rng == 0 {
		vm.rng = 0x9E3779B97F4A7C15
	}
	vm.updateCheck()
	return vm, nil
}

func constValue(c any) Value {
	switch c := c.(type) {
	case int64:
		return Int(c)
	case float64:
		return Float(c)
	case string:
		return Str(c)
	}
	return Nil
}

// SetHook installs the debugger hook (nil removes it).
func (vm *VM) SetHook(h Hook) { vm.hook = h }

// Steps and Cycles are the instructions executed and their cost so far.
func (vm *VM) Steps() int64  { return vm.steps }
func (vm *VM) Cycles() int64 { return vm.cycles }

// StdoutBytes is how many bytes print has written.
func (vm *VM) StdoutBytes() int64 { return vm.stdoutBytes }

// ExitCode is the code passed to exit(), or 0.
func (vm *VM) ExitCode() int { return vm.exitCode }

// SetCycleLimit makes the VM call Hook.OutOfCycles at the first safe point at or after
// limit cycles (math.MaxInt64: never).
func (vm *VM) SetCycleLimit(limit int64) {
	vm.cycleLimit = limit
	vm.updateCheck()
}

func (vm *VM) updateCheck() {
	c := vm.cycleLimit
	if vm.opts.MaxCycles > 0 && vm.opts.MaxCycles < c {
		c = vm.opts.MaxCycles
	}
	if vm.evalDepth > 0 && vm.evalLimit < c {
		c = vm.evalLimit
	}
	vm.checkAt = c
}

// Interrupt asks the VM to call Hook.Trap at the next statement. It is the one method that
// is safe to call from any goroutine: the VM notices it at its next safe point (a loop's
// back edge or a call), so even a loop with no calls is interrupted.
func (vm *VM) Interrupt() { vm.interrupt.Store(true) }

// Run runs the program's top level (and main, if defined) to the end.
// It returns nil, ErrExit after exit(), or the error that ended it (*Error for a runtime
// error, or the error a hook returned).
func (vm *VM) Run() (err error) {
	defer vm.guard(&err, 0)
	top := &Closure{Fn: vm.Prog.Funcs[0]}
	vm.stack[0] = FuncValue(top)
	vm.sp = 1
	vm.pushFrame(top, 1, 0, true)
	vm.sp = 1 + top.Fn.NumLocals
	_, err = vm.run()
	if errors.Is(err, ErrExit) {
		return ErrExit
	}
	return err
}

func (vm *VM) pushFrame(cl *Closure, fp, base int, boundary bool) {
	vm.ensureStack(fp + cl.Fn.NumLocals + cl.Fn.MaxStack + 8)
	vm.appendFrame(cl, cl.Fn.Entry, fp, base, boundary)
}

// appendFrame pushes a frame in place, field by field: append of a literal zeroes and copies
// it through the runtime, which costs a measurable part of a call from map or filter and of
// a breakpoint condition.
func (vm *VM) appendFrame(cl *Closure, pc, fp, base int, boundary bool) {
	n := len(vm.frames)
	if n < cap(vm.frames) {
		vm.frames = vm.frames[:n+1]
	} else {
		vm.frames = append(vm.frames, Frame{})
	}
	f := &vm.frames[n]
	f.cl, f.pc, f.fp, f.base, f.boundary = cl, pc, fp, base, boundary
}

func (vm *VM) ensureStack(n int) {
	if n <= len(vm.stack) {
		return
	}
	size := 2 * len(vm.stack)
	for size < n {
		size *= 2
	}
	s := make([]Value, size)
	copy(s, vm.stack[:vm.sp])
	vm.stack = s
}

// Call calls a function value with arguments and returns its result. Builtins use it to
// call back into Kite (map, filter), and the debugger's REPL to call user functions.
func (vm *VM) Call(fn Value, args ...Value) (_ Value, err error) {
	if len(vm.frames) == 0 { // called by the host, not by a builtin inside the VM
		defer vm.guard(&err, 0)
	}
	need := vm.sp + len(args) + 1
	if fn.k == FuncKind { // room for the callee's frame too: one check (map and filter call per item)
		f := fn.Closure().Fn
		need = max(need, vm.sp+1+f.NumLocals+f.MaxStack+8)
	}
	vm.ensureStack(need)
	base := vm.sp
	vm.stack[vm.sp] = fn
	vm.sp++
	for i, a := range args { // a loop: copy of one or two values costs a bulk write barrier
		vm.stack[vm.sp+i] = a
	}
	vm.sp += len(args)
	switch fn.k {
	case FuncKind:
		cl := fn.Closure()
		if len(args) != cl.Fn.NumParams {
			vm.sp = base
			return Nil, vm.errorf("wrong argument count: %s expects %d, got %d", fnDisplayName(cl.Fn.Name), cl.Fn.NumParams, len(args))
		}
		if len(vm.frames) >= vm.maxDepth {
			vm.sp = base
			return Nil, vm.errorf("stack overflow (more than %d frames)", vm.maxDepth)
		}
		if vm.pure > 0 {
			vm.sp = base
			return Nil, vm.errorf("calling %s is not allowed in pure mode", fnDisplayName(cl.Fn.Name))
		}
		vm.appendFrame(cl, cl.Fn.Entry, base+1, base, true)
		vm.sp = base + 1 + cl.Fn.NumLocals
		for i := base + 1 + len(args); i < vm.sp; i++ { // a loop: clear costs a bulk write barrier
			vm.stack[i] = Value{}
		}
		return vm.run()
	case BuiltinKind:
		b := fn.Builtin()
		if vm.pure > 0 && !b.Pure {
			vm.sp = base
			return Nil, vm.errorf("%s is impure and cannot be called in pure mode", b.Name)
		}
		argv := append([]Value(nil), args...)
		vm.sp = base
		return b.Fn(vm, argv)
	}
	vm.sp = base
	return Nil, vm.errorf("cannot call a value of type %s", fn.TypeName())
}

func fnDisplayName(name string) string {
	if name == "" {
		return "<fn>"
	}
	return name
}

// guard turns a Go panic in the interpreter into a runtime error and drops the frames above
// nframes. Compiled code is trusted, so this is a safety net: it keeps a corrupt program (a
// damaged compiled file) or a bug from taking the host process down.
func (vm *VM) guard(err *error, nframes int) {
	r := recover()
	if r == nil {
		return
	}
	loc := Location{File: vm.Prog.File}
	if len(vm.frames) > nframes {
		fr := &vm.frames[len(vm.frames)-1]
		loc = vm.location(fr.cl.Fn.Name, fr.pc)
	}
	vm.frames = vm.frames[:nframes]
	*err = &Error{Msg: fmt.Sprintf("internal error: %v", r), Loc: loc, Stack: []Location{loc}, located: true, raised: true}
}

// verify checks what the interpreter assumes of every program without checking it again at
// run time: known opcodes, and jumps that stay in their function, forward except for loops
// (whose back edges are the safe points where pause, terminate and cycle limits act). The
// compiler always produces such code; a damaged compiled file may not.
func verify(p *compile.Program) error {
	if len(p.Funcs) == 0 || len(p.Lines) != len(p.Code) {
		return errors.New("kite: invalid program: inconsistent tables")
	}
	for _, f := range p.Funcs {
		if f.Entry < 0 || f.End > len(p.Code) || f.Entry >= f.End {
			return fmt.Errorf("kite: invalid program: function %q has no code", f.Name)
		}
		for pc := f.Entry; pc < f.End; pc++ {
			ins := p.Code[pc]
			op, arg := compile.Op(ins), compile.Arg(ins)
			switch {
			case op >= compile.NumOpcodes || op == compile.BREAK:
				return fmt.Errorf("kite: invalid program: bad opcode %d at pc %d", op, pc)
			case op == compile.LOOP && (arg < f.Entry || arg > pc):
				return fmt.Errorf("kite: invalid program: loop at pc %d jumps to %d", pc, arg)
			case isForwardJump(op) && (arg <= pc || arg >= f.End):
				return fmt.Errorf("kite: invalid program: jump at pc %d goes to %d", pc, arg)
			}
		}
	}
	return nil
}

func isForwardJump(op compile.Opcode) bool {
	switch op {
	case compile.JUMP, compile.JUMPFALSE, compile.JUMPFALSEKEEP, compile.JUMPTRUEKEEP, compile.NEXT:
		return true
	}
	return false
}

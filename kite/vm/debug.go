package vm

import (
	"math"

	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/syntax"
)

// TrapMode says which pcs trap besides breakpoints. Traps are patched into the code, so a
// program with no trap runs the same instructions as one with no debugger.
type TrapMode uint8

const (
	TrapNone         TrapMode = iota
	TrapStatements            // every statement start (stepping, profiling)
	TrapInstructions          // every instruction (instruction stepping)
)

// SetTrapMode changes which pcs trap and re-patches the code.
func (vm *VM) SetTrapMode(m TrapMode) {
	if vm.trapMode == m {
		return
	}
	vm.trapMode = m
	vm.repatch()
}

// TrapMode returns the current mode.
func (vm *VM) TrapMode() TrapMode { return vm.trapMode }

// SetBreak sets or clears the breakpoint trap at a program pc. It reports false for a pc
// outside the program.
func (vm *VM) SetBreak(pc int, on bool) bool {
	if pc < 0 || pc >= vm.progLen {
		return false
	}
	vm.bp[pc] = on
	vm.patch(pc)
	return true
}

func (vm *VM) trapped(pc int) bool {
	switch {
	case vm.bp[pc], vm.trapMode == TrapInstructions:
		return true
	case vm.trapMode == TrapStatements || vm.pending:
		return vm.lines[pc].Stmt
	}
	return false
}

// patch re-decides the live word at pc and at the superinstructions before it that cover
// pc (see fuse.go).
func (vm *VM) patch(pc int) {
	for s := max(pc-maxFused+1, 0); s <= pc; s++ {
		vm.code[s] = vm.liveWord(s)
	}
}

func (vm *VM) repatch() {
	for pc := 0; pc < vm.progLen; pc++ {
		vm.code[pc] = vm.liveWord(pc)
	}
}

// trap runs the hook for a trapped pc.
func (vm *VM) trap(pc int) error {
	if vm.pending {
		vm.pending = false
		vm.repatch()
	}
	return vm.hook.Trap(pc)
}

// safePoint runs at loop back edges and calls when an interrupt or a cycle limit is due.
func (vm *VM) safePoint() error {
	if vm.interrupt.Swap(false) && vm.hook != nil {
		vm.pending = true // trap at the next statement start
		vm.repatch()
	}
	if vm.evalDepth > 0 && vm.cycles >= vm.evalLimit {
		return vm.errorf("evaluation budget exceeded")
	}
	if vm.opts.MaxCycles > 0 && vm.cycles >= vm.opts.MaxCycles {
		return vm.errorf("cycle limit exceeded (%d cycles)", vm.opts.MaxCycles)
	}
	if vm.cycles >= vm.cycleLimit {
		if vm.hook == nil || vm.evalDepth > 0 {
			vm.cycleLimit = math.MaxInt64
		} else if err := vm.hook.OutOfCycles(); err != nil {
			return err
		}
	}
	vm.updateCheck()
	return nil
}

// FrameInfo describes one frame of the call stack.
type FrameInfo struct {
	Func *compile.Func
	Location
	Depth int // frames below this one plus one: the innermost frame has the greatest
}

// NumFrames is the depth of the call stack.
func (vm *VM) NumFrames() int { return len(vm.frames) }

// Frame returns frame i, 0 being the innermost. Its pc is the instruction being executed,
// or for a caller the call it is waiting on.
func (vm *VM) Frame(i int) (FrameInfo, bool) {
	j := len(vm.frames) - 1 - i
	if i < 0 || j < 0 {
		return FrameInfo{}, false
	}
	fr := &vm.frames[j]
	pc := vm.framePC(j)
	return FrameInfo{Func: fr.cl.Fn, Location: vm.location(fr.cl.Fn.Name, pc), Depth: j + 1}, true
}

// framePC is the pc that frame j (0: outermost) is at. A caller whose callee was pushed by
// the CALL instruction holds its return address, one after the call. The innermost frame,
// and a frame below a boundary frame (a function that a builtin such as map calls back, or
// an evaluation), hold the pc of the instruction they are executing or stopped at.
func (vm *VM) framePC(j int) int {
	pc := vm.frames[j].pc
	if j+1 < len(vm.frames) && !vm.frames[j+1].boundary {
		pc--
	}
	return pc
}

// Variable is a named value of a scope.
type Variable struct {
	Name  string
	Value Value
	Param bool // a parameter of the frame's function
}

// Locals returns the variables visible in frame i: its locals in scope at its pc, in
// declaration order, then the variables its function captured.
func (vm *VM) Locals(i int) []Variable { return vm.AppendLocals(nil, i) }

// AppendLocals is Locals appending to out.
func (vm *VM) AppendLocals(out []Variable, i int) []Variable {
	j := len(vm.frames) - 1 - i
	if i < 0 || j < 0 {
		return out
	}
	fr := &vm.frames[j]
	pc := vm.framePC(j)
	for _, l := range fr.cl.Fn.VisibleLocals(pc) {
		v := vm.stack[fr.fp+l.Slot]
		if v.k == cellKind {
			v = (*Cell)(v.p).V
		} else if l.Cell {
			continue // declared but its cell not yet made
		}
		out = append(out, Variable{Name: l.Name, Value: v, Param: l.Param})
	}
	for k, fv := range fr.cl.Fn.Free {
		out = append(out, Variable{Name: fv.Name, Value: fr.cl.Free[k].V})
	}
	return out
}

// Globals returns the defined globals in declaration order.
func (vm *VM) Globals() []Variable { return vm.AppendGlobals(nil) }

// AppendGlobals is Globals appending to out.
func (vm *VM) AppendGlobals(out []Variable) []Variable {
	for i, g := range vm.Prog.Globals {
		if g.Implicit || vm.globals[i].k == undefKind {
			continue
		}
		out = append(out, Variable{Name: g.Name, Value: vm.globals[i]})
	}
	return out
}

// Lines is the line table of the program (and of compiled snippets after it).
func (vm *VM) Line(pc int) compile.LineInfo {
	if pc < 0 || pc >= len(vm.lines) {
		return compile.LineInfo{}
	}
	return vm.lines[pc]
}

// Instruction returns the unpatched instruction at pc.
func (vm *VM) Instruction(pc int) uint32 { return vm.orig[pc] }

// EvalMode says what an evaluation may do.
type EvalMode struct {
	Pure   bool  // only pure builtins, no user functions
	Budget int64 // cycles; 0 means DefaultEvalBudget
}

// DefaultEvalBudget bounds an evaluation so a watch can never hang the program.
const DefaultEvalBudget = 1_000_000

// Compiled is an expression compiled once for a frame's function and pc (a breakpoint
// condition), kept in the VM's code for as long as the VM lives.
type Compiled struct {
	entry    int
	maxStack int
	pure     bool
}

// IsPure reports whether the named builtin is pure.
func IsPure(name string) bool {
	b, ok := builtinTable(nil)[name]
	return ok && b.Pure
}

func (vm *VM) compileSnippet(e syntax.Expr, fn *compile.Func, pc int, pure bool) (*Compiled, error) {
	isPure := func(name string) bool {
		if b, ok := builtinTable(vm.opts.Host)[name]; ok {
			return b.Pure
		}
		return false
	}
	s, err := compile.CompileExpr(vm.Prog, e, fn, pc, compile.ExprOptions{
		Pure: pure, IsPure: isPure, CodeBase: len(vm.code), ConstBase: len(vm.consts),
	})
	if err != nil {
		return nil, err
	}
	c := &Compiled{entry: len(vm.code), maxStack: s.MaxStack, pure: pure}
	vm.code = append(vm.code, s.Code...)
	vm.lines = append(vm.lines, s.Lines...)
	for _, k := range s.Consts {
		vm.consts = append(vm.consts, constValue(k))
	}
	return c, nil
}

// Compile compiles e once for evaluation in frames of fn stopped at pc (a breakpoint
// condition or hit condition); run it with EvalCompiled.
func (vm *VM) Compile(e syntax.Expr, fn *compile.Func, pc int, pure bool) (*Compiled, error) {
	if len(vm.code) != vm.snippetEnd {
		vm.code, vm.lines = vm.code[:vm.snippetEnd], vm.lines[:vm.snippetEnd]
	}
	c, err := vm.compileSnippet(e, fn, pc, pure)
	if err == nil {
		vm.snippetEnd = len(vm.code)
	}
	return c, err
}

// Eval evaluates e in the scope of frame i (0: innermost) and forgets its code afterwards.
func (vm *VM) Eval(e syntax.Expr, frame int, mode EvalMode) (Value, error) {
	fn, pc := (*compile.Func)(nil), 0
	if fi, ok := vm.Frame(frame); ok {
		fn, pc = fi.Func, fi.PC
	} else if frame != 0 || len(vm.frames) != 0 {
		return Nil, Errorf("no frame %d", frame)
	}
	mark, cmark := len(vm.code), len(vm.consts)
	c, err := vm.compileSnippet(e, fn, pc, mode.Pure)
	if err != nil {
		return Nil, err
	}
	v, err := vm.EvalCompiled(c, frame, mode.Budget)
	vm.code, vm.lines, vm.consts = vm.code[:mark], vm.lines[:mark], vm.consts[:cmark]
	return v, err
}

// EvalCompiled runs a compiled expression in frame i. The program's counters are left as
// they were: an evaluation costs the program nothing it can observe.
func (vm *VM) EvalCompiled(c *Compiled, frame int, budget int64) (_ Value, err error) {
	var cl *Closure
	fp := 0
	if j := len(vm.frames) - 1 - frame; frame >= 0 && j >= 0 {
		cl, fp = vm.frames[j].cl, vm.frames[j].fp
	} else if len(vm.frames) == 0 {
		cl = &Closure{Fn: vm.Prog.Funcs[0]}
	} else {
		return Nil, Errorf("no frame %d", frame)
	}
	if budget <= 0 {
		budget = DefaultEvalBudget
	}
	steps, cycles, limit, sp := vm.steps, vm.cycles, vm.evalLimit, vm.sp
	evalDepth, pure, nframes := vm.evalDepth, vm.pure, len(vm.frames)
	defer func() {
		if err != nil && vm.evalDepth != evalDepth { // a panic left the evaluation half done
			vm.evalDepth, vm.pure = evalDepth, pure
			vm.steps, vm.cycles, vm.evalLimit, vm.sp = steps, cycles, limit, sp
			vm.updateCheck()
		}
	}()
	defer vm.guard(&err, nframes)
	vm.ensureStack(vm.sp + c.maxStack + 8)
	vm.appendFrame(cl, c.entry, fp, vm.sp, true)
	vm.evalDepth++
	if c.pure {
		vm.pure++
	}
	vm.evalLimit = vm.cycles + budget
	vm.updateCheck()
	v, err := vm.run()
	vm.evalDepth--
	if c.pure {
		vm.pure--
	}
	vm.steps, vm.cycles, vm.evalLimit, vm.sp = steps, cycles, limit, sp
	vm.updateCheck()
	return v, err
}

// ReturnAddress is the pc at which the caller of frame i (0: innermost) resumes when frame i
// returns: the instruction after its call. ok is false for the outermost frame and for a
// function called back by a builtin or an evaluation, which return into Go code.
func (vm *VM) ReturnAddress(i int) (pc int, ok bool) {
	j := len(vm.frames) - 1 - i
	if i < 0 || j < 1 || vm.frames[j].boundary {
		return 0, false
	}
	return vm.frames[j-1].pc, true
}

// StackTop is the value on top of the innermost frame's operand stack: at a function's
// return address, the value it returned.
func (vm *VM) StackTop() (Value, bool) {
	if len(vm.frames) == 0 || vm.sp <= vm.frames[len(vm.frames)-1].fp {
		return Nil, false
	}
	return vm.stack[vm.sp-1], true
}

// Package kitevm is the engine target for Kite programs: it runs the VM as a coroutine
// (drive.go), on the goroutine of a caller that steps it or on one of its own. While the
// program is stopped, the coroutine waits in the VM's hook; reads of the stopped VM (stack,
// variables, pure evaluation) run on the caller's goroutine under the target's lock, which a
// resume must take, and evaluations that may run program code are posted to the coroutine.
package kitevm

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/vm"
)

// Options configure a Kite target. The zero value debugs a plain program.
type Options struct {
	Host     []*vm.Builtin     // host functions the program was compiled with
	MaxDepth int               // recursion limit (vm.DefaultMaxDepth when 0)
	Profiler *profile.Profiler // when set, every statement executed is recorded
	// OutOfCycles, when set, is called at a safe point once the VM's cycle limit is
	// reached (a console's frame budget); see vm.Hook.
	OutOfCycles func(v *vm.VM) error
	// Setup is called with the VM before the program starts (a console sets its limits).
	Setup func(v *vm.VM)
	// Run, when set, drives the program instead of vm.Run: a console runs the top level,
	// then init() and frame() in a loop. It runs on the program's coroutine and may call Suspend
	// (frame boundaries), TakePause, TakeFrameStep and Terminating.
	Run func(t *Target) error
	// Frames allows Resume(engine.StepFrame): the Run function stops at the next frame
	// boundary when TakeFrameStep reports true.
	Frames bool
	// Annotate, when set, completes every stop before it is reported (a console sets the
	// frame index). It runs on the program's coroutine.
	Annotate func(stop *engine.Stop)
	Seed     uint64
}

// ErrTerminated ends the program when the debugger terminates it.
var ErrTerminated = errors.New("terminated by the debugger")

// Target debugs one compiled Kite program.
type Target struct {
	prog *compile.Program
	vm   *vm.VM
	opts Options
	h    engine.Handler

	stepFilter atomic.Pointer[engine.StepFilter] // the functions a step into passes over (gdb's skip)

	mu       sync.Mutex
	started  bool
	stopped  bool      // waiting in suspend for commands
	queue    []command // commands for the coroutine
	driving  bool      // a goroutine runs the coroutine, or is about to
	pending  []trapChange
	hasTraps atomic.Bool // pending is not empty

	pauseReq  atomic.Bool
	termReq   atomic.Bool
	frameStep atomic.Bool

	// Owned by the program's coroutine, or by an inspection holding mu while the program is stopped.
	bp        []bool // per pc: a trap the engine asked for
	locs      []engine.Location
	entry     bool
	stepping  bool
	stepMode  engine.ResumeMode
	stepDepth int
	retPC     int              // the return address trapped for a step (armReturn)
	retArmed  bool             // retPC is trapped
	retFunc   string           // the function the step may return from
	returned  bool             // the stop being made is at the return address
	between   bool             // suspended by Suspend between instructions, not at a trap
	idleAt    *engine.Location // where an idle stop (no Kite frame: between a console's frames) is
	inTrap    bool             // the current stop was made in a trap (Jump may move it)
	loops     []loopSpan       // the for loops' bodies (jump.go)
	refs      []ref
	scratch   []vm.Variable // AppendFrameVariables's list of the VM's variables, reused
	stackKeys []stackKey
	mem       vm.MemStats
	done      chan struct{}
	watchState

	// The coroutine (drive.go): next is called by its one driver at a time, yield and
	// borrowed are the coroutine's.
	next     func() (yieldKind, bool)
	yield    func(yieldKind) bool
	borrowed bool
}

type trapChange struct {
	pc int
	on bool
}

type command struct {
	fn        func() // an inspection; nil for a resume
	done      chan struct{}
	mode      engine.ResumeMode
	terminate bool
}

// New makes a target for prog (compiled with opts.Host).
func New(prog *compile.Program, opts Options) (*Target, error) {
	t := &Target{prog: prog, opts: opts, bp: make([]bool, len(prog.Code)), done: make(chan struct{})}
	v, err := vm.New(prog, vm.Options{
		Stdout: outputWriter{t, "stdout"}, Stderr: outputWriter{t, "stderr"},
		MaxDepth: opts.MaxDepth, Host: opts.Host, Seed: opts.Seed,
	})
	if err != nil {
		return nil, err
	}
	t.vm = v
	v.SetHook(hook{t})
	if opts.Setup != nil {
		opts.Setup(v)
	}
	return t, nil
}

// Program returns the compiled program.
func (t *Target) Program() *compile.Program { return t.prog }

// VM returns the VM; use it only from hooks that run on the program's coroutine, or after Done.
func (t *Target) VM() *vm.VM { return t.vm }

// Done is closed when the program has ended.
func (t *Target) Done() <-chan struct{} { return t.done }

// Memory is the live-value report taken when the program ended.
func (t *Target) Memory() vm.MemStats { return t.mem }

type outputWriter struct {
	t   *Target
	cat string
}

func (w outputWriter) Write(p []byte) (int, error) {
	w.t.goOnAlone() // the engine may hold output back until a slow reader reads
	if w.t.h != nil {
		w.t.h.Output(w.cat, string(p))
	}
	return len(p), nil
}

// Start implements engine.Target.
func (t *Target) Start(h engine.Handler, stopOnEntry bool) error {
	t.mu.Lock()
	if t.started {
		t.mu.Unlock()
		return errors.New("already started")
	}
	t.started = true
	t.h = h
	t.mu.Unlock()
	t.applyTraps()
	t.entry = stopOnEntry
	t.setTrapMode()
	t.watchLongRun()
	t.startCoroutine()
	t.mu.Lock()
	t.driving = true
	t.mu.Unlock()
	if stopOnEntry && t.opts.Run == nil {
		t.drive(true) // the entry stop is reported when Start returns
		return nil
	}
	go t.drive(false)
	return nil
}

func (t *Target) run() {
	var err error
	if t.opts.Run != nil {
		err = t.opts.Run(t)
	} else {
		err = t.vm.Run()
	}
	if p := t.opts.Profiler; p != nil {
		p.Finish()
	}
	t.mem = t.vm.MemStats()
	var re *vm.Error
	switch {
	case err == nil:
		t.h.Exited(0)
	case errors.Is(err, vm.ErrExit):
		t.h.Exited(t.vm.ExitCode())
	case errors.Is(err, ErrTerminated), t.termReq.Load():
		t.h.Terminated()
	case errors.As(err, &re):
		t.h.Output("stderr", re.Error()+"\n"+re.Trace())
		t.h.Exited(1)
	default:
		t.h.Output("stderr", "error: "+err.Error()+"\n")
		t.h.Exited(1)
	}
	close(t.done)
}

// Resume implements engine.Target.
func (t *Target) Resume(mode engine.ResumeMode) error {
	if mode == engine.StepFrame {
		if !t.opts.Frames {
			return errors.New("stepFrame needs a console target")
		}
		t.frameStep.Store(true)
		mode = engine.Continue
	}
	return t.resume(command{mode: mode})
}

// TakePause reports (once) that a pause was requested; a Run function that waits between
// frames checks it and suspends.
func (t *Target) TakePause() bool { return t.pauseReq.Swap(false) }

// TakeFrameStep reports (once) that a StepFrame is in progress.
func (t *Target) TakeFrameStep() bool { return t.frameStep.Swap(false) }

// Terminating reports that Terminate was called; a Run function returns ErrTerminated.
func (t *Target) Terminating() bool { return t.termReq.Load() }

// resume hands a resume command to the program waiting in suspend. A step runs on the
// caller's goroutine (drive.go): its stop is reported when resume returns, unless it ran
// long or wrote output, which go on on a goroutine of their own.
func (t *Target) resume(c command) error {
	t.mu.Lock()
	if !t.stopped {
		t.mu.Unlock()
		return engine.ErrNotStopped
	}
	t.stopped = false
	inline := t.post(c, t.stepsInline(c))
	t.mu.Unlock()
	if inline {
		t.drive(true)
	}
	return nil
}

// Pause implements engine.Target.
func (t *Target) Pause() error {
	t.pauseReq.Store(true)
	t.vm.Interrupt()
	return nil
}

// Terminate implements engine.Target: cooperative, at the next statement.
func (t *Target) Terminate() error {
	t.termReq.Store(true)
	t.mu.Lock()
	stopped := t.stopped
	if stopped {
		t.stopped = false
		t.post(command{terminate: true}, false)
	}
	t.mu.Unlock()
	if !stopped {
		t.vm.Interrupt()
	}
	return nil
}

// Close implements engine.Target.
func (t *Target) Close() error {
	t.mu.Lock()
	started := t.started
	t.mu.Unlock()
	if started {
		_ = t.Terminate()
		<-t.done
	}
	return nil
}

// do runs f while the program is stopped, on the calling goroutine: the program's coroutine is
// parked in suspend and touches nothing until a resume, which must take t.mu that f holds.
// Inspections so cost no hand-off to another thread (a stop's variables take several).
func (t *Target) do(f func()) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.stopped {
		return engine.ErrNotStopped
	}
	f()
	return nil
}

// doOnVM runs f on the program's coroutine, driven by a goroutine of its own, while the
// program is stopped: for evaluations that may run program code, whose output may wait for
// a reader and so must not hold t.mu.
func (t *Target) doOnVM(f func()) error {
	t.mu.Lock()
	if !t.stopped {
		t.mu.Unlock()
		return engine.ErrNotStopped
	}
	done := make(chan struct{})
	t.post(command{fn: f, done: done}, false)
	t.mu.Unlock()
	<-done
	return nil
}

// SetTrap implements engine.Target. Changes are queued and applied by the program's coroutine
// (at once if the program is running: the VM is interrupted for it).
func (t *Target) SetTrap(loc engine.Location, on bool) error {
	if !loc.HasPC || loc.PC >= uint64(len(t.prog.Code)) {
		return fmt.Errorf("no instruction at %v", loc.PC)
	}
	t.mu.Lock()
	t.pending = append(t.pending, trapChange{int(loc.PC), on})
	t.queuedUnlock()
	return nil
}

// queuedUnlock says that trap work is queued for the program's coroutine (applyTraps) and
// unlocks t.mu; a running program is interrupted for the coroutine to do it at once.
func (t *Target) queuedUnlock() {
	t.hasTraps.Store(true)
	running := t.started && !t.stopped
	t.mu.Unlock()
	if running {
		t.vm.Interrupt()
	}
}

// applyTraps patches the queued trap changes into the VM (on the program's coroutine only).
func (t *Target) applyTraps() {
	if !t.hasTraps.Load() {
		return
	}
	t.mu.Lock()
	changes := t.pending
	t.pending = nil
	t.hasTraps.Store(false)
	t.mu.Unlock()
	for _, c := range changes {
		t.bp[c.pc] = c.on
		t.syncTrap(c.pc)
	}
	t.armWatches()
}

// setTrapMode chooses which pcs trap for the current stepping state.
func (t *Target) setTrapMode() {
	switch {
	case t.stepping && t.stepMode == engine.StepInstruction:
		t.vm.SetTrapMode(vm.TrapInstructions)
	case t.stepping || t.entry || t.opts.Profiler != nil:
		t.vm.SetTrapMode(vm.TrapStatements)
	default:
		t.vm.SetTrapMode(vm.TrapNone)
	}
}

// location describes a pc of the program.
func (t *Target) location(pc int, fn string) engine.Location {
	li := t.vm.Line(pc)
	return engine.Location{File: t.prog.File, Line: int(li.Line), Col: int(li.Col), Func: fn, PC: uint64(pc), HasPC: true}
}

// SameFile reports whether path names the program's file (after making both absolute,
// cleaning them and resolving symlinks). An empty path means the program's file.
func (t *Target) SameFile(path string) bool {
	return path == "" || normPath(path) == normPath(t.prog.File)
}

// SourceText implements engine.SourceHolder: the text the program was compiled from.
func (t *Target) SourceText(file string) ([]byte, bool) {
	if file == "" || !t.SameFile(file) {
		return nil, false
	}
	return t.prog.Source, true
}

func normPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Clean(p)
}

// ResolveLine implements engine.Target.
func (t *Target) ResolveLine(file string, line int) (engine.Location, error) {
	if !t.SameFile(file) {
		return engine.Location{}, fmt.Errorf("%s is not part of the program (%s)", file, t.prog.File)
	}
	_, pc, ok := t.prog.NextStmtLine(line)
	if !ok {
		return engine.Location{}, fmt.Errorf("no code at or after line %d", line)
	}
	return t.location(pc, funcName(t.prog.FuncAt(pc))), nil
}

// ResolveFunction implements engine.Target.
func (t *Target) ResolveFunction(name string) (engine.Location, error) {
	fs := t.prog.FuncByName(name)
	if len(fs) == 0 || name == "" {
		return engine.Location{}, engine.NoFunctionError{Name: name}
	}
	pc := fs[0].FirstStmt(t.prog)
	return t.location(pc, name), nil
}

// PCsAreIndexes implements engine.IndexedPCs: a Kite pc is an instruction's index.
func (t *Target) PCsAreIndexes() bool { return true }

// StatementStart implements engine.StatementStarts.
func (t *Target) StatementStart(pc uint64) bool {
	return pc < uint64(len(t.prog.Code)) && t.vm.Line(int(pc)).Stmt
}

// ResolvePC implements engine.InstructionResolver.
func (t *Target) ResolvePC(pc uint64) (engine.Location, error) {
	if pc >= uint64(len(t.prog.Code)) {
		return engine.Location{}, fmt.Errorf("pc %d is outside the program (0..%d)", pc, len(t.prog.Code)-1)
	}
	return t.location(int(pc), funcName(t.prog.FuncAt(int(pc)))), nil
}

func funcName(f *compile.Func) string {
	if f == nil {
		return ""
	}
	if f.Name == "" {
		return "<fn>"
	}
	return f.Name
}

var _ engine.Target = (*Target)(nil)
var _ engine.InstructionResolver = (*Target)(nil)

// LineCode implements engine.LineTabler: a line's first statement, from its first
// instruction to the next statement's (the next line with code for a line without).
func (t *Target) LineCode(file string, line int) (engine.LineCode, error) {
	if !t.SameFile(file) {
		return engine.LineCode{}, fmt.Errorf("No source file named %s.", file)
	}
	best, last := -1, 0
	for pc := range t.prog.Code {
		li := t.vm.Line(pc)
		last = max(last, int(li.Line))
		if li.Stmt && int(li.Line) >= line && (best < 0 || li.Line < t.vm.Line(best).Line) {
			best = pc
		}
	}
	if best < 0 {
		return engine.LineCode{}, fmt.Errorf("Line number %d is out of range for %q.", line, t.prog.File)
	}
	return t.lineCode(best, int(t.vm.Line(best).Line) != line, line), nil
}

// LineCodeAt implements engine.LineTabler: the statement holding pc.
func (t *Target) LineCodeAt(pc uint64) (engine.LineCode, error) {
	if pc >= uint64(len(t.prog.Code)) {
		return engine.LineCode{}, fmt.Errorf("pc %d is outside the program (0..%d)", pc, len(t.prog.Code)-1)
	}
	start := int(pc)
	for start > 0 && !t.vm.Line(start).Stmt {
		start--
	}
	return t.lineCode(start, false, int(t.vm.Line(start).Line)), nil
}

// lineCode is the statement starting at pc, as the code of line.
func (t *Target) lineCode(pc int, noCode bool, line int) engine.LineCode {
	end := pc + 1
	for end < len(t.prog.Code) && !t.vm.Line(end).Stmt {
		end++
	}
	return engine.LineCode{File: t.prog.File, Line: line, Start: uint64(pc), End: uint64(end), NoCode: noCode}
}

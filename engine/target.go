// Package engine is polydbg's target-neutral debug session: states, breakpoints (ids,
// conditions, hit conditions, logpoints), step semantics, stop events and their fan-out to
// any number of subscribers. It imports no target and no protocol: targets implement the
// interfaces below, protocols call Session and read its events.
package engine

import (
	"context"
	"errors"
	"fmt"
)

// State is a session's lifecycle state.
type State int

const (
	Initialized State = iota // loaded, not started
	Running
	Stopped
	Exited
	Terminated
)

var stateNames = [...]string{"initialized", "running", "stopped", "exited", "terminated"}

func (s State) String() string { return stateNames[s] }

// Ended reports whether the debuggee is gone.
func (s State) Ended() bool { return s == Exited || s == Terminated }

// StopReason says why the debuggee stopped.
type StopReason string

const (
	ReasonEntry      StopReason = "entry"
	ReasonBreakpoint StopReason = "breakpoint"
	ReasonStep       StopReason = "step"
	ReasonPause      StopReason = "pause"
	ReasonException  StopReason = "exception"
	ReasonFrame      StopReason = "frame" // a console target reached a frame boundary
)

// ResumeMode is how execution continues from a stop.
type ResumeMode int

const (
	Continue        ResumeMode = iota
	StepInto                   // to the next statement, entering calls
	StepOver                   // to the next statement at the same or a shallower call depth
	StepOut                    // to the next statement after the current function returns
	StepInstruction            // exactly one instruction
	StepFrame                  // to the next frame boundary (console targets)
)

var resumeNames = [...]string{"continue", "stepInto", "stepOver", "stepOut", "stepInstruction", "stepFrame"}

func (m ResumeMode) String() string { return resumeNames[m] }

// Location is a place in the debuggee. PC is meaningful when HasPC is set.
type Location struct {
	File  string `json:"file,omitempty"`
	Line  int    `json:"line,omitempty"`
	Col   int    `json:"col,omitempty"`
	Func  string `json:"func,omitempty"`
	PC    uint64 `json:"pc,omitempty"`
	HasPC bool   `json:"-"`
	// StandIn says the place stands for a library function until its library is loaded
	// (a native program's PLT entry, puts@plt, before it runs); see LibraryLoads.
	StandIn bool `json:"-"`
}

// FunctionSignatures is implemented by targets whose language overloads function names
// (C++): the function at a place with its parameters, as gdb lists a breakpoint's place
// (geo::add(int, int)); false where the name alone says it.
type FunctionSignatures interface {
	FunctionSignature(pc uint64) (string, bool)
}

// Stop describes one stop of the debuggee.
type Stop struct {
	Reason       StopReason
	Location     Location
	BreakpointID int    // for ReasonBreakpoint
	Text         string // the exception message, a condition's evaluation error, or (ReasonExec) the program run
	// FrameIndex is, for console targets, the frame being run when the stop happened
	// (taken then, so a client that reads the event later sees the right frame).
	FrameIndex int64
	// ReturnValue is, after a step that left a function (step out, or a step from its last
	// statement), the value it returned; nil otherwise.
	ReturnValue *Variable
	// ThreadID is the thread that stopped (its Thread.ID), 0 when the target has no threads.
	ThreadID uint64
	// Signal names the signal that stopped a native program ("SIGSEGV"), with ReasonException.
	Signal string
	// Syscall says, with ReasonSyscall, which system call the program entered or returned
	// from; BreakpointID is its catchpoint.
	Syscall *SyscallStop
	// Fork says, with ReasonFork, which process the fork made; BreakpointID is its
	// catchpoint.
	Fork *ForkStop
}

// SyscallStop is the system call of a ReasonSyscall stop.
type SyscallStop struct {
	Num      int
	Name     string // "write"; "" when the target cannot name it
	Returned bool   // its return, not its entry
}

// Frame is one frame of the call stack; index 0 is the innermost.
type Frame struct {
	Index    int
	Func     string
	Location Location
	// Module is the file of the shared library whose code the frame runs
	// ("/lib/x86_64-linux-gnu/libc.so.6"), "" for the program's own.
	Module string
	// Dummy marks the frame a call from the debugger made on the stack (gdb's "<function
	// called from gdb>"): the frames above it are the called function's, below it the
	// program's where it was stopped before (CallStoppedError).
	Dummy bool
	// AtInlinedCall marks the frame a copy of a function inlined in it was called from
	// (the frame before it is that copy's): it is at the call's line, not at an address of
	// its own, and gdb shows it without one.
	AtInlinedCall bool
}

// Scope is a group of variables of a frame ("Locals", "Globals", "Registers"...).
type Scope struct {
	Name string
	Ref  int // pass to Variables
}

// Variable is a named value as a debugger shows it. Ref > 0 means it has children
// (list items, map entries, captured variables, struct fields) to fetch with Variables.
type Variable struct {
	Name  string
	Value string
	Type  string
	Ref   int
	Len   int // number of children, when known
	// Arg is set on a frame's parameters in its Locals scope (gdb's `info args`).
	Arg bool
	// Constant marks a value the compiler knew instead of storing it (a const local of
	// optimised code): it cannot be set. ConstantBytes says it was given as bytes (a double,
	// a string), which gdb's info locals leaves out.
	Constant, ConstantBytes bool
	// Kept is the target's own reading of the value, kept with it in a front end's
	// history (ValueHistory) so that a later expression can use it whole ($1.x, $[2]),
	// as gdb's history does; nil when the target keeps none (the value's text serves).
	Kept any `json:"-"`
}

// EvalMode says what an evaluation may do.
type EvalMode struct {
	// Pure evaluation may not assign, call user functions or impure builtins, and has a
	// step budget: watches, conditions, hit conditions and logpoints use it.
	Pure bool
	// TypeOnly asks for the value's type (whatis, ptype): a call of one of the program's
	// functions gives a value of the type it returns, without running it, as gdb's.
	TypeOnly bool
}

// Target is a debuggee. Its methods are called by the Session, never concurrently for
// one target except Pause and Terminate, which may come from any goroutine at any time.
type Target interface {
	// Start begins execution, reporting to h from then on. With stopOnEntry the target
	// stops (ReasonEntry) before the first statement or instruction of the program.
	Start(h Handler, stopOnEntry bool) error
	// Resume continues a stopped target in the given mode.
	Resume(mode ResumeMode) error
	// Pause stops a running target as soon as it can (ReasonPause).
	Pause() error
	// Terminate ends the debuggee; the target then reports Terminated.
	Terminate() error

	// ResolveLine finds where a line breakpoint binds: the first line at or after line
	// that has code.
	ResolveLine(file string, line int) (Location, error)
	// ResolveFunction finds the first statement of the named function.
	ResolveFunction(name string) (Location, error)
	// SetTrap makes the target call Handler.Trap when execution reaches loc (on=true), or
	// stops doing so.
	SetTrap(loc Location, on bool) error
	// CompileCondition prepares an expression to evaluate (purely) whenever loc is reached:
	// breakpoint conditions and the ${expr} parts of log messages. Its methods are called
	// from Handler.Trap.
	CompileCondition(loc Location, expr string) (Condition, error)

	// These need a stopped target.
	Stack() ([]Frame, error)
	Scopes(frame int) ([]Scope, error)
	Variables(ref int) ([]Variable, error)
	Evaluate(frame int, expr string, mode EvalMode) (Variable, error)

	// Close releases everything the target holds (processes, connections).
	Close() error
}

// Condition is an expression compiled once for a location.
type Condition interface {
	// Eval evaluates it in the innermost frame and reports its truth.
	Eval() (truth bool, err error)
	// String evaluates it and prints its value (a logpoint's ${expr}).
	String() (string, error)
}

// IndexedPCs is implemented by targets whose pcs are instruction indexes rather than
// machine addresses (the Kite VM), so that front ends print them as numbers, not in hex.
type IndexedPCs interface {
	PCsAreIndexes() bool
}

// StatementStarts is implemented by targets that know where statements begin (a line
// table's is_stmt rows), so that a front end can show a stop in the middle of a line, after
// finish, as gdb does: with its address.
type StatementStarts interface {
	StatementStart(pc uint64) bool
}

// InstructionResolver is implemented by targets that have addressable instructions.
type InstructionResolver interface {
	// ResolvePC returns the location of the instruction at pc.
	ResolvePC(pc uint64) (Location, error)
}

// TrapConditioner is implemented by targets that can evaluate conditions where the
// debuggee runs (gdbserver's agent expressions), so a false condition never stops it.
// The session calls it whenever the breakpoints at a location change: with the conditions
// when every breakpoint there has one (the target reports the trap when any is true), or
// with nil to make the trap unconditional again. An error leaves the trap unconditional;
// the session still checks every condition itself, so correctness never depends on it.
type TrapConditioner interface {
	SetTrapConditions(loc Location, conds []Condition) error
}

// SignalExitHandler is implemented by the session's Handler besides Handler: a target
// whose program a signal ended reports that with ExitedBySignal instead of Exited. code is
// what a shell reports for it (128 + the signal's number), signal its name ("SIGSEGV").
type SignalExitHandler interface {
	ExitedBySignal(code int, signal string)
}

// ReportExit reports the end of a program to h: by its signal when signal is not "" (and h
// takes it), else by its exit code.
func ReportExit(h Handler, code int, signal string) {
	if r, ok := h.(SignalExitHandler); ok && signal != "" {
		r.ExitedBySignal(code, signal)
		return
	}
	h.Exited(code)
}

// ProcessIdentifier is implemented by targets whose program is a process: its id, also
// once it has ended, or 0 before it started. A native program's is the operating system's;
// a GDB stub names firmware's too (QEMU: 1), and gdb shows that number.
type ProcessIdentifier interface {
	ProcessID() int
}

// Handler receives what a target reports. The session implements it.
type Handler interface {
	// Trap is called when execution reaches a location set with SetTrap. The handler
	// decides (breakpoint conditions, hit counts, logpoints) and returns the stop to make,
	// or nil to keep running. It runs while the target waits, so it must be quick.
	Trap(loc Location) *Stop
	// Stopped reports that the target has stopped and waits for Resume.
	Stopped(stop Stop)
	// Output reports program output: category "stdout", "stderr" or "console".
	Output(category, text string)
	// Exited reports the end of the debuggee with its exit code.
	Exited(code int)
	// Terminated reports that the debuggee ended because Terminate was called.
	Terminated()
}

// Errors a session returns.
var (
	ErrNotStopped = errors.New("the program is not stopped")
	ErrNotStarted = errors.New("the program has not been started")
	ErrRunning    = errors.New("the program is running")
	ErrEnded      = errors.New("the program has ended")
	ErrNoFrame    = errors.New("no such frame")
	ErrNoVariable = errors.New("no such variable reference")
)

// CallStoppedError says that a function an expression called stopped at a breakpoint, or
// received a signal, before it returned: the program stays stopped there (Stop, published
// as the session's stop), the called function's frame above a Dummy frame for the caller,
// as gdb leaves it; when the function returns, the program stops where it was before the
// call (a stop with ReasonCallReturned, or the finish's own).
type CallStoppedError struct {
	Func string // the function the expression called
	Stop Stop
}

// CallAbandoner is implemented by targets that can abandon the innermost call from an
// expression left on the stack (CallStoppedError): the program is put back where it was
// before the call and a ReasonCallReturned stop says so (gdb's set unwindonsignal on does
// it at once for a signal).
type CallAbandoner interface {
	AbandonCall() error
}

// AbandonCall abandons the innermost call from an expression the program stopped in
// (CallAbandoner).
func (s *Session) AbandonCall() error {
	a, ok := s.t.(CallAbandoner)
	if !ok {
		return fmt.Errorf("abandoning a call: %w", ErrUnsupported)
	}
	seq := s.Seq()
	if err := a.AbandonCall(); err != nil {
		return err
	}
	_, err := s.WaitStop(context.Background(), seq)
	return err
}

func (e CallStoppedError) Error() string {
	return fmt.Sprintf("the program stopped in a function called from the debugger; the evaluation of the expression containing %s was abandoned", e.Func)
}

// ReasonCallReturned is the stop where a function an expression called, which had stopped
// (CallStoppedError), returned: its frame is gone, the program is where it was before the
// call.
const ReasonCallReturned StopReason = "call returned"

// NoSourceFileError says no line table of the program names the source file
// (ResolveLine). Libraries is set where shared libraries the program loads later may
// have it (a dynamically linked native program).
type NoSourceFileError struct {
	File      string
	Libraries bool
}

func (e NoSourceFileError) Error() string { return fmt.Sprintf("no source file %q", e.File) }

// NoFunctionError says a program has no function of that name (ResolveFunction);
// Libraries as NoSourceFileError's.
type NoFunctionError struct {
	Name      string
	Libraries bool
}

func (e NoFunctionError) Error() string { return fmt.Sprintf("no function %q", e.Name) }

package vm

import (
	"errors"
	"fmt"
	"strings"
)

// Location is a place in a Kite program: a function and a source position.
type Location struct {
	Func      string
	File      string
	Line, Col int
	PC        int
}

// Error is an uncaught runtime error: its message, where it happened and the Kite stack
// (innermost frame first) at that moment.
type Error struct {
	Msg   string
	Loc   Location
	Stack []Location

	located bool
	raised  bool
}

// Error formats the error as the language doc prescribes: "file:line:col: error: message".
func (e *Error) Error() string {
	if !e.located {
		return "error: " + e.Msg
	}
	return fmt.Sprintf("%s:%d:%d: error: %s", e.Loc.File, e.Loc.Line, e.Loc.Col, e.Msg)
}

// TraceEdge is how many innermost and outermost frames Trace prints of a deeper stack; the
// frames between them are summarised in one line (Stack still has them all).
const TraceEdge = 10

// Trace is the Kite stack trace printed after the error line: one line per frame,
// innermost first. A stack deeper than 2*TraceEdge frames (runaway recursion) prints its
// TraceEdge innermost and TraceEdge outermost frames and a line saying how many were left out.
func (e *Error) Trace() string {
	var b strings.Builder
	b.WriteString("stack trace:\n")
	for i, l := range e.Stack {
		if n := len(e.Stack); n > 2*TraceEdge && i >= TraceEdge && i < n-TraceEdge {
			if i == TraceEdge {
				fmt.Fprintf(&b, "  ... %d more frames ...\n", n-2*TraceEdge)
			}
			continue
		}
		fmt.Fprintf(&b, "  at %s (%s:%d:%d)\n", fnDisplayName(l.Func), l.File, l.Line, l.Col)
	}
	return b.String()
}

func (vm *VM) errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Errorf makes a runtime error for a builtin to return; the VM adds where it happened.
func Errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// raise completes err with its location and stack, lets the hook see it once (before any
// frame is gone), then unwinds the frames of the current run.
func (vm *VM) raise(err error) error {
	var re *Error
	if errors.As(err, &re) && !re.located {
		re.located = true
		re.Stack = vm.stackLocations()
		if len(re.Stack) > 0 {
			re.Loc = re.Stack[0]
		}
	}
	if re != nil && !re.raised && vm.evalDepth == 0 {
		re.raised = true
		if vm.hook != nil {
			vm.hook.Exception(re)
		}
	}
	vm.unwind()
	return err
}

// unwind pops frames up to and including the innermost boundary frame.
func (vm *VM) unwind() {
	for i := len(vm.frames) - 1; i >= 0; i-- {
		if vm.frames[i].boundary {
			vm.sp = vm.frames[i].base
			vm.frames = vm.frames[:i]
			return
		}
	}
	vm.frames = vm.frames[:0]
}

// stackLocations lists the frames innermost first.
func (vm *VM) stackLocations() []Location {
	out := make([]Location, 0, len(vm.frames))
	for i := range vm.frames {
		if f, ok := vm.Frame(i); ok {
			out = append(out, f.Location)
		}
	}
	return out
}

func (vm *VM) location(fnName string, pc int) Location {
	l := Location{Func: fnName, File: vm.Prog.File, PC: pc}
	if pc >= 0 && pc < len(vm.lines) {
		l.Line, l.Col = int(vm.lines[pc].Line), int(vm.lines[pc].Col)
	}
	return l
}

package gdbremote

// Target: functions an expression called that stopped at a breakpoint, or received a
// signal, before they returned. As gdb does, the program stays stopped in the called
// function, whose frames show above a dummy frame ("<function called from gdb>") that
// stands for the call, the program's frames where it was stopped below it. The call's
// return address (the entry point) keeps its trap: when the function returns there, the
// registers are put back as they were before the call and the run that got there stops
// (engine.ReasonCallReturned; a finish out of the called function says the value it
// returned).

import (
	"errors"
	"slices"
	"syscall"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// dummyFrame is a call left on the stack.
type dummyFrame struct {
	ret     uint64 // the return address the call gave, where a trap waits
	sp      uint64 // where the return address is: the stack pointer is sp+8 once returned
	saved   []byte // the registers before the call ('g' packet)
	before  StopReply
	held    pendingSignal // the signal the program had stopped with before the call
	ownTrap bool          // the trap at ret is the call's, not a user breakpoint's
}

var _ engine.CallAbandoner = (*Target)(nil)

// AbandonCall implements engine.CallAbandoner: the innermost call left on the stack is
// popped, the program put back where it was before it (the signal it got dropped), and a
// ReasonCallReturned stop reported.
func (t *Target) AbandonCall() error {
	if err := t.needStopped(); err != nil {
		return err
	}
	t.mu.Lock()
	n := len(t.dummies)
	t.mu.Unlock()
	if n == 0 {
		return errors.New("gdbremote: no function called from an expression is on the stack")
	}
	t.popDummy()
	t.reportStop(engine.Stop{Reason: engine.ReasonCallReturned})
	return nil
}

// pushDummy records a call left on the stack, the innermost last.
func (t *Target) pushDummy(d dummyFrame) {
	t.mu.Lock()
	t.dummies = append(t.dummies, d)
	t.mu.Unlock()
}

// dummyAt reports whether a call left on the stack returns to ret (its trap is set).
func (t *Target) dummyAt(ret uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.ContainsFunc(t.dummies, func(d dummyFrame) bool { return d.ret == ret })
}

// breakpointStop is the stop of the user breakpoint sr stopped at, its hit counted; nil
// when its condition is false (or it only counts, or logs), as in a run. at is false when
// sr is not at a user breakpoint.
func (t *Target) breakpointStop(sr StopReply) (st *engine.Stop, at bool) {
	if sr.Kind != StopSignal || sr.Signal != int(syscall.SIGTRAP) {
		return nil, false
	}
	pc, err := t.pc()
	t.mu.Lock()
	_, at = t.traps[pc]
	t.mu.Unlock()
	if err != nil || !at {
		return nil, false
	}
	return t.userTrap(pc), true
}

// dummyReturn is the stop where the innermost call left on the stack has returned (sr at
// its return address, the stack popped past it), as an error that ends the run:
// ReasonCallReturned, the registers still the returned function's until popDummy. nil for
// any other stop.
func (t *Target) dummyReturn(sr StopReply) error {
	t.mu.Lock()
	n := len(t.dummies)
	var d dummyFrame
	if n > 0 {
		d = t.dummies[n-1]
	}
	t.mu.Unlock()
	if n == 0 || sr.Kind != StopSignal || sr.Signal != int(syscall.SIGTRAP) {
		return nil
	}
	if pc, err := t.pc(); err != nil || pc != d.ret || t.sp() < d.sp+8 {
		return nil
	}
	return &trapStopError{st: &engine.Stop{Reason: engine.ReasonCallReturned}, returned: true}
}

// popDummy puts the registers back as they were before the innermost call left on the
// stack, which has returned, and forgets it: the program is where it was stopped then.
func (t *Target) popDummy() {
	t.mu.Lock()
	n := len(t.dummies)
	if n == 0 {
		t.mu.Unlock()
		return
	}
	d := t.dummies[n-1]
	t.dummies = t.dummies[:n-1]
	t.mu.Unlock()
	if d.ownTrap && !t.dummyAt(d.ret) {
		t.c.ClearBreakpoint(t.ctx, SoftwareBreak, d.ret, t.bpLen)
	}
	t.c.putSignal(d.held)
	if err := t.c.WriteRegisters(t.ctx, d.saved); err != nil {
		t.log.Warn("gdbremote: registers not restored after a call", "err", err)
	}
	t.newStop(d.before)
}

// throughDummies goes on with the backtrace fs below each call left on the stack: at the
// frame that would return to a call's return address, a dummy frame, then the frames
// unwound from the registers the program had before the call.
func (t *Target) throughDummies(fs []elfsym.Frame) []elfsym.Frame {
	t.mu.Lock()
	dummies := slices.Clone(t.dummies)
	t.mu.Unlock()
	from := 0 // the frames below the last dummy placed
	for k := len(dummies) - 1; k >= 0; k-- {
		d := dummies[k]
		i := slices.IndexFunc(fs[from:], func(f elfsym.Frame) bool { return f.PC == d.ret })
		if i < 0 {
			return fs
		}
		i += from
		from = i + 1
		before, err := t.sym.Unwind(savedRegs{t, d.saved}, cachedMem{t}, 256)
		if err != nil {
			return fs[:i]
		}
		before = t.unwindThroughLibraries(before)
		dummy := elfsym.Frame{Index: i, PC: d.ret, CFA: d.sp + 16, Dummy: true} // (at gdb's address for it)
		fs = append(append(fs[:i:i], dummy), before...)
		for j := range fs {
			fs[j].Index = j
		}
	}
	return fs
}

// savedRegs gives the registers of a 'g' packet by DWARF number, as dwarfRegs gives the
// stop's: the unwinder's start below a call left on the stack.
type savedRegs struct {
	t *Target
	g []byte
}

func (s savedRegs) Register(n int) (uint64, bool) {
	r, ok := s.t.desc.Reg(s.t.sym.Arch.RegName(n))
	if !ok || r.Offset < 0 || r.Offset+r.Bitsize/8 > len(s.g) {
		return 0, false
	}
	return Uint(s.g[r.Offset:r.Offset+r.Bitsize/8], s.t.order), true
}

package gdbremote

// Target: gdb's starti, the program stopped at its very first instruction (the dynamic
// linker's, for a dynamically linked program), before the run to its entry point that a
// start makes. What that run does (thread events armed, breakpoints moved into the loaded
// libraries) is done at the first continue from there.

import (
	"errors"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// StartAtFirstInstruction implements engine.FirstInstructionStarter: the program is
// reported stopped where the stub holds it, its dynamic linker known as a library.
func (t *Target) StartAtFirstInstruction(h engine.Handler) error {
	if t.core != nil || t.attached {
		return t.Start(h, true)
	}
	t.mu.Lock()
	t.h = h
	t.entryPending = true
	t.mu.Unlock()
	go t.watchHangup()
	t.notePID()
	t.forgetThreads()
	t.noteInterpreter(t.sym)
	t.reportStop(engine.Stop{Reason: engine.ReasonEntry})
	return nil
}

// noteInterpreter adds the dynamic linker of sym's program to its libraries where the
// kernel put it (AT_BASE), at the program's first instruction: its code is named in
// frames, as gdb names it.
func (t *Target) noteInterpreter(sym *elfsym.File) {
	if interp, err := interpreter(sym.ELF); err == nil && interp != "" {
		if aux, err := t.c.Auxv(t.ctx, sym.Arch.PtrSize, sym.Arch.ByteOrder); err == nil && aux[7] != 0 {
			_ = sym.AddLibrary(sym.Interpreter(), aux[7])
		}
	}
}

// finishStart does, before the first continue after StartAtFirstInstruction, what Start
// does at the entry point: it runs there (unless the program is past it: its own code),
// arms the thread events and lets breakpoints bind in the loaded libraries. It returns the
// stop a breakpoint at the entry makes, if one does.
func (t *Target) finishStart() (*engine.Stop, error) {
	t.mu.Lock()
	pending, h := t.entryPending, t.h
	t.entryPending = false
	t.mu.Unlock()
	if !pending {
		return nil, nil
	}
	pc, err := t.pc()
	if err != nil {
		return nil, err
	}
	if entry, err := t.startAddress(); err == nil && pc != entry && t.sym.SectionAt(pc) == "" { // not yet in the program's own code
		if err := t.runTo(entry); err != nil {
			if ts := (*trapStopError)(nil); errors.As(err, &ts) { // another library caught on the way
				t.mu.Lock()
				t.entryPending = true
				t.mu.Unlock()
				return ts.st, nil
			}
			return nil, err
		}
	}
	t.armThreadEvents()
	t.librariesLoaded(h)
	return t.trapAtStart(h), nil
}

package gdbremote

// Target: a process that runs a new program (exec). Asked for exec events, gdbserver stops
// the process at the new program's first instruction, the old program's breakpoints gone
// with its memory. As gdb follows it (follow-exec-mode same), the target takes the new
// program's symbols in place of the old and forgets what belonged to the old (traps,
// watchpoints, threads); the engine places the breakpoints again (ReasonExec), and the
// start's work (the run to the entry, thread events, libraries) is done at the next
// continue, as after starti. Before, the run went on in a program the target did not
// know: gdbserver failed to read the dynamic linker's state, the program stopped with a
// stray SIGINT and no breakpoint was reached.

import (
	"fmt"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// ReportsExecs implements engine.ExecCatcher: gdbserver reports execs in extended mode.
func (t *Target) ReportsExecs() bool {
	v, _ := t.c.Feature("exec-events")
	return v == "+"
}

// followExec makes the program an exec stop names the target's, and returns the stop to
// report (as a trapStopError, which ends any run mode).
func (t *Target) followExec(sr StopReply) error {
	sym, err := elfsym.OpenWith(sr.Exec, t.sym.DebugDirs())
	if err != nil {
		return fmt.Errorf("gdbremote: the process runs %s now, whose symbols cannot be read: %w", sr.Exec, err)
	}
	if sym.IsPIE() {
		if aux, err := t.c.Auxv(t.ctx, sym.Arch.PtrSize, sym.Arch.ByteOrder); err == nil && aux[9] != 0 { // AT_ENTRY
			sym.Bias = aux[9] - sym.ELF.Entry
		}
	}
	t.mu.Lock()
	t.sym, t.elfPath = sym, sr.Exec // (the old symbols stay for what still reads them)
	t.traps, t.sites, t.keyFn, t.watches = map[uint64]*trap{}, nil, nil, nil
	t.afterSyscall = nil                                  // (another program's code)
	t.entryPending, t.catchSent, t.libEvent = true, "", 0 // (the event breakpoint went with the old image)
	pid := t.pid
	t.mu.Unlock()
	t.forgetThreads()
	t.noteInterpreter(sym)
	if t.nptl && t.askReportEvents(t.ctx) != nil {
		t.log.Warn("gdbremote: no live thread events for the program exec ran")
	}
	t.output("console", fmt.Sprintf("process %d is executing new program: %s\n", pid, sr.Exec))
	return &trapStopError{st: &engine.Stop{Reason: engine.ReasonExec, Text: sr.Exec}}
}

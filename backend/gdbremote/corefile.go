package gdbremote

// A core dump, served as a stub by backend/core: debugged as a program stopped for good
// by the signal that ended it. It is read, never run: resuming, restarting and writing are
// refused.

import (
	"context"
	"errors"
	"syscall"

	"github.com/polydbg/polydbg/engine"
)

// CoreInfo is what a core dump says of the program it is the memory of.
type CoreInfo struct {
	Args   string // its command line, as the kernel kept it
	Signal int    // the signal that ended it
	Close  func() // releases what serves the dump (called by Close)
}

// ErrPostMortem is returned for what needs a live program, on a core dump's.
var ErrPostMortem = errors.New("the program of a core dump does not run: it ended when the dump was made")

// ConnectCore debugs the core dump served by a stub at addr (backend/core.Serve), whose
// program is the executable elfPath.
func ConnectCore(ctx context.Context, addr, elfPath string, cfg Config, info CoreInfo) (*Target, error) {
	cfg.NoThreadEvents = true // nothing runs: no thread starts or ends
	t, err := connect(ctx, addr, elfPath, cfg, nil, false)
	if err != nil {
		return nil, err
	}
	t.core = &info
	return t, nil
}

// PostMortem implements engine.PostMortem.
func (t *Target) PostMortem() bool { return t.core != nil }

// CoreArgs is the command line of a core dump's program ("" for a live program).
func (t *Target) CoreArgs() string {
	if t.core == nil {
		return ""
	}
	return t.core.Args
}

// startCore reports the end a core dump shows: the stop of its signal, in the thread that
// took it.
func (t *Target) startCore() {
	t.notePID()
	t.forgetThreads()
	sig := SignalName(t.core.Signal)
	if t.core.Signal == 0 {
		sig = SignalName(int(syscall.SIGKILL))
	}
	t.reportStop(engine.Stop{Reason: engine.ReasonException, Signal: sig, Text: "signal " + engine.SignalText(sig)})
}

// InspectsBeforeStart implements engine.StaticInspector: before the program runs, its
// variables are read from its file (readCached), as gdb reads them.
func (t *Target) InspectsBeforeStart() bool { return t.core == nil }

// started says Start has run (the program is running or was).
func (t *Target) started() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.h != nil
}

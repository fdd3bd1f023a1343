package gdbcmd

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// attachTimeout bounds how long attaching (the session's start) may take.
const attachTimeout = 30 * time.Second

// attach starts a session whose program is a running process (Config.Attach): it is
// stopped where it was found, and shown there as gdb shows it after attach (with
// "Attaching to process N" first, unless under -batch).
func (d *Debugger) attach() {
	h, ok := d.startStopped(true, "The process was not stopped")
	if !ok {
		return
	}
	if pid := d.s.ProcessID(); pid > 0 && !d.cfg.Batch {
		d.printf("Attaching to process %d\n", pid)
	}
	frames, err := d.s.Stack()
	if err != nil || len(frames) == 0 {
		return
	}
	f := frames[0]
	d.frame, d.stopThread = 0, h.Stop.ThreadID
	d.midLine = d.s.MidStatement(f.Location)
	d.lastFrame = stopFrame{f.Location.Func, len(frames)}
	d.printf("%s\n", d.frameLine(f, d.midLine))
	d.showLine(f.Location.File, f.Location.Line)
	d.listFrom(f.Location.File, f.Location.Line)
}

// fromUser says the command being run was typed or piped, not read from a script, a
// command list or -batch's commands: gdb's from_tty, which decides whether some commands
// ask first and say more.
func (d *Debugger) fromUser() bool { return !d.quiet && !d.cfg.Batch && d.sourceDepth == 0 }

// executable is the absolute path of the program's file, "" when the target has none.
func (d *Debugger) executable() string {
	e, ok := d.s.Target().(engine.Executable)
	if !ok {
		return ""
	}
	if abs, err := filepath.Abs(e.ExecutablePath()); err == nil {
		return abs
	}
	return e.ExecutablePath()
}

// startStopped starts a session whose program is there already (attached to, or a core
// dump's) and waits for the stop it starts in; false, with notStopped and the reason said,
// when it does not stop.
func (d *Debugger) startStopped(stopOnEntry bool, notStopped string) (engine.Halt, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), attachTimeout)
	defer cancel()
	seq := d.s.Seq()
	if err := d.s.Start(stopOnEntry); err != nil {
		d.fail("%s\n", explain(err))
		return engine.Halt{}, false
	}
	h, err := d.s.WaitStop(ctx, seq)
	if err == nil && (h.State != engine.Stopped || h.Stop == nil) {
		err = fmt.Errorf("it is %v", h.State)
	}
	if err != nil {
		d.fail("%s: %s\n", notStopped, explain(err))
		return h, false
	}
	return h, true
}

// cmdDetach is gdb's detach: the program's breakpoints are taken out and it goes on
// running without the debugger (engine Detach). A program attached to lives on after
// polydbg; one polydbg started lives as long as polydbg.
func cmdDetach(d *Debugger, _ string) bool {
	if !d.live() {
		d.fail("The program is not being run.\n")
		return false
	}
	d.detach(d.fromUser())
	return false
}

// detach lets the program go, saying so as gdb does (naming the program first when loud).
func (d *Debugger) detach(loud bool) {
	inf := d.inferior()
	if exe := d.executable(); loud && inf != "" && exe != "" {
		d.printf("Detaching from program: %s, %s\n", exe, inf)
	}
	ctx, cancel := context.WithTimeout(context.Background(), attachTimeout)
	defer cancel()
	if err := d.s.Detach(ctx); err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if inf != "" {
		d.printf("[Inferior %d (%s) detached]\n", d.s.Inferior(), inf)
	}
}

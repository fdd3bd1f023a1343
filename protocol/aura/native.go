package aura

import (
	"context"
	"io"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// runNative launches a native program under supervision (backend/process: its own process
// group, output captured, the whole group killed when it ends or is terminated) through an
// engine.Session, and reports nativeLaunch, its output, then nativeExit.
func (r *runner) runNative(ctx context.Context) int {
	if r.cfg.Protocol && r.cfg.WaitEnable {
		if !r.waitEnableNative(ctx) {
			return ExitTerminated
		}
	}
	exe := launch.ProgramPath(r.cfg.File)
	args := append([]string{}, r.cfg.Args...)
	r.out.event(NativeLaunchEvent{Event: "nativeLaunch", Exe: exe, Args: args}, false)

	spec := launch.Spec{Kind: launch.Process, Program: exe, Argv0: r.cfg.File, Args: args, TermGrace: r.cfg.TerminateGrace}
	if !r.cfg.Protocol {
		spec.Stdin = r.cfg.Stdin // with the protocol on, stdin carries commands
	}
	sess, err := launch.Start(ctx, spec)
	if err != nil {
		r.note("%v", err)
		r.out.finish()
		return 127
	}
	defer sess.Close()
	sub := sess.Subscribe()
	if err := sess.Start(false); err != nil {
		r.note("%v", err)
		code := 127
		r.out.event(NativeExitEvent{Event: "nativeExit", Code: &code, Error: err.Error()}, true)
		r.out.finish()
		return code
	}

	terminated := false
	ctxDone := ctx.Done()
	for events := sub.Events(); events != nil; {
		r.out.flush() // what the last event or command wrote
		select {
		case e, ok := <-events:
			if !ok {
				events = nil // the program has ended and all its output is written
				break
			}
			if e.Kind == engine.EventOutput {
				if e.Category == "stderr" {
					_, _ = io.WriteString(r.errw, e.Text)
				} else {
					r.out.program([]byte(e.Text))
				}
			}
		case c, ok := <-r.cmds:
			if !ok {
				r.cmds = nil // the program runs on to its end
				break
			}
			switch c.Cmd {
			case CmdTerminate:
				terminated = true
				_ = sess.Terminate()
			case CmdEnable:
				r.applyEnable(c)
			case CmdSetBreakpoints, CmdSetWatches:
				// Native runs have no breakpoints or watches; IDEs send these routinely.
			default:
				r.note("ignored %s: native runs support only terminate", c.Cmd)
			}
		case <-ctxDone:
			ctxDone = nil
			_ = sess.Terminate()
		}
	}
	st, _ := sess.ProcessStatus()
	if terminated {
		r.out.event(TerminatedEvent{Event: "terminated", Target: "native"}, true)
	}
	ev, code := NativeExitEvent{Event: "nativeExit", Signal: st.SignalName()}, st.ExitCode()
	if !st.Signaled() {
		ev.Code = &code
	}
	r.out.event(ev, true)
	r.out.finish()
	return code
}

// waitEnableNative waits for the client's enable before launching; it reports false when
// the run ended before (a terminate, or a signal to polydbg).
func (r *runner) waitEnableNative(ctx context.Context) bool {
	for {
		select {
		case c, ok := <-r.cmds:
			if !ok {
				r.cmds = nil
				return true
			}
			switch c.Cmd {
			case CmdEnable:
				r.applyEnable(c)
				return true
			case CmdTerminate:
				r.out.event(TerminatedEvent{Event: "terminated", Target: "native"}, true)
				r.out.finish()
				return false
			case CmdSetBreakpoints, CmdSetWatches:
			default:
				r.note("ignored %s: the program has not started (waiting for enable)", c.Cmd)
			}
		case <-ctx.Done():
			return false
		}
	}
}

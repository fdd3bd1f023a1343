package gdbcmd

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/engine"
)

// Running the program and waiting for it: a command that resumes takes the session's event
// number first and waits (engine.Session.WaitStop) for the stop or end numbered after it;
// the program's output, printed as it arrives by another goroutine, is flushed up to that
// event before the stop is reported, so output never appears after the stop it preceded.
// The waiting goroutine drains what is queued itself (no hand-off to the printer on a step).

// outputQueue bounds the program output waiting for the terminal: a terminal that does not
// read holds the program back instead of growing polydbg's memory.
const outputQueue = 1024

// output prints one session's program output and thread changes.
type output struct {
	s   *engine.Session
	mu  sync.Mutex // held while events are taken and printed, so they print in order
	w   io.Writer
	sub *engine.Subscription
}

// flusher is an output that holds what is written until flushed (a wire.Outbox).
type flusher interface{ Flush() error }

// startOutput starts the goroutine that prints what the program writes while no command
// takes it; it flushes out after each batch when it is a flusher.
func startOutput(w io.Writer, out io.Writer, s *engine.Session) *output {
	o := &output{w: w, s: s, sub: s.SubscribeWith(engine.SubscribeOptions{MaxQueued: outputQueue})}
	f, _ := out.(flusher)
	go func() {
		for range o.sub.Ready() {
			ended := o.flush(^uint64(0))
			if f != nil {
				_ = f.Flush()
			}
			if ended {
				return
			}
		}
	}()
	return o
}

// flush prints the queued events up to the one numbered seq, or all of them; it reports
// whether the subscription has ended.
func (o *output) flush(seq uint64) (ended bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for {
		e, ok, end := o.sub.TryNext()
		if !ok {
			return end
		}
		switch {
		case e.Kind == engine.EventOutput:
			io.WriteString(o.w, e.Text)
		case e.Kind == engine.EventThread && e.Thread.Reason == engine.ThreadStarted:
			if pid := o.s.ProcessID(); pid > 0 {
				o.s.ThreadNum(uint64(pid)) // the program's first thread is 1, as gdb numbers them
			}
			o.s.ThreadNum(e.Thread.Thread.ID)
			fmt.Fprintf(o.w, "[New %s]\n", lwpName(e.Thread.Thread))
		case e.Kind == engine.EventThread:
			fmt.Fprintf(o.w, "[%s exited]\n", lwpName(e.Thread.Thread))
		case e.Kind == engine.EventBreakpointChanged && !e.Breakpoint.Verified && e.Breakpoint.Message != "":
			// an exec left it without a place in the new program: gdb's words
			fmt.Fprintf(o.w, "Error in re-setting breakpoint %d: %s\n", e.Breakpoint.ID, gdbError(e.Breakpoint.Message))
		}
		if e.Seq >= seq {
			return false
		}
	}
}

// resume runs a command that resumes the program and waits for the halt that follows;
// false when the command failed (the error is printed).
func (d *Debugger) resume(cmd func() error) (engine.Halt, bool) {
	if d.s.State() == engine.Stopped {
		d.stopThread = d.s.SelectedThread() // gdb tells a stop in another thread than this
	}
	seq := d.s.Seq()
	if err := cmd(); err != nil {
		d.fail("%s\n", explain(err))
		return engine.Halt{}, false
	}
	if d.pendingPause.Swap(false) { // Ctrl-C came while the command was starting the program
		_ = d.s.Pause()
	}
	return d.waitFrom(seq)
}

// Interrupt is Ctrl-C (SIGINT): pause the program if it runs, or as soon as the command
// being run resumes it.
func (d *Debugger) Interrupt() {
	d.pendingPause.Store(true)
	if s := d.current.Load(); s != nil {
		_ = s.Pause()
	}
}

// waitFrom waits for the first halt numbered after seq.
func (d *Debugger) waitFrom(seq uint64) (engine.Halt, bool) {
	if d.s.LastHalt().Seq <= seq {
		d.release() // it runs on: its output prints as it comes
	}
	h, err := d.s.WaitStop(context.Background(), seq)
	if err != nil {
		return h, false
	}
	d.output.flush(h.Seq)
	return h, true
}

// await runs an engine command that resumes the program and waits for it itself (StepPast,
// Finish): the output printer prints meanwhile, and what the program wrote before the halt
// is printed before the halt is reported. false when the command failed (said).
func (d *Debugger) await(run func(context.Context) (engine.Halt, error)) (engine.Halt, bool) {
	if d.s.State() == engine.Stopped {
		d.stopThread = d.s.SelectedThread() // (as resume)
	}
	d.release()
	h, err := run(context.Background())
	if err != nil {
		d.fail("%s\n", explain(err))
		return h, false
	}
	d.output.flush(h.Seq)
	return h, true
}

// run resumes with cmd, waits and reports the stop or end.
func (d *Debugger) runAndReport(cmd func() error) {
	if h, ok := d.resume(cmd); ok {
		d.report(h)
	}
}

func (d *Debugger) report(h engine.Halt) {
	switch h.State {
	case engine.Stopped:
		d.frame = 0
		d.reportStop(h.Stop)
	case engine.Exited:
		switch inf := d.inferior(); {
		case h.Signal != "":
			d.printf("\nProgram terminated with signal %s.\nThe program no longer exists.\n", engine.SignalText(h.Signal))
		case inf == "" && h.ExitCode == 0:
			d.printf("[program exited normally]\n")
		case inf == "":
			d.printf("[program exited with code %d]\n", h.ExitCode)
		case h.ExitCode == 0:
			d.printf("[Inferior %d (%s) exited normally]\n", d.s.Inferior(), inf)
		default: // gdb's code is octal
			d.printf("[Inferior %d (%s) exited with code %#o]\n", d.s.Inferior(), inf, h.ExitCode)
		}
	case engine.Terminated:
		switch inf := d.inferior(); {
		case h.Reason != "": // the target was lost, nobody terminated it
			d.printf("[program terminated: %s]\n", h.Reason)
		case inf != "":
			d.printf("[Inferior %d (%s) killed]\n", d.s.Inferior(), inf)
		default:
			d.printf("[program terminated]\n")
		}
	}
}

// inferior names the program as gdb's lines about its end do: "process 1234" for a
// process, "Remote target" for a program behind a stub that runs none (firmware); "" for a
// Kite program, which gdb never runs.
func (d *Debugger) inferior() string {
	switch pid := d.s.ProcessID(); {
	case pid > 0:
		return fmt.Sprintf("process %d", pid)
	case d.indexedPCs():
		return ""
	}
	return "Remote target"
}

// gdbError is an engine's error message in gdb's words, where they differ.
func gdbError(msg string) string {
	if name, ok := strings.CutPrefix(msg, "no function "); ok {
		return "Function " + name + " not defined."
	}
	return msg
}

package cli

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/polydbg/polydbg/engine"
)

// Running the program and waiting for it: a command that resumes takes the session's event
// number first and waits (engine.Session.WaitStop) for the stop or end numbered after it;
// the program's output, printed as it arrives by another goroutine, is flushed up to that
// event before the stop is reported, so output never appears after the stop it preceded.

// outputQueue bounds the program output waiting for the terminal: a terminal that does not
// read holds the program back instead of growing polydbg's memory.
const outputQueue = 1024

// output prints one session's program output and counts the events it has handled.
type output struct {
	mu   sync.Mutex
	cond *sync.Cond
	seq  uint64 // the last event handled
	done bool   // the subscription has ended
}

func startOutput(w io.Writer, s *engine.Session) *output {
	o := &output{}
	o.cond = sync.NewCond(&o.mu)
	sub := s.SubscribeWith(engine.SubscribeOptions{MaxQueued: outputQueue})
	go func() {
		defer func() {
			o.mu.Lock()
			o.done = true
			o.cond.Broadcast()
			o.mu.Unlock()
		}()
		for {
			e, err := sub.Next(context.Background())
			if err != nil {
				return
			}
			switch {
			case e.Kind == engine.EventOutput:
				w.Write([]byte(e.Text))
			case e.Kind == engine.EventThread && e.Thread.Reason == engine.ThreadStarted:
				fmt.Fprintf(w, "[New LWP %d]\n", e.Thread.Thread.ID) // as gdb without libthread_db
			case e.Kind == engine.EventThread:
				fmt.Fprintf(w, "[LWP %d exited]\n", e.Thread.Thread.ID)
			}
			o.mu.Lock()
			o.seq = e.Seq
			o.cond.Broadcast()
			o.mu.Unlock()
		}
	}()
	return o
}

// flush waits until the output of every event up to seq has been printed.
func (o *output) flush(seq uint64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for o.seq < seq && !o.done {
		o.cond.Wait()
	}
}

// resume runs a command that resumes the program and waits for the halt that follows;
// false when the command failed (the error is printed).
func (d *Debugger) resume(cmd func() error) (engine.Halt, bool) {
	seq := d.s.Seq()
	if err := cmd(); err != nil {
		d.printf("%s\n", explain(err))
		return engine.Halt{}, false
	}
	if d.pendingPause.Swap(false) { // Ctrl-C came while the command was starting the program
		_ = d.s.Pause()
	}
	return d.waitFrom(seq)
}

// interrupt is Ctrl-C (SIGINT): pause the program if it runs, or as soon as the command
// being run resumes it.
func (d *Debugger) interrupt() {
	d.pendingPause.Store(true)
	if s := d.current.Load(); s != nil {
		_ = s.Pause()
	}
}

// waitFrom waits for the first halt numbered after seq.
func (d *Debugger) waitFrom(seq uint64) (engine.Halt, bool) {
	h, err := d.s.WaitStop(context.Background(), seq)
	if err != nil {
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
		if h.ExitCode == 0 {
			d.printf("[program exited normally]\n")
		} else {
			d.printf("[program exited with code %d]\n", h.ExitCode)
		}
	case engine.Terminated:
		if h.Reason != "" { // the target was lost, nobody terminated it
			d.printf("[program terminated: %s]\n", h.Reason)
			return
		}
		d.printf("[program terminated]\n")
	}
}

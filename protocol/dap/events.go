package dap

import (
	"strconv"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wirejson"
)

// threadID is the one thread polydbg's targets show.
const threadID = 1

// drain writes every engine event queued so far: called before and after each request,
// so no response overtakes a stop the engine has already made.
func (c *conn) drain() {
	for c.sub != nil {
		e, ok, ended := c.sub.TryNext()
		if !ok {
			if ended {
				c.sub = nil
			}
			return
		}
		c.translate(e)
	}
}

// translate turns one engine event into DAP events.
func (c *conn) translate(e engine.Event) {
	switch e.Kind {
	case engine.EventStopped, engine.EventContinued:
		c.resetStop() // references live for one stop
	}
	switch e.Kind {
	case engine.EventStopped:
		c.threadEvents()
		c.moduleEvents()
		c.stoppedEvent(c.stoppedBody(e.Stop))
	case engine.EventContinued:
		if c.ownContinues > 0 {
			c.ownContinues--
			return
		}
		c.event("continued", godap.ContinuedEventBody{ThreadId: threadID, AllThreadsContinued: true})
	case engine.EventOutput:
		c.event("output", godap.OutputEventBody{Category: e.Category, Output: e.Text})
	case engine.EventExited:
		if e.Signal != "" {
			c.event("output", godap.OutputEventBody{Category: "console",
				Output: "Program terminated with signal " + engine.SignalText(e.Signal) + ".\n"})
		}
		c.event("exited", godap.ExitedEventBody{ExitCode: e.ExitCode})
		c.event("terminated", godap.TerminatedEventBody{})
	case engine.EventTerminated:
		c.event("terminated", godap.TerminatedEventBody{})
	case engine.EventBreakpointChanged, engine.EventBreakpointRemoved:
		if e.Seq <= c.ownBreakpoint || e.Breakpoint == nil {
			return // the client made this change and has its answer
		}
		reason := "changed"
		switch {
		case e.Kind == engine.EventBreakpointRemoved:
			reason = "removed"
		case e.Created: // made by another front end, or by -exec break: the client shows it
			reason = "new"
		}
		c.event("breakpoint", godap.BreakpointEventBody{Reason: reason, Breakpoint: c.breakpoint(*e.Breakpoint)})
	case engine.EventThread:
		c.liveThread(e)
	case engine.EventModules:
		c.liveModules(e)
	case engine.EventReset:
		c.event("output", godap.OutputEventBody{Category: "console", Output: "target reset\n"})
	}
}

// stoppedBody is a stop as DAP says it.
func (c *conn) stoppedBody(st *engine.Stop) godap.StoppedEventBody {
	b := godap.StoppedEventBody{ThreadId: stopThread(st), AllThreadsStopped: true, Reason: string(st.Reason), Text: st.Text}
	switch st.Reason {
	case engine.ReasonBreakpoint:
		b.HitBreakpointIds = []int{st.BreakpointID}
		if c.d != nil {
			for _, bp := range c.d.Breakpoints() {
				if bp.ID == st.BreakpointID {
					switch bp.Spec.Kind {
					case engine.FunctionBreakpoint:
						b.Reason = "function breakpoint"
					case engine.InstructionBreakpoint:
						b.Reason = "instruction breakpoint"
					}
				}
			}
		}
	case engine.ReasonData:
		if st.BreakpointID != 0 {
			b.HitBreakpointIds = []int{st.BreakpointID}
		}
		b.Description, b.Text = "Paused on data breakpoint", st.Text
	case engine.ReasonException:
		b.Description = "Paused on exception"
		if st.BreakpointID != 0 && st.Signal == "" { // a C++ exception filter's: "exception thrown"
			b.Description, b.Text = "Paused on "+st.Text, st.Text
		}
	case engine.ReasonCallReturned:
		b.Description = "The function called from the debug console returned"
	case engine.ReasonLibrary: // a catch load set in the debug console
		b.Description = "Paused on a library event"
		if st.BreakpointID != 0 {
			b.HitBreakpointIds = []int{st.BreakpointID}
		}
	case engine.ReasonSyscall: // a catch syscall set in the debug console
		sc := st.Syscall
		if sc == nil {
			sc = &engine.SyscallStop{}
		}
		call := sc.Name
		if call == "" {
			call = strconv.Itoa(sc.Num)
		}
		b.Description, b.Text = "Paused on the call to "+call, call
		if sc.Returned {
			b.Description = "Paused on the return from " + call
		}
	}
	return b
}

// stoppedEvent writes the stopped event, its body field by field: the message a stepping
// client waits for, encoded without reflection (TestStoppedBodyAsJSON holds it to
// encoding/json's output).
func (c *conn) stoppedEvent(body godap.StoppedEventBody) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b, ok := c.begin()
	if !ok {
		return
	}
	b = appendStoppedBody(append(b, `event","event":"stopped","body":`...), body)
	c.frame(append(b, '}'))
}

// appendStoppedBody appends body as encoding/json writes it.
func appendStoppedBody(b []byte, body godap.StoppedEventBody) []byte {
	b = wirejson.AppendString(append(b, `{"reason":`...), body.Reason)
	if body.Description != "" {
		b = wirejson.AppendString(append(b, `,"description":`...), body.Description)
	}
	if body.ThreadId != 0 {
		b = strconv.AppendInt(append(b, `,"threadId":`...), int64(body.ThreadId), 10)
	}
	if body.PreserveFocusHint {
		b = append(b, `,"preserveFocusHint":true`...)
	}
	if body.Text != "" {
		b = wirejson.AppendString(append(b, `,"text":`...), body.Text)
	}
	if body.AllThreadsStopped {
		b = append(b, `,"allThreadsStopped":true`...)
	}
	if len(body.HitBreakpointIds) > 0 {
		b = append(b, `,"hitBreakpointIds":[`...)
		for i, id := range body.HitBreakpointIds {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(id), 10)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// breakpoint is an engine breakpoint as DAP shows it.
func (c *conn) breakpoint(bp engine.Breakpoint) godap.Breakpoint {
	out := godap.Breakpoint{Id: bp.ID, Verified: bp.Verified, Message: bp.Message}
	if bp.Verified {
		if bp.Location.File != "" {
			out.Source = c.source(bp.Location.File)
			out.Line, out.Column = bp.Location.Line, bp.Location.Col
		}
		if bp.Location.HasPC {
			out.InstructionReference = pcRef(bp.Location.PC)
		}
	}
	return out
}

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// SessionID names a debug session. Clients may send it as a string or a number.
type SessionID string

// UnmarshalJSON accepts "3" and 3.
func (id *SessionID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = SessionID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("a session id is a string or a number")
	}
	*id = SessionID(n.String())
	return nil
}

// schemaOpts make SessionID a string or an integer in the tools' input schemas.
var schemaOpts = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[SessionID](): {Types: []string{"string", "integer"}, Description: "the session id start returned"},
}}

// hints are a tool's annotations.
type hints struct{ readOnly, destructive, idempotent, openWorld bool }

// addTool registers a typed tool whose handler gets the calling client.
func addTool[In, Out any](s *Server, name, desc string, h hints, fn func(ctx context.Context, req *sdk.CallToolRequest, c *client, in In) (Out, error)) {
	d, ow := h.destructive, h.openWorld
	schema, err := jsonschema.For[In](schemaOpts)
	if err != nil {
		panic(fmt.Sprintf("mcp: tool %s: %v", name, err))
	}
	sdk.AddTool(s.sdk, &sdk.Tool{Name: name, Description: desc, InputSchema: schema, Annotations: &sdk.ToolAnnotations{
		ReadOnlyHint: h.readOnly, DestructiveHint: &d, IdempotentHint: h.idempotent, OpenWorldHint: &ow}},
		func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
			out, err := fn(ctx, req, s.clientOf(req.Session), in)
			return nil, out, err
		})
}

// BreakpointIn is one breakpoint to set: a line (file and line), a function or an address.
type BreakpointIn struct {
	File         string `json:"file,omitempty" jsonschema:"source file of a line breakpoint (default: the program, for Kite)"`
	Line         int    `json:"line,omitempty" jsonschema:"line of a line breakpoint"`
	Function     string `json:"function,omitempty" jsonschema:"function name of a function breakpoint"`
	Address      string `json:"address,omitempty" jsonschema:"instruction address (0x... or decimal; an instruction index on Kite)"`
	Condition    string `json:"condition,omitempty" jsonschema:"stop only when this expression is true"`
	HitCondition string `json:"hitCondition,omitempty" jsonschema:"stop on some hits only: '>= 3', '% 2', '== 5', or N"`
	LogMessage   string `json:"logMessage,omitempty" jsonschema:"print this (with {expr} parts evaluated) to the output instead of stopping"`
	Temporary    bool   `json:"temporary,omitempty" jsonschema:"remove it after its first stop"`
}

// StartIn describes a debuggee to start.
type StartIn struct {
	Program     string         `json:"program,omitempty" jsonschema:"the Kite file, cartridge or executable"`
	Kind        string         `json:"kind,omitempty" jsonschema:"kite, cartridge, native, core, qemu or remote; empty: detected from the program (core when core is given)"`
	Args        []string       `json:"args,omitempty" jsonschema:"the program's arguments (native)"`
	ELF         string         `json:"elf,omitempty" jsonschema:"firmware or program with symbols (qemu, remote)"`
	Machine     string         `json:"machine,omitempty" jsonschema:"qemu-system-arm machine, e.g. lm3s6965evb (qemu)"`
	Address     string         `json:"address,omitempty" jsonschema:"HOST:PORT of a GDB stub (remote)"`
	PID         int            `json:"pid,omitempty" jsonschema:"a running process of this machine to attach to (attach; its executable's symbols are read)"`
	Core        string         `json:"core,omitempty" jsonschema:"a core dump of program to inspect after its end (kind core; program defaults to the file the dump names)"`
	SVD         string         `json:"svd,omitempty" jsonschema:"the device's SVD file (qemu, remote)"`
	StopOnEntry bool           `json:"stopOnEntry,omitempty" jsonschema:"stop before the first statement"`
	Breakpoints []BreakpointIn `json:"breakpoints,omitempty" jsonschema:"breakpoints set before the program runs"`
	Catch       []string       `json:"catch,omitempty" jsonschema:"C++ exception events to stop at: throw, rethrow, catch (native); the stop's text names the exception and its what()"`
	Profile     bool           `json:"profile,omitempty" jsonschema:"record a statement profile (Kite; read it with profile once the program ended)"`
	Seed        uint64         `json:"seed,omitempty" jsonschema:"seed of a Kite program's rnd()"`
	WaitMs      int            `json:"waitMs,omitempty" jsonschema:"how long to wait for the first stop (default 10000)"`
	Budget
}

// ExecIn is the input of an execution tool.
type ExecIn struct {
	Session SessionID `json:"session"`
	WaitMs  int       `json:"waitMs,omitempty" jsonschema:"how long to wait for the program to stop (default 10000; bounded by the server's call timeout)"`
	Budget
}

// StepIn is step's input: ExecIn, and the call of the line to step into.
type StepIn struct {
	ExecIn
	Into string `json:"into,omitempty" jsonschema:"a function the current line calls (the stop context's calls): step into that call, running the others"`
}

// SessionIn names a session.
type SessionIn struct {
	Session SessionID `json:"session"`
}

// SessionInfo is one session of the client.
type SessionInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Kind  string `json:"kind"`
	State string `json:"state"`
}

// SessionsOut lists sessions.
type SessionsOut struct {
	Sessions []SessionInfo `json:"sessions"`
}

// Done says what a tool did.
type Done struct {
	OK      bool   `json:"ok"`
	Message string `json:"message,omitempty"`
}

// harmful says whether a kind of target runs real code outside polydbg's sandboxed VMs.
func harmful(k launch.Kind) bool {
	return k == launch.Native || k == launch.QEMU || k == launch.Remote || k == launch.Attach ||
		k == launch.Core // a dump names the files its memory is read from
}

func (s *Server) addRunTools() {
	run := hints{destructive: s.opts.AllowExec, openWorld: s.opts.AllowExec}
	addTool(s, "start", "Start debugging a program: a Kite file, a console cartridge, a native executable "+
		"(under gdbserver; needs --allow-exec), firmware in QEMU or a GDB stub (needs --allow-exec). Sets the "+
		"breakpoints given, runs to the first stop (or the end) and answers with the session id and the stop context.",
		run, s.start)
	addTool(s, "attach", "Attach to a running process of this machine by pid (stopOnEntry stops it where it is; "+
		"closing the session detaches and lets it run on), or to a running GDB stub (QEMU, OpenOCD, probe-rs, "+
		"gdbserver) at address with the program's ELF. Needs --allow-exec; answers with the stop context.", run,
		func(ctx context.Context, req *sdk.CallToolRequest, c *client, in StartIn) (StopContext, error) {
			switch {
			case in.PID != 0 && in.Address != "":
				return StopContext{}, fmt.Errorf("attach: give pid or address, not both")
			case in.PID < 0:
				return StopContext{}, fmt.Errorf("attach: no process %d", in.PID)
			case in.PID > 0:
				in.Kind = string(launch.Attach)
			default:
				in.Kind = string(launch.Remote)
			}
			return s.start(ctx, req, c, in)
		})
	exec := func(name, desc string, mode engine.ResumeMode) {
		addTool(s, name, desc+" Waits (bounded) for the program to stop and answers with the whole stop context.", run,
			func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in ExecIn) (StopContext, error) {
				return s.resume(ctx, c, in, mode)
			})
	}
	exec("continue", "Continue running until a breakpoint, an exception or the end.", engine.Continue)
	addTool(s, "step", "Step into: run to the next statement, entering calls; with into, enter that call of the line "+
		"(one of the stop context's calls), running the others. Waits (bounded) for the program to stop and answers "+
		"with the whole stop context.", run,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in StepIn) (StopContext, error) {
			if in.Into == "" {
				return s.resume(ctx, c, in.ExecIn, engine.StepInto)
			}
			return s.resumeWith(ctx, c, in.ExecIn, func(d *launch.Debuggee) error { return d.StepIntoTarget(in.Into, 0) })
		})
	exec("next", "Step over: run to the next statement of this function or its caller.", engine.StepOver)
	exec("finish", "Step out: run until the current function returns; returnValue is its result.", engine.StepOut)
	exec("stepi", "Step exactly one machine instruction (one VM instruction on Kite).", engine.StepInstruction)
	addTool(s, "pause", "Pause a running program and answer with the stop context. It does not wait for "+
		"an execution tool still waiting on the same session, which then answers with the same stop.", hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in ExecIn) (StopContext, error) {
			// No g.call: a continue waiting on this session holds it, and pause must not wait.
			g, err := c.get(in.Session)
			if err != nil {
				return StopContext{}, err
			}
			if err := ended(g); err != nil {
				return StopContext{}, err
			}
			seq := g.d.Seq()
			if g.d.State() == engine.Stopped {
				return s.stopContext(g, engine.Halt{}, false, in.Budget), nil
			}
			if err := g.d.Pause(); err != nil {
				return StopContext{}, err
			}
			wctx, cancel := context.WithTimeout(ctx, s.wait(in.WaitMs))
			defer cancel()
			h, ok := g.waitHalt(wctx, seq)
			return s.stopContext(g, h, ok, in.Budget), nil
		})
	addTool(s, "context", "The current stop context of a session (location, source, stack, locals, new output); "+
		"while the program runs, waits up to waitMs for it to stop.", hints{readOnly: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in ExecIn) (StopContext, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return StopContext{}, err
			}
			g.call.Lock()
			defer g.call.Unlock()
			if g.d.State() == engine.Running {
				wctx, cancel := context.WithTimeout(ctx, s.wait(in.WaitMs))
				defer cancel()
				h, ok := g.waitHalt(wctx, g.d.Seq())
				return s.stopContext(g, h, ok, in.Budget), nil
			}
			return s.stopContext(g, engine.Halt{}, false, in.Budget), nil
		})
	addTool(s, "terminate", "End the program (its process is killed); the session stays listed with its output until close_session.",
		hints{destructive: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in ExecIn) (StopContext, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return StopContext{}, err
			}
			// No g.call: like pause, terminate must not wait for a waiting continue.
			seq := g.d.Seq()
			if g.d.State().Ended() {
				return s.stopContext(g, engine.Halt{}, false, in.Budget), nil
			}
			if err := g.d.Terminate(); err != nil {
				return StopContext{}, err
			}
			wctx, cancel := context.WithTimeout(ctx, s.wait(in.WaitMs))
			defer cancel()
			h, ok := g.waitHalt(wctx, seq)
			return s.stopContext(g, h, ok, in.Budget), nil
		})
	addTool(s, "close_session", "End a session and forget it: its process is killed (one attached to by pid is detached "+
		"from and runs on) and its id is no longer valid.",
		hints{destructive: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (Done, error) {
			g := c.remove(in.Session)
			if g == nil {
				_, err := c.get(in.Session)
				return Done{}, err
			}
			g.close()
			return Done{OK: true, Message: "session " + g.id + " closed"}, nil
		})
	addTool(s, "sessions", "List this client's debug sessions with their state.", hints{readOnly: true, idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, _ struct{}) (SessionsOut, error) {
			out := SessionsOut{Sessions: []SessionInfo{}}
			for _, g := range c.list() {
				out.Sessions = append(out.Sessions, SessionInfo{ID: g.id, Name: g.name, Kind: string(g.d.Spec.Kind), State: g.d.State().String()})
			}
			return out, nil
		})
}

// wait is how long an execution tool waits for a halt.
func (s *Server) wait(ms int) time.Duration {
	d := 10 * time.Second
	if ms > 0 {
		d = time.Duration(ms) * time.Millisecond
	}
	return min(d, s.opts.CallTimeout)
}

// usable finds a session that can still run, and locks it for the call.
func (s *Server) usable(c *client, id SessionID) (*debuggee, error) {
	g, err := c.get(id)
	if err != nil {
		return nil, err
	}
	g.call.Lock()
	if err := ended(g); err != nil {
		g.call.Unlock()
		return nil, err
	}
	return g, nil
}

// ended is the error for a call that needs a session whose program has not ended.
func ended(g *debuggee) error {
	st := g.d.State()
	if !st.Ended() {
		return nil
	}
	how := "was terminated"
	if h := g.d.LastHalt(); h.Signal != "" {
		how = "was ended by signal " + engine.SignalText(h.Signal)
	} else if st == engine.Exited {
		how = fmt.Sprintf("exited with code %d", h.ExitCode)
	}
	return fmt.Errorf("session %s has ended (the program %s): start a new session; its output is still readable with output", g.id, how)
}

func (s *Server) resume(ctx context.Context, c *client, in ExecIn, mode engine.ResumeMode) (StopContext, error) {
	return s.resumeWith(ctx, c, in, func(d *launch.Debuggee) error { return d.Resume(mode) })
}

// resumeWith is resume with the program set going by run.
func (s *Server) resumeWith(ctx context.Context, c *client, in ExecIn, run func(*launch.Debuggee) error) (StopContext, error) {
	g, err := s.usable(c, in.Session)
	if err != nil {
		return StopContext{}, err
	}
	defer g.call.Unlock()
	seq := g.d.Seq()
	if err := run(g.d); err != nil {
		return StopContext{}, err
	}
	wctx, cancel := context.WithTimeout(ctx, s.wait(in.WaitMs))
	defer cancel()
	h, ok := g.waitHalt(wctx, seq)
	return s.stopContext(g, h, ok, in.Budget), nil
}

func (s *Server) start(ctx context.Context, req *sdk.CallToolRequest, c *client, in StartIn) (StopContext, error) {
	spec := launch.Spec{Kind: launch.Kind(in.Kind), Program: in.Program, Args: in.Args, ELF: in.ELF,
		Machine: in.Machine, Address: in.Address, SVD: in.SVD, Profile: in.Profile, Seed: in.Seed, PID: in.PID, Core: in.Core}.Resolved()
	if spec.Kind == "" {
		return StopContext{}, fmt.Errorf("start: give a program (or kind and elf)")
	}
	if harmful(spec.Kind) && !s.opts.AllowExec {
		return StopContext{}, fmt.Errorf("refused: starting a %s target runs real code on this machine or a device, "+
			"and this server was not started with --allow-exec", spec.Kind)
	}
	progress(ctx, req, 0, 3, "starting the "+string(spec.Kind)+" target")
	d, err := launch.Start(ctx, spec)
	if err != nil {
		return StopContext{}, fmt.Errorf("start: %w", err)
	}
	g := newDebuggee(d, spec.Name())
	if err := c.add(g); err != nil {
		g.close()
		return StopContext{}, err
	}
	g.mu.Lock()
	g.onOutput = func() { s.outputChanged(g) }
	g.mu.Unlock()
	g.call.Lock()
	defer g.call.Unlock()
	var bps []BP
	for _, b := range in.Breakpoints {
		bp, err := s.setBreakpoint(g, b)
		if err != nil {
			bp = BP{Message: err.Error()}
		}
		bps = append(bps, bp)
	}
	var notes []string
	for _, event := range in.Catch {
		if _, err := d.CatchExceptions(event); err != nil {
			notes = append(notes, fmt.Sprintf("catch %s: %v", event, err))
		}
	}
	progress(ctx, req, 1, 3, "target loaded; running")
	seq := d.Seq()
	if err := d.Start(in.StopOnEntry); err != nil {
		return StopContext{}, fmt.Errorf("start: %w", err)
	}
	wctx, cancel := context.WithTimeout(ctx, s.wait(in.WaitMs))
	defer cancel()
	h, ok := g.waitHalt(wctx, seq)
	progress(ctx, req, 2, 3, "first stop")
	sc := s.stopContext(g, h, ok, in.Budget)
	sc.Breakpoints = bps
	sc.Notes = append(notes, sc.Notes...)
	return sc, nil
}

func abs(p string) string {
	if p == "" {
		return ""
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

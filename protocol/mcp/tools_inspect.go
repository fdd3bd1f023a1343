package mcp

import (
	"context"
	"encoding/hex"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/engine"
)

// maxMemory bounds one read_memory or write_memory call.
const maxMemory = 16 << 10

// BP is a breakpoint as set.
type BP struct {
	ID        int       `json:"id"`
	Verified  bool      `json:"verified"`
	Location  *Location `json:"location,omitempty"`
	Hits      int       `json:"hits,omitempty"`
	Message   string    `json:"message,omitempty"`
	Condition string    `json:"condition,omitempty"`
	Watch     string    `json:"watch,omitempty" jsonschema:"a watch (data breakpoint): what it watches"`
	Access    string    `json:"access,omitempty" jsonschema:"a watch's accesses: write (a change), read or readWrite"`
}

// WatchIn is the input of watch.
type WatchIn struct {
	Session    SessionID `json:"session"`
	Expression string    `json:"expression" jsonschema:"what to watch: a variable, a.field, a[i], *p (native, firmware), m.key or xs[i] (Kite)"`
	Frame      int       `json:"frame,omitempty" jsonschema:"the frame whose variable is meant (0 is the innermost)"`
	Access     string    `json:"access,omitempty" jsonschema:"write (default: stop when the value changes), read, or readWrite"`
}

// BreakpointSet is the input of set_breakpoint.
type BreakpointSet struct {
	Session SessionID `json:"session"`
	BreakpointIn
}

// BreakpointClear is the input of clear_breakpoints.
type BreakpointClear struct {
	Session SessionID `json:"session"`
	ID      int       `json:"id,omitempty" jsonschema:"the breakpoint to remove; 0 removes them all"`
}

// BPList is a list of breakpoints.
type BPList struct {
	Breakpoints []BP `json:"breakpoints"`
}

// EvalIn is an expression to evaluate.
type EvalIn struct {
	Session     SessionID `json:"session"`
	Expression  string    `json:"expression"`
	Frame       int       `json:"frame,omitempty" jsonschema:"stack frame (0 is the innermost)"`
	SideEffects bool      `json:"sideEffects,omitempty" jsonschema:"allow assignments and calls (native and firmware targets need --allow-write)"`
	MaxValueLen int       `json:"maxValueLen,omitempty" jsonschema:"longest value text before it is clipped (default 4096)"`
}

// SetVarIn assigns a variable.
type SetVarIn struct {
	Session SessionID `json:"session"`
	Name    string    `json:"name" jsonschema:"with ref 0: an lvalue (x, p.x, p->x, a[2], *ptr, m[\"k\"]) or $REGISTER; with a ref: the child's name as variables lists it"`
	Value   string    `json:"value" jsonschema:"an expression for the new value, evaluated in frame (Kite), or a C literal or variable (native, firmware)"`
	Frame   int       `json:"frame,omitempty"`
	Ref     int       `json:"ref,omitempty" jsonschema:"a scope's or a variable's ref (from variables, locals or evaluate) whose child name is set; 0 (default) for an lvalue"`
}

// VarsIn pages through a variable's children.
type VarsIn struct {
	Session SessionID `json:"session"`
	Ref     int       `json:"ref,omitempty" jsonschema:"a variable's ref (from locals or evaluate); 0 lists frame's scopes"`
	Frame   int       `json:"frame,omitempty"`
	Start   int       `json:"start,omitempty"`
	Count   int       `json:"count,omitempty" jsonschema:"children per page (default 50)"`
}

// VarsOut is one page of variables.
type VarsOut struct {
	Variables []Var `json:"variables"`
	Start     int   `json:"start"`
	More      bool  `json:"more,omitempty" jsonschema:"more children follow this page (the variable's len says how many in all)"`
	Total     int   `json:"total,omitempty" jsonschema:"the number of children, when this page is the last"`
}

// StackIn pages through the stack.
type StackIn struct {
	Session SessionID `json:"session"`
	Start   int       `json:"start,omitempty"`
	Count   int       `json:"count,omitempty" jsonschema:"frames per page (default 50)"`
}

// StackOut is one page of the stack.
type StackOut struct {
	Frames []Frame `json:"frames"`
	Depth  int     `json:"depth"`
}

// OutputIn pages through a session's program output.
type OutputIn struct {
	Session  SessionID `json:"session"`
	Offset   int64     `json:"offset,omitempty" jsonschema:"byte offset in the whole output"`
	MaxBytes int       `json:"maxBytes,omitempty" jsonschema:"bytes per page (default 8000)"`
}

// OutputOut is one page of output.
type OutputOut struct {
	Text   string `json:"text"`
	Offset int64  `json:"offset"`
	Next   int64  `json:"next"`
	Total  int64  `json:"total" jsonschema:"bytes of output so far (the oldest beyond 1 MiB are no longer kept)"`
}

// MemIn reads or writes memory.
type MemIn struct {
	Session SessionID `json:"session"`
	Address string    `json:"address" jsonschema:"0x..., decimal, $register, or an expression whose value is an address (&counter, buf) in the innermost frame"`
	Length  int       `json:"length,omitempty" jsonschema:"bytes to read (at most 16384)"`
	Hex     string    `json:"hex,omitempty" jsonschema:"bytes to write, in hex (write_memory)"`
}

// MemOut is memory read.
type MemOut struct {
	Address string `json:"address"`
	Hex     string `json:"hex"`
	Length  int    `json:"length"`
}

// Register is one register's value.
type Register struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// RegsOut lists registers.
type RegsOut struct {
	Registers []Register `json:"registers"`
}

// Thread is a thread of the debuggee.
type Thread struct {
	ID    int    `json:"id"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// ThreadsOut lists threads.
type ThreadsOut struct {
	Threads []Thread `json:"threads"`
}

// ProfileIn asks for a profile.
type ProfileIn struct {
	Session SessionID `json:"session"`
	Top     int       `json:"top,omitempty" jsonschema:"how many statements and stacks (default 10)"`
}

// ProfileSite is one statement's time.
type ProfileSite struct {
	Line   int     `json:"line"`
	Col    int     `json:"col"`
	Kind   string  `json:"kind"`
	Count  int64   `json:"count"`
	SelfMs float64 `json:"selfMs"`
}

// ProfileOut is a run's profile.
type ProfileOut struct {
	TotalMs  float64       `json:"totalMs"`
	TopSelf  []ProfileSite `json:"topSelf"`
	TopStack []string      `json:"topStacks" jsonschema:"hottest folded stacks with their share"`
}

func (s *Server) addInspectTools() {
	ro := hints{readOnly: true, idempotent: true}
	addTool(s, "set_breakpoint", "Set a breakpoint: a line (file, line), a function or an address, with an optional "+
		"condition, hit condition or log message.", hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in BreakpointSet) (BP, error) {
			return withSession(c, in.Session, func(g *debuggee) (BP, error) { return s.setBreakpoint(g, in.BreakpointIn) })
		})
	addTool(s, "watch", "Stop when the program changes (or reads) what an expression names: a watchpoint "+
		"(data breakpoint) on a variable, field or element of the stopped program, listed and removed with the "+
		"breakpoints. The stop says the old and new value. A local's watch ends when its function returns.", hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in WatchIn) (BP, error) {
			return withSession(c, in.Session, func(g *debuggee) (BP, error) {
				access := engine.DataAccess(in.Access)
				if access == "" {
					access = engine.DataWrite
				}
				w, err := g.d.Watch(in.Frame, in.Expression, access)
				if err != nil {
					return BP{}, fmt.Errorf("cannot watch %s: %w", in.Expression, err)
				}
				return watchBP(w), nil
			})
		})
	addTool(s, "clear_breakpoints", "Remove one breakpoint or watch by id, or all of them.", hints{idempotent: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in BreakpointClear) (BPList, error) {
			return withSession(c, in.Session, func(g *debuggee) (BPList, error) {
				switch {
				case in.ID == 0:
					g.d.ClearBreakpoints()
					if len(g.d.DataBreakpoints()) > 0 {
						if _, err := g.d.SetDataBreakpoints(nil); err != nil {
							return BPList{}, err
						}
					}
				case g.d.Unwatch(in.ID):
				default:
					if err := g.d.RemoveBreakpoint(in.ID); err != nil {
						return BPList{}, err
					}
				}
				return s.bpList(g), nil
			})
		})
	addTool(s, "list_breakpoints", "List the breakpoints and watches of a session, with where they bound and their hits.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (BPList, error) {
			return withSession(c, in.Session, func(g *debuggee) (BPList, error) { return s.bpList(g), nil })
		})
	addTool(s, "evaluate", "Evaluate an expression in a frame of the stopped program (no side effects unless sideEffects).",
		hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in EvalIn) (Var, error) {
			return withSession(c, in.Session, func(g *debuggee) (Var, error) {
				if in.SideEffects && harmful(g.d.Spec.Kind) && !s.opts.AllowWrite {
					return Var{}, fmt.Errorf("refused: an evaluation with side effects can change a %s target, and this server was not started with --allow-write", g.d.Spec.Kind)
				}
				v, err := g.d.Evaluate(in.Frame, in.Expression, engine.EvalMode{Pure: !in.SideEffects})
				if err != nil {
					return Var{}, err
				}
				return s.variable(v, in.MaxValueLen), nil
			})
		})
	addTool(s, "set_variable", "Assign a new value to a variable of the stopped program: a local, global, captured "+
		"variable, list item, map entry, struct member, array element, bit field or what a pointer points to (name an "+
		"lvalue, or give a container's ref and the child's name), or a machine register named $NAME ($r0, $pc, $rax) "+
		"on native and firmware targets. Answers with the variable as it reads afterwards.", hints{destructive: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SetVarIn) (Var, error) {
			return withSession(c, in.Session, func(g *debuggee) (Var, error) {
				if harmful(g.d.Spec.Kind) && !s.opts.AllowWrite {
					return Var{}, fmt.Errorf("refused: setting a variable writes a %s target's memory, and this server was not started with --allow-write", g.d.Spec.Kind)
				}
				if reg, ok := strings.CutPrefix(in.Name, "$"); ok && in.Ref == 0 {
					return s.setRegister(g, reg, in.Value)
				}
				v, err := g.d.SetVariable(in.Frame, in.Ref, in.Name, in.Value)
				if err != nil {
					return Var{}, fmt.Errorf("set variable %s: %w", in.Name, err)
				}
				return s.variable(v, 0), nil
			})
		})
	addTool(s, "variables", "List a variable's children (list items, fields, entries) by pages, or frame's scopes when ref is 0.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in VarsIn) (VarsOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (VarsOut, error) { return s.variables(g, in) })
		})
	addTool(s, "stack", "The call stack of the stopped program, by pages.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in StackIn) (StackOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (StackOut, error) {
				frames, err := g.d.Stack()
				if err != nil {
					return StackOut{}, err
				}
				n := in.Count
				if n <= 0 {
					n = 50
				}
				return StackOut{Frames: orEmpty(s.frames(g, frames, max(in.Start, 0), min(n, 500))), Depth: len(frames)}, nil
			})
		})
	addTool(s, "output", "Page through a session's program output (the newest 1 MiB is kept), also after it ended.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in OutputIn) (OutputOut, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return OutputOut{}, err
			}
			n := in.MaxBytes
			if n <= 0 {
				n = 8000
			}
			text, start, total := g.outputPage(in.Offset, min(n, 200000))
			return OutputOut{Text: text, Offset: start, Next: start + int64(len(text)), Total: total}, nil
		})
	addTool(s, "read_memory", "Read up to 16384 bytes of a stopped native or firmware target's memory, in hex.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in MemIn) (MemOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (MemOut, error) {
				addr, err := g.d.Address(0, in.Address)
				if err != nil {
					return MemOut{}, err
				}
				if in.Length <= 0 || in.Length > maxMemory {
					return MemOut{}, fmt.Errorf("length %d out of range (1..%d)", in.Length, maxMemory)
				}
				b, err := g.d.ReadMemory(addr, in.Length)
				if err != nil {
					return MemOut{}, err
				}
				return MemOut{Address: fmt.Sprintf("%#x", addr), Hex: hex.EncodeToString(b), Length: len(b)}, nil
			})
		})
	addTool(s, "write_memory", "Write bytes (hex) into a stopped target's memory (needs --allow-write).", hints{destructive: true},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in MemIn) (MemOut, error) {
			if !s.opts.AllowWrite {
				return MemOut{}, fmt.Errorf("refused: writing memory changes the target, and this server was not started with --allow-write")
			}
			return withSession(c, in.Session, func(g *debuggee) (MemOut, error) {
				addr, err := g.d.Address(0, in.Address)
				if err != nil {
					return MemOut{}, err
				}
				b, err := hex.DecodeString(strings.TrimPrefix(in.Hex, "0x"))
				if err != nil || len(b) == 0 || len(b) > maxMemory {
					return MemOut{}, fmt.Errorf("hex: want 1..%d bytes in hex digits", maxMemory)
				}
				if err := g.d.WriteMemory(addr, b); err != nil {
					return MemOut{}, err
				}
				return MemOut{Address: fmt.Sprintf("%#x", addr), Hex: hex.EncodeToString(b), Length: len(b)}, nil
			})
		})
	addTool(s, "registers", "The machine registers of a stopped native or firmware target.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (RegsOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (RegsOut, error) {
				regs, err := g.d.Registers()
				if err != nil {
					return RegsOut{}, err
				}
				out := RegsOut{Registers: []Register{}}
				for _, r := range regs {
					out.Registers = append(out.Registers, Register{Name: r.Name, Value: regHex(r.Size, r.Value)})
				}
				return out, nil
			})
		})
	addTool(s, "threads", "The threads of a session: a native program's threads or the firmware's RTOS tasks "+
		"where the target lists them, else the one thread of control the engine debugs, with its state.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in SessionIn) (ThreadsOut, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return ThreadsOut{}, err
			}
			if ts, err := threadsOf(ctx, g); err == nil && len(ts) > 0 {
				out := ThreadsOut{Threads: []Thread{}}
				for _, t := range ts {
					out.Threads = append(out.Threads, Thread{ID: int(t.ID), Name: t.Name, State: t.State})
				}
				return out, nil
			}
			return ThreadsOut{Threads: []Thread{{ID: 1, Name: g.name, State: g.d.State().String()}}}, nil
		})
	addTool(s, "profile", "The statement profile of a Kite run started with profile: true, once the program has ended: "+
		"the statements with the most self time and the hottest stacks.", ro,
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in ProfileIn) (ProfileOut, error) {
			g, err := c.get(in.Session)
			if err != nil {
				return ProfileOut{}, err
			}
			return profileOf(g, in.Top)
		})
}

// withSession runs f on a session, serialized with its other calls.
func withSession[T any](c *client, id SessionID, f func(g *debuggee) (T, error)) (T, error) {
	var zero T
	g, err := c.get(id)
	if err != nil {
		return zero, err
	}
	g.call.Lock()
	defer g.call.Unlock()
	return f(g)
}

// setRegister writes a machine register of a stopped target and reads it back.
func (s *Server) setRegister(g *debuggee, name, value string) (Var, error) {
	v, err := engine.ParseAddress(value)
	if err != nil {
		return Var{}, fmt.Errorf("register value: %w", err)
	}
	if err := g.d.WriteRegister(name, v); err != nil {
		return Var{}, err
	}
	regs, err := g.d.Registers()
	if err != nil {
		return Var{}, err
	}
	for _, r := range regs {
		if r.Name == name {
			return Var{Name: "$" + name, Value: regHex(r.Size, r.Value), Type: "register"}, nil
		}
	}
	return Var{Name: "$" + name, Value: fmt.Sprintf("%#x", v), Type: "register"}, nil
}

// regHex prints a register's value with all its digits ("0x00001234" for 4 bytes).
func regHex(size int, v uint64) string { return fmt.Sprintf("%#0*x", 2*max(size, 1), v) }

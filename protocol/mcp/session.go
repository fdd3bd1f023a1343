package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch"
)

// keepOutput bounds the program output one session keeps for the agent (the newest bytes).
const keepOutput = 1 << 20

// debuggee is one debug session an MCP client started: the launched debuggee, the program
// output collected from its events, and what the last answer told the agent.
type debuggee struct {
	id   string
	name string
	d    *launch.Debuggee
	sub  *engine.Subscription

	// call serializes the tool calls on this session, so that two calls of one agent never
	// interleave a resume and an inspection.
	call sync.Mutex
	gdb  gdbcmd.Guest // the gdb tool's commands (under call)

	mu            sync.Mutex
	out           []byte // the newest program output, at most keepOutput bytes
	outBase       int64  // the offset in the whole output of out[0]
	outSeen       int64  // the offset up to which the agent has been given output
	ended         bool
	closed        bool
	prevVars      []engine.ScopedVariable // frame 0's locals at the previous answer, for the diff
	prevFunc      string
	hadVars       bool            // prevVars was taken (it may be empty)
	lastSrc       map[string]bool // source files the agent was shown (served as resources)
	stopQuit      chan struct{}
	onOutput      func()
	closeOnce     sync.Once
	rtt           map[int][]byte // RTT data per up-channel not yet given to the agent
	stopWatch     func()
	notifyPending atomic.Bool
}

// client is what one MCP connection owns: its debug sessions, closed when it goes away.
type client struct {
	mu       sync.Mutex
	sessions map[string]*debuggee
	gone     bool
}

// clientOf returns the client of an MCP session, making it (and its reaper) on first use.
func (s *Server) clientOf(ss *sdk.ServerSession) *client {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.clients[ss]; c != nil {
		return c
	}
	c := &client{sessions: map[string]*debuggee{}}
	s.clients[ss] = c
	if ss != nil {
		go func() {
			_ = ss.Wait()
			s.dropClient(ss)
		}()
	}
	return c
}

// dropClient closes every debug session of a client that went away.
func (s *Server) dropClient(ss *sdk.ServerSession) {
	s.mu.Lock()
	c := s.clients[ss]
	delete(s.clients, ss)
	s.mu.Unlock()
	if c != nil {
		c.closeAll()
	}
}

// CloseAll ends every debug session of every client: no process is left behind.
func (s *Server) CloseAll() {
	s.mu.Lock()
	cs := make([]*client, 0, len(s.clients))
	for _, c := range s.clients {
		cs = append(cs, c)
	}
	s.clients = map[*sdk.ServerSession]*client{}
	s.mu.Unlock()
	for _, c := range cs {
		c.closeAll()
	}
}

func (c *client) closeAll() {
	c.mu.Lock()
	c.gone = true
	all := c.sessions
	c.sessions = map[string]*debuggee{}
	c.mu.Unlock()
	for _, g := range all {
		g.close()
	}
}

func (c *client) add(g *debuggee) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gone {
		return fmt.Errorf("the client has disconnected")
	}
	c.sessions[g.id] = g
	return nil
}

func (c *client) remove(sid SessionID) *debuggee {
	id := string(sid)
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.sessions[id]
	delete(c.sessions, id)
	return g
}

// get finds a session of this client by id; the error lists the ids there are.
func (c *client) get(sid SessionID) (*debuggee, error) {
	id := string(sid)
	c.mu.Lock()
	defer c.mu.Unlock()
	if g := c.sessions[id]; g != nil {
		return g, nil
	}
	ids := c.idsLocked()
	if len(ids) == 0 {
		return nil, fmt.Errorf("no session %q: this client has no sessions; call start first", id)
	}
	return nil, fmt.Errorf("no session %q: this client's sessions are %s", id, strings.Join(ids, ", "))
}

func (c *client) idsLocked() []string {
	ids := make([]string, 0, len(c.sessions))
	for id := range c.sessions {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

func (c *client) list() []*debuggee {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*debuggee, 0, len(c.sessions))
	for _, id := range c.idsLocked() {
		out = append(out, c.sessions[id])
	}
	return out
}

// newDebuggee registers a launched debuggee and starts collecting its output.
func newDebuggee(d *launch.Debuggee, name string) *debuggee {
	e := launch.Sessions.Add(d, name, "mcp")
	g := &debuggee{id: e.ID, name: name, d: d, sub: d.Subscribe(), stopQuit: make(chan struct{}),
		lastSrc: map[string]bool{}}
	if d.MCU != nil {
		g.stopWatch = d.MCU.Watch(g.telemetry)
	}
	go g.pump()
	return g
}

// keepRTT bounds the RTT data one channel keeps between two reads (the newest bytes).
const keepRTT = 64 << 10

// telemetry keeps the RTT data the device service reports; it runs on the service's
// goroutine and must not block.
func (g *debuggee) telemetry(t engine.Telemetry) {
	if t.Kind != engine.TelemetryRTT {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.rtt == nil {
		g.rtt = map[int][]byte{}
	}
	b := append(g.rtt[t.Channel], t.Data...)
	if over := len(b) - keepRTT; over > 0 {
		b = append(b[:0:0], b[over:]...)
	}
	g.rtt[t.Channel] = b
}

// takeRTT returns the RTT data kept since the last call.
func (g *debuggee) takeRTT() map[int][]byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.rtt
	g.rtt = nil
	return out
}

// pump moves output events into the session's buffer as they come.
func (g *debuggee) pump() {
	for {
		select {
		case <-g.sub.Ready():
			g.drain()
		case <-g.stopQuit:
			return
		}
	}
}

// drain takes every queued event. Called before an answer is built, it makes the buffer
// hold all the output up to the engine's current state.
func (g *debuggee) drain() {
	g.mu.Lock()
	got := false
	for {
		e, ok, _ := g.sub.TryNext()
		if !ok {
			break
		}
		switch e.Kind {
		case engine.EventOutput:
			g.out = append(g.out, e.Text...)
			if over := len(g.out) - keepOutput; over > 0 {
				g.out = append(g.out[:0:0], g.out[over:]...)
				g.outBase += int64(over)
			}
			got = true
		case engine.EventExited, engine.EventTerminated:
			g.ended = true
		}
	}
	notify := g.onOutput
	g.mu.Unlock()
	if got && notify != nil {
		notify()
	}
}

// newOutput returns the output the agent has not been given, at most max bytes of it (the
// newest), and how many bytes were left out; it marks all of it as given.
func (g *debuggee) newOutput(max int) (text string, omitted int64) {
	g.drain()
	g.mu.Lock()
	defer g.mu.Unlock()
	from := g.outSeen
	if from < g.outBase {
		omitted = g.outBase - from
		from = g.outBase
	}
	b := g.out[from-g.outBase:]
	if len(b) > max {
		omitted += int64(len(b) - max)
		b = b[len(b)-max:]
	}
	g.outSeen = g.outBase + int64(len(g.out))
	return string(b), omitted
}

// outputPage returns the kept output from offset, at most max bytes, with the total length.
func (g *debuggee) outputPage(offset int64, max int) (text string, start, total int64) {
	g.drain()
	g.mu.Lock()
	defer g.mu.Unlock()
	total = g.outBase + int64(len(g.out))
	if offset < g.outBase {
		offset = g.outBase
	}
	if offset > total {
		offset = total
	}
	b := g.out[offset-g.outBase:]
	if len(b) > max {
		b = wire.WholeRunes(b[:max]) // a character cut by the page comes whole with the next
	}
	return string(b), offset, total
}

// close ends the debuggee and its process, and unregisters it.
func (g *debuggee) close() {
	g.closeOnce.Do(func() {
		g.drain()
		if g.stopWatch != nil {
			g.stopWatch()
		}
		_ = g.d.Close()
		close(g.stopQuit)
		launch.Sessions.Remove(g.id)
		g.mu.Lock()
		g.closed = true
		g.mu.Unlock()
	})
}

// release frees an ended debuggee's processes but keeps its record (output, last state),
// so that a later call on it says plainly that it has ended.
func (g *debuggee) release() {
	g.drain()
	if g.d.State().Ended() {
		g.close()
	}
}

// waitHalt waits (bounded by ctx) for the halt after seq; on timeout it reports the
// session as still running rather than failing.
func (g *debuggee) waitHalt(ctx context.Context, seq uint64) (engine.Halt, bool) {
	h, err := g.d.WaitStop(ctx, seq)
	if err != nil {
		return engine.Halt{State: g.d.State()}, false
	}
	return h, true
}

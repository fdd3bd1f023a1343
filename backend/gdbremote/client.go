// Package gdbremote is polydbg's GDB Remote Serial Protocol client (written against the GDB
// manual's "Remote Protocol" appendix) and the engine target built on it: gdbserver for
// native Linux programs, QEMU's stub for emulated Cortex-M boards, and any other stub
// (OpenOCD, pyOCD, probe-rs, J-Link) that speaks the same protocol.
//
// A Client owns one connection. It reads the wire in one goroutine, which ends when the
// connection closes; every wait takes a context and has a deadline, and a stub that
// disconnects or sends something that is not RSP ends the session with an error (Err).
package gdbremote

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Errors a caller may test with errors.Is.
var (
	ErrClosed      = errors.New("gdbremote: connection closed")
	ErrRunning     = errors.New("gdbremote: target is running")
	ErrNotRunning  = errors.New("gdbremote: target is not running")
	ErrUnsupported = errors.New("gdbremote: not supported by the stub")
)

// StubError is an "Exx" (or "E.message") reply.
type StubError struct {
	Packet string // the command, truncated
	Code   int    // -1 when the stub sent a message instead of a number
	Msg    string
}

func (e *StubError) Error() string {
	if e.Msg != "" {
		return fmt.Sprintf("gdbremote: %s: stub error %q", e.Packet, e.Msg)
	}
	return fmt.Sprintf("gdbremote: %s: stub error E%02x", e.Packet, e.Code)
}

// Stats counts the traffic of a client. Acks are not packets.
type Stats struct {
	PacketsSent     int64
	PacketsReceived int64
	BytesSent       int64
	BytesReceived   int64
	Interrupts      int64
}

// Options configure NewClient. The zero value is usable.
type Options struct {
	// Timeout bounds each request/reply exchange whose context has no deadline (default 10s).
	Timeout time.Duration
	// NoAck requests QStartNoAckMode when the stub offers it (default true; set DisableNoAck).
	DisableNoAck bool
	// Extended sends "!" after the handshake (gdbserver: keeps running after the program
	// exits, and allows restart with vRun).
	Extended bool
	// FollowForks asks the stub for fork events, with the multiprocess extensions, so that
	// a child the program forks is let go without the parent's breakpoints (forks.go); for
	// programs under an operating system, not firmware.
	FollowForks bool
	// Followed is told of each fork whose child the client followed (FollowForkChild),
	// before the program resumes; it must not use the client.
	Followed func(Followed)
	// Output receives console output the stub sends in "O" packets while the target runs
	// or a monitor command executes (nil: logged at debug level).
	Output func(text string)
	// Logger for protocol traces at debug level (nil: slog.Default()).
	Logger *slog.Logger
}

// Client speaks RSP over one connection. Its methods are safe for concurrent use, but the
// protocol is strictly request/reply: commands are serialized, and while the target runs
// only Interrupt and Wait are valid.
type Client struct {
	conn net.Conn
	opts Options
	log  *slog.Logger

	wmu sync.Mutex // guards writes to conn
	cmu sync.Mutex // serializes exchanges

	noAck   atomic.Bool
	running atomic.Bool
	// forkCatch, vforkCatch: a fork or vfork stop is returned by Wait, not resumed
	// after (CatchForks).
	forkCatch, vforkCatch atomic.Bool
	followChild           atomic.Bool // follow a fork's child, not its parent (FollowForkChild)
	trace                 bool        // log every packet (the logger logs debug messages)
	pkts                  chan []byte
	acks                  chan rsp.Kind
	done                  chan struct{} // closed when the reader ends
	rerr                  error         // why the reader ended; read after done is closed
	closeOne              sync.Once

	stats struct {
		sent, recv, bsent, brecv, intr atomic.Int64
	}

	// negotiated
	features   map[string]string
	packetSize int
	vcont      map[string]bool
	noG        bool // 'g' unsupported: use 'p'
	noX        bool // 'X' unsupported: use 'M'
	noZ0       bool // 'Z0' unsupported: use 'Z1'
	noP        bool // 'P' unsupported: use 'g'/'G'
	noPRead    bool // 'p' unsupported: use 'g'
	extended   bool
	desc       *TargetDesc
	stepOver   int
	lastResume []byte               // the last resume command (under cmu)
	procs      processes            // the program's process id and its inserted points (forks.go)
	pendingSig pendingSignal        // a signal that stopped the program, delivered on resume (signals.go; under cmu)
	sigPolicy  map[int]SignalPolicy // gdb's handle, where it differs from defaultSignalPolicy (under cmu)
	intrRun    atomic.Bool          // an interrupt was sent during the current run
	intrStale  bool                 // an interrupt crossed a stop of the target's own: its SIGINT may follow (under cmu)
	thr        threadEvents         // live thread events (threadevents.go)
}

const (
	stepOverUnknown = iota
	stepOverKeeps   // the stub steps over its own breakpoint (QEMU)
	stepOverRemoves // the breakpoint must be removed for the step (gdbserver)
)

// Dial connects to a stub at addr (HOST:PORT) and performs the handshake. ctx bounds the
// dial and the handshake.
func Dial(ctx context.Context, addr string, opts Options) (*Client, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("gdbremote: dial %s: %w", addr, err)
	}
	c, err := NewClient(ctx, conn, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// NewClient takes ownership of conn and performs the handshake: qSupported, QStartNoAckMode,
// vCont? and (with Options.Extended) "!".
func NewClient(ctx context.Context, conn net.Conn, opts Options) (*Client, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	c := &Client{
		conn:       conn,
		opts:       opts,
		log:        opts.Logger,
		pkts:       make(chan []byte, 64),
		acks:       make(chan rsp.Kind, 16),
		done:       make(chan struct{}),
		features:   map[string]string{},
		packetSize: 400,
		vcont:      map[string]bool{},
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.trace = c.log.Enabled(ctx, slog.LevelDebug)
	go c.readLoop()
	if err := c.handshake(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func (c *Client) handshake(ctx context.Context) error {
	// Some stubs wait for an ack before anything else; a stray '+' is harmless.
	if err := c.writeRaw([]byte{'+'}); err != nil {
		return err
	}
	features := "qSupported:swbreak+;hwbreak+;vContSupported+;no-resumed+;xmlRegisters=i386,arm"
	if c.opts.FollowForks {
		features += ";multiprocess+;fork-events+;vfork-events+;exec-events+"
	}
	reply, err := c.Exchange(ctx, features)
	if err != nil {
		return fmt.Errorf("gdbremote: handshake: %w", err)
	}
	for _, f := range strings.Split(reply, ";") {
		if f == "" {
			continue
		}
		if k, v, ok := strings.Cut(f, "="); ok {
			c.features[k] = v
			continue
		}
		switch f[len(f)-1] {
		case '+':
			c.features[f[:len(f)-1]] = "+"
		case '-', '?':
			c.features[f[:len(f)-1]] = string(f[len(f)-1])
		default:
			c.features[f] = "+"
		}
	}
	if ps, ok := c.features["PacketSize"]; ok {
		if n, err := strconv.ParseUint(ps, 16, 32); err == nil && n >= 64 {
			c.packetSize = int(min(n, rsp.MaxRawPacket))
		}
	}
	if !c.opts.DisableNoAck && c.features["QStartNoAckMode"] == "+" {
		r, err := c.Exchange(ctx, "QStartNoAckMode")
		if err != nil {
			return fmt.Errorf("gdbremote: handshake: %w", err)
		}
		if r == "OK" {
			c.noAck.Store(true)
		}
	}
	if r, err := c.Exchange(ctx, "vCont?"); err != nil {
		return fmt.Errorf("gdbremote: handshake: %w", err)
	} else if rest, ok := strings.CutPrefix(r, "vCont"); ok {
		for _, a := range strings.Split(rest, ";") {
			if a != "" {
				c.vcont[a] = true
			}
		}
	}
	if c.opts.Extended {
		r, err := c.Exchange(ctx, "!")
		if err != nil {
			return fmt.Errorf("gdbremote: handshake: %w", err)
		}
		c.extended = r == "OK"
	}
	return nil
}

// readLoop owns the reading side of the connection until it fails or closes.
func (c *Client) readLoop() {
	defer close(c.done)
	r := bufio.NewReaderSize(c.conn, 64<<10)
	badRun := 0
	for {
		f, err := rsp.ReadFrame(r)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("%w: stub disconnected", ErrClosed)
			} else if errors.Is(err, net.ErrClosed) {
				err = ErrClosed
			}
			c.rerr = err
			return
		}
		switch f.Kind {
		case rsp.Ack, rsp.Nak:
			if c.noAck.Load() {
				continue
			}
			select {
			case c.acks <- f.Kind:
			default: // nobody waits for it: a stray ack
			}
		case rsp.BadChecksum:
			badRun++
			if c.noAck.Load() || badRun > 3 {
				c.rerr = fmt.Errorf("%w: bad rsp.Checksum on %q", ErrGarbage, trunc(f.Payload))
				c.conn.Close()
				return
			}
			c.writeRaw([]byte{'-'})
		case rsp.Notify:
			// Non-stop notifications are not requested; ignore them.
			c.log.Debug("gdbremote: notification ignored", "payload", trunc(f.Payload))
		case rsp.Packet:
			badRun = 0
			if !c.noAck.Load() {
				c.writeRaw([]byte{'+'})
			}
			c.stats.recv.Add(1)
			c.stats.brecv.Add(int64(len(f.Payload)))
			c.pkts <- f.Payload
		}
	}
}

func (c *Client) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.conn.SetWriteDeadline(time.Now().Add(c.opts.Timeout))
	_, err := c.conn.Write(b)
	if err != nil {
		return fmt.Errorf("gdbremote: write: %w", err)
	}
	return nil
}

// Err reports why the connection ended, or nil while it is alive.
func (c *Client) Err() error {
	select {
	case <-c.done:
		return c.rerr
	default:
		return nil
	}
}

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Close closes the connection and waits for the reader goroutine to end.
func (c *Client) Close() error {
	c.closeOne.Do(func() { c.conn.Close() })
	<-c.done
	return nil
}

// Stats returns the traffic counters.
func (c *Client) Stats() Stats {
	return Stats{
		PacketsSent:     c.stats.sent.Load(),
		PacketsReceived: c.stats.recv.Load(),
		BytesSent:       c.stats.bsent.Load(),
		BytesReceived:   c.stats.brecv.Load(),
		Interrupts:      c.stats.intr.Load(),
	}
}

// Feature returns the value of a qSupported feature ("+", "-", "?" or a value) and whether
// the stub named it.
func (c *Client) Feature(name string) (string, bool) {
	v, ok := c.features[name]
	return v, ok
}

// Supports reports whether the stub announced name+ in qSupported.
func (c *Client) Supports(name string) bool { return c.features[name] == "+" }

// PacketSize is the largest packet the stub accepts.
func (c *Client) PacketSize() int { return c.packetSize }

// NoAck reports whether no-ack mode is in effect.
func (c *Client) NoAck() bool { return c.noAck.Load() }

// Extended reports whether extended mode is in effect.
func (c *Client) Extended() bool { return c.extended }

// HasVCont reports whether the stub's vCont? reply offered the action ("c", "s", "t", "r"...).
func (c *Client) HasVCont(action string) bool { return c.vcont[action] }

// Running reports whether the target was resumed and has not reported a stop yet.
func (c *Client) Running() bool { return c.running.Load() }

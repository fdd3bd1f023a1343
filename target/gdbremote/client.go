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
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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

	noAck    atomic.Bool
	running  atomic.Bool
	pkts     chan []byte
	acks     chan frameKind
	done     chan struct{} // closed when the reader ends
	rerr     error         // why the reader ended; read after done is closed
	closeOne sync.Once

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
		acks:       make(chan frameKind, 16),
		done:       make(chan struct{}),
		features:   map[string]string{},
		packetSize: 400,
		vcont:      map[string]bool{},
	}
	if c.log == nil {
		c.log = slog.Default()
	}
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
	reply, err := c.Exchange(ctx, "qSupported:swbreak+;hwbreak+;vContSupported+;no-resumed+;xmlRegisters=i386,arm")
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
			c.packetSize = int(min(n, maxRawPacket))
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
		f, err := readFrame(r)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = fmt.Errorf("%w: stub disconnected", ErrClosed)
			} else if errors.Is(err, net.ErrClosed) {
				err = ErrClosed
			}
			c.rerr = err
			return
		}
		switch f.kind {
		case frameAck, frameNak:
			if c.noAck.Load() {
				continue
			}
			select {
			case c.acks <- f.kind:
			default: // nobody waits for it: a stray ack
			}
		case frameBadChksum:
			badRun++
			if c.noAck.Load() || badRun > 3 {
				c.rerr = fmt.Errorf("%w: bad checksum on %q", ErrGarbage, trunc(f.payload))
				c.conn.Close()
				return
			}
			c.writeRaw([]byte{'-'})
		case frameNotify:
			// Non-stop notifications are not requested; ignore them.
			c.log.Debug("gdbremote: notification ignored", "payload", trunc(f.payload))
		case framePacket:
			badRun = 0
			if !c.noAck.Load() {
				c.writeRaw([]byte{'+'})
			}
			c.stats.recv.Add(1)
			c.stats.brecv.Add(int64(len(f.payload)))
			c.pkts <- f.payload
		}
	}
}

func trunc(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
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

// send frames payload and writes it; in ack mode it waits for the ack and retransmits on nak.
func (c *Client) send(ctx context.Context, payload []byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	buf := appendFrame(make([]byte, 0, len(payload)+4), payload)
	c.stats.sent.Add(1)
	c.stats.bsent.Add(int64(len(payload)))
	for try := 0; ; try++ {
		if err := c.writeRaw(buf); err != nil {
			c.fail(err)
			return err
		}
		if c.noAck.Load() {
			return nil
		}
		select {
		case k := <-c.acks:
			if k == frameAck {
				return nil
			}
			if try >= 3 {
				err := fmt.Errorf("%w: stub keeps rejecting %q", ErrGarbage, trunc(payload))
				c.fail(err)
				return err
			}
		case <-c.done:
			return c.rerr
		case <-ctx.Done():
			err := fmt.Errorf("gdbremote: no ack for %q: %w", trunc(payload), ctx.Err())
			c.fail(err)
			return err
		}
	}
}

// fail ends the session: after a lost reply the stream can no longer be trusted.
func (c *Client) fail(err error) {
	c.log.Debug("gdbremote: session ends", "err", err)
	c.closeOne.Do(func() { c.conn.Close() })
}

// recv waits for the next packet.
func (c *Client) recv(ctx context.Context) ([]byte, error) {
	select {
	case p := <-c.pkts:
		return p, nil
	default:
	}
	select {
	case p := <-c.pkts:
		return p, nil
	case <-c.done:
		// deliver packets that arrived before the end
		select {
		case p := <-c.pkts:
			return p, nil
		default:
		}
		return nil, c.rerr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *Client) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.opts.Timeout)
}

// Exchange sends one command and returns its reply (after run-length decoding). An empty
// reply means the stub does not know the command. A reply that does not arrive before the
// deadline ends the session, because a late reply would be taken for the next one.
func (c *Client) Exchange(ctx context.Context, cmd string) (string, error) {
	b, err := c.exchange(ctx, []byte(cmd), false)
	return string(b), err
}

func (c *Client) exchange(ctx context.Context, cmd []byte, output bool) ([]byte, error) {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.running.Load() {
		return nil, ErrRunning
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if err := c.send(ctx, cmd); err != nil {
		return nil, err
	}
	for {
		p, err := c.recv(ctx)
		if err != nil {
			err = fmt.Errorf("gdbremote: %q: %w", trunc(cmd), err)
			c.fail(err)
			return nil, err
		}
		if output && isOutput(p) {
			c.output(p[1:])
			continue
		}
		return p, nil
	}
}

func isOutput(p []byte) bool {
	if len(p) < 3 || p[0] != 'O' || len(p)%2 != 1 {
		return false
	}
	for _, c := range p[1:] {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (c *Client) output(h []byte) string {
	b := make([]byte, len(h)/2)
	hex.Decode(b, h)
	if c.opts.Output != nil {
		c.opts.Output(string(b))
	} else {
		c.log.Debug("gdbremote: stub output", "text", string(b))
	}
	return string(b)
}

// replyError turns an "Exx"/"E.msg" reply into a *StubError, an empty reply into
// ErrUnsupported, and anything else into nil.
func replyError(cmd, r string) error {
	if r == "" {
		return fmt.Errorf("%w: %s", ErrUnsupported, truncs(cmd))
	}
	if len(r) >= 2 && r[0] == 'E' {
		if r[1] == '.' {
			return &StubError{Packet: truncs(cmd), Code: -1, Msg: r[2:]}
		}
		if n, err := strconv.ParseUint(r[1:], 16, 8); err == nil && len(r) == 3 {
			return &StubError{Packet: truncs(cmd), Code: int(n)}
		}
	}
	return nil
}

func truncs(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// expectOK runs cmd and requires "OK".
func (c *Client) expectOK(ctx context.Context, cmd string) error {
	r, err := c.Exchange(ctx, cmd)
	if err != nil {
		return err
	}
	if err := replyError(cmd, r); err != nil {
		return err
	}
	if r != "OK" {
		return fmt.Errorf("%w: %s: unexpected reply %q", ErrGarbage, truncs(cmd), truncs(r))
	}
	return nil
}

// Monitor runs a monitor command (qRcmd) and returns its console output.
func (c *Client) Monitor(ctx context.Context, cmd string) (string, error) {
	pkt := "qRcmd," + hex.EncodeToString([]byte(cmd))
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.running.Load() {
		return "", ErrRunning
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if err := c.send(ctx, []byte(pkt)); err != nil {
		return "", err
	}
	var out strings.Builder
	for {
		p, err := c.recv(ctx)
		if err != nil {
			err = fmt.Errorf("gdbremote: monitor %q: %w", cmd, err)
			c.fail(err)
			return out.String(), err
		}
		if isOutput(p) {
			out.WriteString(c.output(p[1:]))
			continue
		}
		r := string(p)
		if r == "OK" {
			return out.String(), nil
		}
		if err := replyError("qRcmd "+cmd, r); err != nil {
			return out.String(), err
		}
		// Some stubs answer with hex-encoded output directly instead of O packets.
		if b, err := hex.DecodeString(r); err == nil {
			out.Write(b)
			return out.String(), nil
		}
		return out.String(), fmt.Errorf("%w: monitor %q: reply %q", ErrGarbage, cmd, truncs(r))
	}
}

// ReadRegisters reads all registers with 'g'. The bytes are in target order, laid out as
// the target description says (see TargetDesc.SplitG). ErrUnsupported when the stub has no 'g'.
func (c *Client) ReadRegisters(ctx context.Context) ([]byte, error) {
	if c.noG {
		return nil, fmt.Errorf("%w: g", ErrUnsupported)
	}
	r, err := c.Exchange(ctx, "g")
	if err != nil {
		return nil, err
	}
	if err := replyError("g", r); err != nil {
		if errors.Is(err, ErrUnsupported) {
			c.noG = true
		}
		return nil, err
	}
	return decodeHexRegs(r)
}

// decodeHexRegs decodes register hex where "xx" marks bytes the stub cannot read (as 0).
func decodeHexRegs(r string) ([]byte, error) {
	if len(r)%2 != 0 {
		return nil, fmt.Errorf("%w: odd register hex %q", ErrGarbage, truncs(r))
	}
	b := make([]byte, len(r)/2)
	for i := range b {
		h := r[2*i : 2*i+2]
		if h == "xx" {
			continue
		}
		v, err := strconv.ParseUint(h, 16, 8)
		if err != nil {
			return nil, fmt.Errorf("%w: register hex %q", ErrGarbage, truncs(r))
		}
		b[i] = byte(v)
	}
	return b, nil
}

// WriteRegisters writes all registers with 'G'.
func (c *Client) WriteRegisters(ctx context.Context, data []byte) error {
	return c.expectOK(ctx, "G"+hex.EncodeToString(data))
}

// ReadRegister reads register n (the target description's number) with 'p', or with 'g'
// when the stub has no 'p' (after ReadTargetDesc).
func (c *Client) ReadRegister(ctx context.Context, n int) ([]byte, error) {
	if !c.noPRead {
		cmd := "p" + strconv.FormatUint(uint64(n), 16)
		r, err := c.Exchange(ctx, cmd)
		if err != nil {
			return nil, err
		}
		err = replyError(cmd, r)
		if err == nil {
			return decodeHexRegs(r)
		}
		if !errors.Is(err, ErrUnsupported) || c.desc == nil {
			return nil, err
		}
		c.noPRead = true
	}
	if c.desc == nil {
		return nil, fmt.Errorf("%w: p", ErrUnsupported)
	}
	g, err := c.ReadRegisters(ctx)
	if err != nil {
		return nil, err
	}
	v, ok := c.desc.SplitG(g)[n]
	if !ok {
		return nil, fmt.Errorf("gdbremote: register %d is not in the 'g' packet", n)
	}
	return v, nil
}

// WriteRegister writes register n with 'P', or by reading 'g' and writing 'G' when the
// stub has no 'P' (gdbserver; after ReadTargetDesc).
func (c *Client) WriteRegister(ctx context.Context, n int, val []byte) error {
	if !c.noP {
		err := c.expectOK(ctx, "P"+strconv.FormatUint(uint64(n), 16)+"="+hex.EncodeToString(val))
		if !errors.Is(err, ErrUnsupported) || c.desc == nil {
			return err
		}
		c.noP = true
	}
	if c.desc == nil {
		return fmt.Errorf("%w: P", ErrUnsupported)
	}
	r, ok := c.desc.RegByNum(n)
	if !ok || r.Offset < 0 || len(val) != r.Bitsize/8 {
		return fmt.Errorf("gdbremote: register %d cannot be written with 'G'", n)
	}
	g, err := c.ReadRegisters(ctx)
	if err != nil {
		return err
	}
	if r.Offset+len(val) > len(g) {
		return fmt.Errorf("gdbremote: register %d is not in the 'g' packet", n)
	}
	copy(g[r.Offset:], val)
	return c.WriteRegisters(ctx, g)
}

// ReadMemory reads n bytes at addr with 'm', in packets that fit PacketSize. A stub that
// returns fewer bytes than asked ends the read there: the result may be short, with an
// error only if nothing could be read.
func (c *Client) ReadMemory(ctx context.Context, addr uint64, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	chunk := max((c.packetSize-8)/2, 16)
	for len(out) < n {
		k := min(chunk, n-len(out))
		cmd := "m" + strconv.FormatUint(addr+uint64(len(out)), 16) + "," + strconv.FormatUint(uint64(k), 16)
		r, err := c.Exchange(ctx, cmd)
		if err != nil {
			return out, err
		}
		if err := replyError(cmd, r); err != nil {
			if len(out) > 0 {
				return out, nil
			}
			return nil, err
		}
		b, err := hex.DecodeString(r)
		if err != nil {
			return out, fmt.Errorf("%w: %s: reply %q", ErrGarbage, cmd, truncs(r))
		}
		out = append(out, b...)
		if len(b) < k {
			break
		}
	}
	return out, nil
}

// WriteMemory writes data at addr with 'X' (binary), or 'M' when the stub has no 'X'.
func (c *Client) WriteMemory(ctx context.Context, addr uint64, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	for off := 0; off < len(data); {
		a := addr + uint64(off)
		if !c.noX {
			hdr := "X" + strconv.FormatUint(a, 16) + ","
			// worst case every byte escaped: keep the escaped body within the packet
			k := min(len(data)-off, max((c.packetSize-len(hdr)-12)/2, 8))
			pkt := []byte(hdr + strconv.FormatUint(uint64(k), 16) + ":")
			pkt = escapeBinary(pkt, data[off:off+k])
			r, err := c.exchange(ctx, pkt, false)
			if err != nil {
				return err
			}
			if len(r) == 0 {
				c.noX = true
				continue
			}
			if err := replyError("X", string(r)); err != nil {
				return err
			}
			off += k
			continue
		}
		k := min(len(data)-off, max((c.packetSize-24)/2, 8))
		cmd := "M" + strconv.FormatUint(a, 16) + "," + strconv.FormatUint(uint64(k), 16) + ":" + hex.EncodeToString(data[off:off+k])
		if err := c.expectOK(ctx, cmd); err != nil {
			return err
		}
		off += k
	}
	return nil
}

// BreakKind selects the Z packet type.
type BreakKind int

const (
	SoftwareBreak  BreakKind = 0
	HardwareBreak  BreakKind = 1
	WriteWatch     BreakKind = 2
	ReadWatch      BreakKind = 3
	AccessWatch    BreakKind = 4
	autoBreakpoint BreakKind = -1
)

// SetBreakpoint inserts a software breakpoint at addr (kind is the stub's breakpoint kind:
// the instruction length, e.g. 1 on x86, 2 for Thumb, 4 for ARM). When the stub refuses
// Z0 it falls back to a hardware breakpoint (Z1). conds are agent expression bytecodes the
// stub evaluates (sent only when it announced ConditionalBreakpoints+): it reports a stop
// only when one of them is non-zero. It returns the kind that was used.
func (c *Client) SetBreakpoint(ctx context.Context, addr uint64, kind int, conds ...[]byte) (BreakKind, error) {
	suffix := ""
	if len(conds) > 0 && c.Supports("ConditionalBreakpoints") {
		var sb strings.Builder
		for _, e := range conds {
			fmt.Fprintf(&sb, ";X%x,%s", len(e), hex.EncodeToString(e))
		}
		suffix = sb.String()
	} else if len(conds) > 0 {
		return 0, fmt.Errorf("%w: target-side conditions", ErrUnsupported)
	}
	if !c.noZ0 {
		err := c.z(ctx, 'Z', SoftwareBreak, addr, kind, suffix)
		if err == nil {
			return SoftwareBreak, nil
		}
		if !errors.Is(err, ErrUnsupported) {
			return 0, err
		}
		c.noZ0 = true
	}
	return HardwareBreak, c.z(ctx, 'Z', HardwareBreak, addr, kind, suffix)
}

// ClearBreakpoint removes a breakpoint set with SetBreakpoint (k is the kind it returned).
func (c *Client) ClearBreakpoint(ctx context.Context, k BreakKind, addr uint64, kind int) error {
	return c.z(ctx, 'z', k, addr, kind, "")
}

// SetWatchpoint inserts a write (Z2), read (Z3) or access (Z4) watchpoint over n bytes.
func (c *Client) SetWatchpoint(ctx context.Context, k BreakKind, addr uint64, n int) error {
	if k < WriteWatch || k > AccessWatch {
		return fmt.Errorf("gdbremote: watchpoint kind %d", k)
	}
	return c.z(ctx, 'Z', k, addr, n, "")
}

// ClearWatchpoint removes a watchpoint.
func (c *Client) ClearWatchpoint(ctx context.Context, k BreakKind, addr uint64, n int) error {
	return c.z(ctx, 'z', k, addr, n, "")
}

func (c *Client) z(ctx context.Context, op byte, k BreakKind, addr uint64, kind int, suffix string) error {
	cmd := fmt.Sprintf("%c%d,%x,%x%s", op, k, addr, kind, suffix)
	return c.expectOK(ctx, cmd)
}

// Threads lists the thread ids (qfThreadInfo/qsThreadInfo).
func (c *Client) Threads(ctx context.Context) ([]string, error) {
	var ids []string
	cmd := "qfThreadInfo"
	for range 10000 {
		r, err := c.Exchange(ctx, cmd)
		if err != nil {
			return ids, err
		}
		if err := replyError(cmd, r); err != nil {
			return ids, err
		}
		if r == "l" || r == "" {
			return ids, nil
		}
		if r[0] != 'm' {
			return ids, fmt.Errorf("%w: thread list reply %q", ErrGarbage, truncs(r))
		}
		for _, id := range strings.Split(r[1:], ",") {
			if id != "" {
				ids = append(ids, id)
			}
		}
		cmd = "qsThreadInfo"
	}
	return ids, fmt.Errorf("%w: endless thread list", ErrGarbage)
}

// SetThread selects the thread for register and memory operations (Hg).
func (c *Client) SetThread(ctx context.Context, id string) error {
	return c.expectOK(ctx, "Hg"+id)
}

// ReadXfer reads a whole qXfer object (e.g. object "features", annex "target.xml").
func (c *Client) ReadXfer(ctx context.Context, object, annex string) ([]byte, error) {
	var out []byte
	chunk := max(c.packetSize-16, 64)
	for range 1 << 16 {
		cmd := fmt.Sprintf("qXfer:%s:read:%s:%x,%x", object, annex, len(out), chunk)
		r, err := c.exchange(ctx, []byte(cmd), false)
		if err != nil {
			return nil, err
		}
		if err := replyError(cmd, string(r)); err != nil {
			return nil, err
		}
		data, err := unescapeBinary(r[1:])
		if err != nil {
			return nil, err
		}
		out = append(out, data...)
		switch r[0] {
		case 'l':
			return out, nil
		case 'm':
			if len(data) == 0 {
				return nil, fmt.Errorf("%w: empty qXfer chunk", ErrGarbage)
			}
		default:
			return nil, fmt.Errorf("%w: qXfer reply %q", ErrGarbage, trunc(r))
		}
	}
	return nil, fmt.Errorf("%w: endless qXfer", ErrGarbage)
}

// Auxv reads the auxiliary vector of the process (qXfer:auxv:read) as type → value pairs,
// decoding words of ptrSize bytes in the given order.
func (c *Client) Auxv(ctx context.Context, ptrSize int, order binary.ByteOrder) (map[uint64]uint64, error) {
	if !c.Supports("qXfer:auxv:read") {
		return nil, fmt.Errorf("%w: qXfer:auxv:read", ErrUnsupported)
	}
	b, err := c.ReadXfer(ctx, "auxv", "")
	if err != nil {
		return nil, err
	}
	out := map[uint64]uint64{}
	for i := 0; i+2*ptrSize <= len(b); i += 2 * ptrSize {
		k, v := Uint(b[i:i+ptrSize], order), Uint(b[i+ptrSize:i+2*ptrSize], order)
		if k == 0 {
			break
		}
		out[k] = v
	}
	return out, nil
}

// HaltReason asks why the target stopped ('?').
func (c *Client) HaltReason(ctx context.Context) (StopReply, error) {
	r, err := c.Exchange(ctx, "?")
	if err != nil {
		return StopReply{}, err
	}
	return ParseStopReply(r)
}

// Resume actions for Resume.
const (
	ActContinue = "c"
	ActStep     = "s"
)

// Continue resumes the target; Wait reports the stop.
func (c *Client) Continue(ctx context.Context) error { return c.Resume(ctx, ActContinue, "") }

// Step single-steps one instruction; Wait reports the stop.
func (c *Client) Step(ctx context.Context) error { return c.Resume(ctx, ActStep, "") }

// Resume sends a resume action ("c" or "s") for thread (empty: the current one), using
// vCont when the stub offered that action and the plain packets otherwise.
func (c *Client) Resume(ctx context.Context, action, thread string) error {
	return c.resume(ctx, action, thread, 0, 0)
}

// StepRange steps thread while its pc stays in [start, end) (vCont;r, where the stub offers
// it; ErrUnsupported otherwise). Wait reports the stop.
func (c *Client) StepRange(ctx context.Context, thread string, start, end uint64) error {
	if !c.vcont["r"] {
		return fmt.Errorf("%w: vCont;r", ErrUnsupported)
	}
	return c.resume(ctx, "r", thread, start, end)
}

func (c *Client) resume(ctx context.Context, action, thread string, start, end uint64) error {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.running.Load() {
		return ErrRunning
	}
	var cmd string
	if c.vcont[action] {
		cmd = "vCont;" + action
		if action == "r" {
			cmd += fmt.Sprintf("%x,%x", start, end)
		}
		if thread != "" {
			cmd += ":" + thread
		}
	} else {
		if thread != "" {
			c.cmu.Unlock()
			err := c.expectOK(ctx, "Hc"+thread)
			c.cmu.Lock()
			if err != nil {
				return err
			}
		}
		cmd = action
	}
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	c.running.Store(true)
	if err := c.send(ctx, []byte(cmd)); err != nil {
		c.running.Store(false)
		return err
	}
	return nil
}

// Interrupt asks a running target to stop (the 0x03 byte). Wait reports the stop.
func (c *Client) Interrupt() error {
	if !c.running.Load() {
		return ErrNotRunning
	}
	c.stats.intr.Add(1)
	return c.writeRaw([]byte{0x03})
}

// Wait waits for the stop reply of a resumed target. Output ("O" packets) goes to
// Options.Output. When ctx ends first the target keeps running and Wait may be called again;
// when the connection ends, Wait returns its error.
func (c *Client) Wait(ctx context.Context) (StopReply, error) {
	if !c.running.Load() {
		return StopReply{}, ErrNotRunning
	}
	for {
		p, err := c.recv(ctx)
		if err != nil {
			if ctx.Err() == nil {
				c.running.Store(false)
			}
			return StopReply{}, err
		}
		if isOutput(p) {
			c.output(p[1:])
			continue
		}
		sr, err := ParseStopReply(string(p))
		if err != nil {
			c.fail(err)
			c.running.Store(false)
			return sr, err
		}
		if sr.Kind == StopFileIO {
			// File-I/O requests are not supported: tell the target the call failed (ENOSYS).
			c.log.Debug("gdbremote: File-I/O request refused", "req", sr.Raw)
			if err := c.send(ctx, []byte("F-1,58")); err != nil {
				c.running.Store(false)
				return sr, err
			}
			continue
		}
		c.running.Store(false)
		return sr, nil
	}
}

// Detach detaches from the target and lets it run on.
func (c *Client) Detach(ctx context.Context) error {
	return c.expectOK(ctx, "D")
}

// Kill kills the target. The stub may close the connection, which is not an error here.
func (c *Client) Kill(ctx context.Context) error {
	if c.running.Load() {
		return ErrRunning
	}
	if c.extended {
		_, err := c.Exchange(ctx, "vKill;"+c.pid(ctx))
		return err
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	ctx, cancel := c.withTimeout(ctx)
	defer cancel()
	if err := c.send(ctx, []byte("k")); err != nil {
		return nil
	}
	// 'k' has no reply in the original protocol; gdbserver may answer with X09.
	short, cancel2 := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel2()
	c.recv(short)
	return nil
}

// Restart restarts the program: in extended mode with vRun (gdbserver: the last program and
// arguments), otherwise with the monitor command "system_reset" (QEMU). The target is then
// stopped at its entry; the returned stop reply says where.
func (c *Client) Restart(ctx context.Context) (StopReply, error) {
	if c.extended {
		c.Exchange(ctx, "vKill;"+c.pid(ctx))
		r, err := c.Exchange(ctx, "vRun;")
		if err != nil {
			return StopReply{}, err
		}
		if err := replyError("vRun", r); err != nil {
			return StopReply{}, err
		}
		return ParseStopReply(r)
	}
	if _, err := c.Monitor(ctx, "system_reset"); err != nil {
		return StopReply{}, fmt.Errorf("gdbremote: restart: %w", err)
	}
	return c.HaltReason(ctx)
}

func (c *Client) pid(ctx context.Context) string {
	r, err := c.Exchange(ctx, "qC")
	if err != nil || !strings.HasPrefix(r, "QC") {
		return "1"
	}
	id := r[2:]
	if p, ok := strings.CutPrefix(id, "p"); ok {
		id, _, _ = strings.Cut(p, ".")
	}
	return id
}

// hexU parses a hex number.
func hexU(s string) (uint64, error) { return strconv.ParseUint(s, 16, 64) }

// PC reads the program counter of the current thread: from the stop reply's expedited
// registers when it has them, else with 'p' (or 'g'). It needs the target description.
func (c *Client) PC(ctx context.Context, sr *StopReply) (uint64, error) {
	if c.desc == nil {
		return 0, fmt.Errorf("gdbremote: no target description")
	}
	r, ok := c.desc.PCReg()
	if !ok {
		return 0, fmt.Errorf("gdbremote: the target description names no pc")
	}
	if sr != nil {
		if b, ok := sr.Regs[r.Num]; ok {
			return Uint(b, c.desc.Order()), nil
		}
	}
	b, err := c.ReadRegister(ctx, r.Num)
	if err != nil {
		return 0, err
	}
	return Uint(b, c.desc.Order()), nil
}

// StepOver single-steps the current thread off a software breakpoint at addr (set with
// SetBreakpoint, which returned bk). Stubs differ: QEMU steps over its breakpoints, while
// gdbserver would hit the breakpoint again. The first call finds out which kind of stub
// this is; afterwards a step costs one packet on the first kind and three (z, s, Z) on the
// second. It returns the stop reply of the step.
func (c *Client) StepOver(ctx context.Context, thread string, bk BreakKind, addr uint64, kind int, conds ...[]byte) (StopReply, error) {
	if c.stepOver == stepOverUnknown || c.stepOver == stepOverKeeps {
		if err := c.Resume(ctx, ActStep, thread); err != nil {
			return StopReply{}, err
		}
		sr, err := c.Wait(ctx)
		if err != nil || c.stepOver == stepOverKeeps || sr.Kind != StopSignal {
			return sr, err
		}
		pc, err := c.PC(ctx, &sr)
		if err != nil {
			return sr, err
		}
		if pc != addr {
			c.stepOver = stepOverKeeps
			return sr, nil
		}
		c.stepOver = stepOverRemoves
	}
	if err := c.ClearBreakpoint(ctx, bk, addr, kind); err != nil {
		return StopReply{}, err
	}
	if err := c.Resume(ctx, ActStep, thread); err != nil {
		return StopReply{}, err
	}
	sr, err := c.Wait(ctx)
	if err != nil {
		return sr, err
	}
	if c.Supports("ConditionalBreakpoints") {
		_, err = c.SetBreakpoint(ctx, addr, kind, conds...)
	} else {
		_, err = c.SetBreakpoint(ctx, addr, kind)
	}
	return sr, err
}

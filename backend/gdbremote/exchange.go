package gdbremote

// Client: one request/reply exchange (send, acks, receive, timeouts), stub errors, monitor commands.

import (
	"context"
	"encoding/hex"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"strconv"
	"strings"
)

func trunc(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}

// send frames payload and writes it; in ack mode it waits for the ack and retransmits on nak.
func (c *Client) send(ctx context.Context, payload []byte) error {
	if err := c.Err(); err != nil {
		return err
	}
	buf := rsp.AppendFrame(make([]byte, 0, len(payload)+4), payload)
	if c.trace {
		c.log.Debug("gdbremote: sent", "packet", truncs(string(payload)))
	}
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
			if k == rsp.Ack {
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
	p, err := c.recvPacket(ctx)
	if c.trace && err == nil {
		c.log.Debug("gdbremote: received", "packet", truncs(string(p)))
	}
	return p, err
}

func (c *Client) recvPacket(ctx context.Context) ([]byte, error) {
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
	return c.roundTrip(ctx, cmd, output)
}

// roundTrip sends cmd and returns its reply; c.cmu is held and the target is stopped
// (Wait also uses it while it handles a thread event: the target is then stopped although
// c.running stays set).
func (c *Client) roundTrip(ctx context.Context, cmd []byte, output bool) ([]byte, error) {
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
	return c.expectOKWith(c.exchanger(ctx), cmd)
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

package gdbremote

// Client: registers ('g'/'G', 'p'/'P') and memory ('m', 'X'/'M').

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"strconv"
)

// ReadRegisters reads all registers with 'g'. The bytes are in target order, laid out as
// the target description says (see TargetDesc.SplitG). ErrUnsupported when the stub has no 'g'.
func (c *Client) ReadRegisters(ctx context.Context) ([]byte, error) {
	return c.readRegisters(c.exchanger(ctx))
}

// exchanger is Exchange bound to ctx, for the helpers that take the way to exchange.
func (c *Client) exchanger(ctx context.Context) func(string) (string, error) {
	return func(cmd string) (string, error) { return c.Exchange(ctx, cmd) }
}

func (c *Client) readRegisters(ex func(string) (string, error)) ([]byte, error) {
	if c.noG {
		return nil, fmt.Errorf("%w: g", ErrUnsupported)
	}
	r, err := ex("g")
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
	return c.readRegister(c.exchanger(ctx), n)
}

func (c *Client) readRegister(ex func(string) (string, error), n int) ([]byte, error) {
	if !c.noPRead {
		cmd := "p" + strconv.FormatUint(uint64(n), 16)
		r, err := ex(cmd)
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
	g, err := c.readRegisters(ex)
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

// maxMemoryRead bounds one read of the target's memory (a garbage array bound is not
// allocated for).
const maxMemoryRead = 1 << 28

// ReadMemory reads n bytes at addr with 'm', in packets that fit PacketSize. A stub that
// returns fewer bytes than asked ends the read there: the result may be short, with an
// error only if nothing could be read.
func (c *Client) ReadMemory(ctx context.Context, addr uint64, n int) ([]byte, error) {
	if n < 0 || n > maxMemoryRead {
		return nil, fmt.Errorf("gdbremote: a read of %d bytes at %#x is more than the %d one read may take", n, addr, maxMemoryRead)
	}
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
			pkt = rsp.EscapeBinary(pkt, data[off:off+k])
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

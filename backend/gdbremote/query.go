package gdbremote

// Client: queries of the stub (threads, qXfer objects, the auxiliary vector).

import (
	"context"
	"encoding/binary"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"strings"
)

// Threads lists the thread ids (qfThreadInfo/qsThreadInfo).
func (c *Client) Threads(ctx context.Context) ([]string, error) {
	ids, err := listThreads(c.exchanger(ctx))
	return c.plainThreads(ids), err
}

// listThreads lists the thread ids with the exchanges of ex.
func listThreads(ex func(cmd string) (string, error)) ([]string, error) {
	var ids []string
	cmd := "qfThreadInfo"
	for range 10000 {
		r, err := ex(cmd)
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
	return c.expectOK(ctx, "Hg"+c.qualify(id))
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
		data, err := rsp.UnescapeBinary(r[1:])
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
	entries, err := c.AuxvEntries(ctx, ptrSize, order)
	if err != nil {
		return nil, err
	}
	out := map[uint64]uint64{}
	for _, e := range entries {
		if e[0] != 0 {
			out[e[0]] = e[1]
		}
	}
	return out, nil
}

// AuxvEntries is the program's auxiliary vector in its order: type and value pairs, up to
// and with its AT_NULL.
func (c *Client) AuxvEntries(ctx context.Context, ptrSize int, order binary.ByteOrder) ([][2]uint64, error) {
	if !c.Supports("qXfer:auxv:read") {
		return nil, fmt.Errorf("%w: qXfer:auxv:read", ErrUnsupported)
	}
	b, err := c.ReadXfer(ctx, "auxv", "")
	if err != nil {
		return nil, err
	}
	var out [][2]uint64
	for i := 0; i+2*ptrSize <= len(b); i += 2 * ptrSize {
		k, v := Uint(b[i:i+ptrSize], order), Uint(b[i+ptrSize:i+2*ptrSize], order)
		out = append(out, [2]uint64{k, v})
		if k == 0 {
			break
		}
	}
	return out, nil
}

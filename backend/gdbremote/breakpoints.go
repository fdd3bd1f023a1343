package gdbremote

// Client: breakpoints and watchpoints ('Z'/'z').

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

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
	if c.noteOnly(op, k, addr, kind, suffix) { // out of memory while a vfork child shares it
		return nil
	}
	cmd := fmt.Sprintf("%c%d,%x,%x%s", op, k, addr, kind, suffix)
	err := c.expectOK(ctx, cmd)
	if err == nil {
		c.notePoint(op, k, addr, kind, suffix)
	}
	return err
}

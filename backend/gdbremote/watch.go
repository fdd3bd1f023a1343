package gdbremote

// Target: watchpoints (engine.Watchpointer) through the stub's Z2 (write), Z3 (read) and
// Z4 (access) packets: gdbserver's hardware debug registers, QEMU's emulated ones. A hit
// stops the target with a "watch"/"rwatch"/"awatch" stop reply naming the address; the
// stop then says the old and the new value (the old one as read when the watchpoint was
// set or last hit).

import (
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"strconv"

	"github.com/polydbg/polydbg/engine"
)

var _ engine.Watchpointer = (*Target)(nil)

// watch is an armed watchpoint.
type watch struct {
	engine.Watchpoint
	kind BreakKind
	last []byte // the value at the last stop, when it could be read
	// readByAccess: a read watchpoint the stub has no packet for (x86's debug registers
	// watch writes or all accesses), inserted as an access watchpoint whose hits that
	// change the value are writes and pass, as gdb does.
	readByAccess bool
}

var watchKinds = map[engine.DataAccess]BreakKind{
	engine.DataWrite: WriteWatch, engine.DataRead: ReadWatch, engine.DataReadWrite: AccessWatch,
}

// DataTarget implements engine.Watchpointer: a variable (or a field, an element, *p) that
// lives in memory and is 1, 2, 4 or 8 bytes wide.
func (t *Target) DataTarget(frame int, expr string) (engine.Watchpoint, []engine.DataAccess, error) {
	if err := t.needStopped(); err != nil {
		return engine.Watchpoint{}, nil, EngineError(err)
	}
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Watchpoint{}, nil, err
	}
	v, err := (&evaluator{t: t, fr: fr}).value(expr)
	if err != nil {
		return engine.Watchpoint{}, nil, err
	}
	if !v.InMemory {
		return engine.Watchpoint{}, nil, fmt.Errorf("%s is not in memory (a register or a constant)", expr)
	}
	switch n := len(v.Bytes); n {
	case 1, 2, 4, 8:
	default:
		return engine.Watchpoint{}, nil, fmt.Errorf("%s is %d bytes: a watchpoint covers 1, 2, 4 or 8", expr, n)
	}
	w := engine.Watchpoint{Name: expr, Addr: v.Addr, Size: len(v.Bytes)}
	return w, []engine.DataAccess{engine.DataWrite, engine.DataRead, engine.DataReadWrite}, nil
}

// Watchpoints implements engine.Watchpointer.
func (t *Target) Watchpoints() []engine.Watchpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]engine.Watchpoint, len(t.watches))
	for i, w := range t.watches {
		out[i] = w.Watchpoint
	}
	return out
}

// SetWatchpoints implements engine.Watchpointer: the watchpoints that are no longer wanted
// are removed, the new ones inserted (a running target is interrupted for it).
func (t *Target) SetWatchpoints(ws []engine.Watchpoint) []engine.Watchpoint {
	out := make([]engine.Watchpoint, len(ws))
	copy(out, ws)
	err := t.whileStopped(func() error {
		t.mu.Lock()
		old := t.watches
		t.mu.Unlock()
		keep := map[*watch]bool{}
		var now []*watch
		for i, w := range ws {
			kind, ok := watchKinds[w.Access]
			if !ok {
				out[i].Message = fmt.Sprintf("unknown access %q (write, read or readWrite)", w.Access)
				continue
			}
			var found *watch
			for _, o := range old {
				if o.Addr == w.Addr && o.Size == w.Size && o.Access == w.Access {
					found = o
				}
			}
			if found == nil {
				err := t.c.SetWatchpoint(t.ctx, kind, w.Addr, w.Size)
				byAccess := false
				if kind == ReadWatch && errors.Is(err, ErrUnsupported) {
					kind, byAccess = AccessWatch, true
					err = t.c.SetWatchpoint(t.ctx, kind, w.Addr, w.Size)
				}
				if err != nil {
					out[i].Message = "the target refused the watchpoint: " + err.Error()
					if errors.Is(err, ErrUnsupported) {
						out[i].Message = "the target has no watchpoints of this kind"
					}
					continue
				}
				found = &watch{kind: kind, readByAccess: byAccess}
				found.last, _ = t.c.ReadMemory(t.ctx, w.Addr, w.Size)
			}
			keep[found] = true
			out[i].Verified, out[i].Message = true, ""
			found.Watchpoint = out[i]
			now = append(now, found)
		}
		var errs []error
		for _, o := range old {
			if !keep[o] {
				errs = append(errs, t.c.ClearWatchpoint(t.ctx, o.kind, o.Addr, o.Size))
			}
		}
		t.mu.Lock()
		t.watches = now
		t.mu.Unlock()
		return errors.Join(errs...)
	})
	if err != nil {
		for i := range out {
			if out[i].Verified {
				continue
			}
			if out[i].Message == "" {
				out[i].Message = err.Error()
			}
		}
		t.log.Warn("gdbremote: setting watchpoints", "err", err)
	}
	return out
}

// watchStop makes the stop of a watchpoint hit, or returns nil for other stops and for a
// write that left the value as it was (isWatchHit tells that one from the others).
func (t *Target) watchStop(sr StopReply) *engine.Stop {
	if !isWatchHit(sr) {
		return nil
	}
	t.mu.Lock()
	var hit *watch
	for _, w := range t.watches {
		if sr.WatchAddr >= w.Addr && sr.WatchAddr < w.Addr+uint64(w.Size) {
			hit = w
		}
	}
	t.mu.Unlock()
	if hit == nil {
		return &engine.Stop{Reason: engine.ReasonData, Text: fmt.Sprintf("watchpoint at %#x", sr.WatchAddr)}
	}
	if t.sym.Arch.Machine == elf.EM_ARM {
		// ARM watchpoints (QEMU's too) stop before the access: step over the instruction
		// that makes it, the watchpoint out of the way, as gdb does, to see the new value.
		if err := t.stepOverAccess(hit); err != nil {
			return &engine.Stop{Reason: engine.ReasonData, BreakpointID: hit.ID, Text: hit.Name + ": " + err.Error()}
		}
	}
	now, err := t.readCached(hit.Addr, hit.Size)
	if err == nil && hit.Access == engine.DataWrite && hit.last != nil && bytes.Equal(hit.last, now) {
		return nil // a write of the value already there: not a change, no stop (gdb's watch)
	}
	if err == nil && hit.readByAccess && hit.last != nil && !bytes.Equal(hit.last, now) {
		t.mu.Lock()
		hit.last = now
		t.mu.Unlock()
		return nil // a write, seen by the access watchpoint that stands for a read one
	}
	text := hit.Name
	switch {
	case err != nil:
		text += ": " + err.Error()
	case hit.last != nil && (hit.Access == engine.DataWrite || hit.Access == engine.DataReadWrite && !bytes.Equal(hit.last, now)):
		// a write, or an access that changed the value (gdb's awatch says both values then)
		text += ": " + t.watchValue(hit.last) + " -> " + t.watchValue(now)
	default:
		text += " = " + t.watchValue(now)
	}
	if err == nil {
		t.mu.Lock()
		hit.last = now
		t.mu.Unlock()
	}
	return &engine.Stop{Reason: engine.ReasonData, BreakpointID: hit.ID, Text: text}
}

// stepOverAccess single-steps the instruction that hit w with w removed (run loop only).
func (t *Target) stepOverAccess(w *watch) error {
	if err := t.c.ClearWatchpoint(t.ctx, w.kind, w.Addr, w.Size); err != nil {
		return err
	}
	_, serr := t.resumeWait("s", 0, 0)
	if err := t.c.SetWatchpoint(t.ctx, w.kind, w.Addr, w.Size); err != nil && serr == nil {
		serr = err
	}
	return serr
}

// watchValue formats a watched value as an unsigned number in the target's byte order.
func (t *Target) watchValue(b []byte) string {
	return strconv.FormatUint(Uint(b, t.order), 10)
}

// isWatchHit reports whether the stub stopped the target for a watchpoint.
func isWatchHit(sr StopReply) bool {
	return sr.Reason == "watch" || sr.Reason == "rwatch" || sr.Reason == "awatch"
}

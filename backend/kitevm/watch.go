package kitevm

// Watchpoints (engine.Watchpointer) on Kite variables and elements, kept in software as
// gdb does where there is no hardware: the instructions that may write (or read) the
// watched place are trapped only while it is watched, and at each such trap the value is
// compared with the last one seen. A program with no watchpoint runs the same code as
// one with no debugger. A watchpoint on a local ends when its activation returns, with a
// stop that says so (gdb deletes it as the frame goes).

import (
	"fmt"
	"slices"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

var _ engine.Watchpointer = (*Target)(nil)

// placeHandle is the first of the handles that stand for a Kite place in a Watchpoint's
// Addr (a Kite value has no address; its Size is 0).
const placeHandle = 1 << 48

// watched is one place found by DataTarget, watched or not.
type watched struct {
	place vm.Place
	name  string
	ended bool // its activation returned: it cannot be watched again
}

// kwatch is an armed watchpoint.
type kwatch struct {
	engine.Watchpoint
	w    *watched
	last vm.Value
	has  bool // last holds the value seen last (the place held one)
}

// watchState is the watchpoints' part of a Target. places and set are guarded by t.mu;
// armed, sites and at are the program coroutine's.
type watchState struct {
	places map[uint64]*watched // by handle
	byKey  map[string]uint64
	set    []engine.Watchpoint // as set last (Watchpoints)
	dirty  bool                // set changed: the coroutine re-arms
	armed  []*kwatch
	at     []bool // per pc: a watch site is trapped there
}

// DataTarget implements engine.Watchpointer: a variable of frame (or a global), or an
// element or field of a list or map.
func (t *Target) DataTarget(frame int, expr string) (engine.Watchpoint, []engine.DataAccess, error) {
	e, err := syntax.ParseExpr("<watch>", []byte(expr))
	if err != nil {
		return engine.Watchpoint{}, nil, exprError(err)
	}
	var w engine.Watchpoint
	var access []engine.DataAccess
	var bad error
	err = t.do(func() {
		if frame < 0 || frame >= max(t.vm.NumFrames(), 1) {
			bad = engine.ErrNoFrame
			return
		}
		p, err := t.vm.ResolvePlace(frame, e)
		if err != nil {
			bad = exprError(err)
			return
		}
		if t.places == nil {
			t.places, t.byKey = map[uint64]*watched{}, map[string]uint64{}
		}
		h, ok := t.byKey[p.Key()]
		if !ok || t.places[h].ended {
			h = placeHandle + uint64(len(t.places))
			t.byKey[p.Key()] = h
			t.places[h] = &watched{place: p, name: expr}
		}
		w = engine.Watchpoint{Name: expr, Addr: h}
		access = []engine.DataAccess{engine.DataWrite}
		if p.CanRead() {
			access = append(access, engine.DataRead, engine.DataReadWrite)
		}
	})
	if err == nil {
		err = bad
	}
	return w, access, err
}

// Watchpoints implements engine.Watchpointer.
func (t *Target) Watchpoints() []engine.Watchpoint {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.set)
}

// SetWatchpoints implements engine.Watchpointer. The program's coroutine arms them before
// it runs on (a running program is interrupted for it).
func (t *Target) SetWatchpoints(ws []engine.Watchpoint) []engine.Watchpoint {
	out := slices.Clone(ws)
	t.mu.Lock()
	for i, w := range out {
		p := t.places[w.Addr]
		switch {
		case p == nil || w.Size != 0:
			out[i].Message = "not a place of this program (ask for it while stopped)"
		case p.ended:
			out[i].Message = fmt.Sprintf("%s is out of scope: its function returned", p.name)
		case w.Access != engine.DataWrite && !p.place.CanRead():
			out[i].Message = fmt.Sprintf("reads of %s cannot be watched, only changes", p.name)
		case w.Access != engine.DataWrite && w.Access != engine.DataRead && w.Access != engine.DataReadWrite:
			out[i].Message = fmt.Sprintf("unknown access %q (write, read or readWrite)", w.Access)
		default:
			out[i].Verified, out[i].Message = true, ""
		}
	}
	t.set, t.dirty = slices.Clone(out), true
	t.queuedUnlock()
	return out
}

// armWatches re-arms the watchpoints after a change (on the program's coroutine): the
// sites of the ones kept stay trapped, a new one starts from the value its place holds now.
func (t *Target) armWatches() {
	t.mu.Lock()
	if !t.dirty {
		t.mu.Unlock()
		return
	}
	t.dirty = false
	var now []*kwatch
	for _, w := range t.set {
		if !w.Verified {
			continue
		}
		k := &kwatch{Watchpoint: w, w: t.places[w.Addr]}
		for _, o := range t.armed {
			if o.w == k.w {
				k.last, k.has = o.last, o.has
			}
		}
		if !k.has {
			k.last, k.has = t.vm.PlaceValue(&k.w.place)
		}
		now = append(now, k)
	}
	t.mu.Unlock()
	t.armed = now
	t.resite()
}

// resite traps exactly the sites of the armed watchpoints.
func (t *Target) resite() {
	if t.at == nil {
		t.at = make([]bool, len(t.prog.Code))
	}
	want := make([]bool, len(t.at))
	for _, k := range t.armed {
		s := t.vm.Sites(&k.w.place)
		mark := func(pcs []int) {
			for _, pc := range pcs {
				if pc < len(want) {
					want[pc] = true
				}
			}
		}
		if k.Access != engine.DataRead {
			mark(s.After)
		}
		if k.Access != engine.DataWrite {
			mark(s.At)
		}
		mark(s.Ends)
	}
	for pc := range want {
		if want[pc] != t.at[pc] {
			t.at[pc] = want[pc]
			t.syncTrap(pc)
		}
	}
}

// syncTrap patches pc to trap when anything wants it: a breakpoint, a watch site, the
// return address of a step.
func (t *Target) syncTrap(pc int) {
	on := t.bp[pc] || t.retArmed && pc == t.retPC || t.at != nil && t.at[pc]
	t.vm.SetBreak(pc, on)
}

// checkWatches runs at a trapped watch site: the stop of the first watchpoint that saw its
// place change, be read, or go out of scope; nil when none did.
func (t *Target) checkWatches(pc int) *engine.Stop {
	var stop *engine.Stop
	ended := false
	for _, k := range t.armed {
		if t.vm.Ended(&k.w.place, pc) {
			ended = true
			if stop == nil {
				stop = &engine.Stop{Reason: engine.ReasonData, BreakpointID: k.ID, Location: t.here(pc),
					Text: fmt.Sprintf("%s: out of scope, the watchpoint is deleted as %s returns", k.Name, funcName(t.prog.FuncAt(pc)))}
			}
			continue
		}
		v, has := t.vm.PlaceValue(&k.w.place)
		changed := has != k.has || has && !vm.Same(v, k.last)
		if changed && k.Access != engine.DataRead {
			if stop == nil {
				stop = &engine.Stop{Reason: engine.ReasonData, BreakpointID: k.ID, Location: t.here(pc),
					Text: fmt.Sprintf("%s: %s -> %s", k.Name, t.shown(k.last, k.has), t.shown(v, has))}
			}
		} else if k.Access != engine.DataWrite && t.vm.ReadsPlace(&k.w.place, pc) && stop == nil {
			stop = &engine.Stop{Reason: engine.ReasonData, BreakpointID: k.ID, Location: t.here(pc),
				Text: fmt.Sprintf("%s = %s", k.Name, t.shown(v, has))}
		}
		k.last, k.has = v, has
	}
	if ended {
		t.endWatches(pc)
	}
	return stop
}

// endWatches removes the watchpoints whose activation is returning at pc.
func (t *Target) endWatches(pc int) {
	var keep []*kwatch
	t.mu.Lock()
	for _, k := range t.armed {
		if !t.vm.Ended(&k.w.place, pc) {
			keep = append(keep, k)
			continue
		}
		k.w.ended = true
		t.set = slices.DeleteFunc(t.set, func(w engine.Watchpoint) bool { return w.ID == k.ID })
	}
	t.mu.Unlock()
	t.armed = keep
	t.resite()
}

// shown is a watched value as the stop says it.
func (t *Target) shown(v vm.Value, has bool) string {
	if !has {
		return "<undefined>"
	}
	return t.variable("", v).Value
}

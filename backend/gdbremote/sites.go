package gdbremote

// Target: one breakpoint at several places. `break FUNC` binds, as gdb's "Breakpoint 1 at
// ...: FUNC. (3 locations)", at the out-of-line copy of the function and at every inlined
// copy; `break FILE:LINE` at the line in every function and inlined copy that has it. The session sets one trap, at the address ResolveFunction returned (the key); the
// target plants the stub's breakpoints at every copy and reports a hit at any of them as a
// hit of the key, so the same breakpoint id stops there, with the location where the
// program really is.

import (
	"slices"

	"github.com/polydbg/polydbg/engine"
)

// trapHit asks the handler about the trap at pc (a copy's address reports its key's).
func (t *Target) trapHit(h engine.Handler, pc uint64) *engine.Stop {
	t.mu.Lock()
	key := pc
	if tr := t.traps[pc]; tr != nil && len(tr.keys) > 0 && !slices.Contains(tr.keys, pc) {
		key = tr.keys[0] // a copy only: its breakpoint's
	}
	t.mu.Unlock()
	if key == pc {
		return h.Trap(t.location(pc))
	}
	st := h.Trap(t.location(key))
	if st != nil {
		st.Location = t.location(pc)
	}
	return st
}

// addSites records that a trap at pcs[0] covers pcs[1:] too, for a breakpoint on fn (the
// function whose inlined frame a stop there shows). Breakpoints that bind at the same
// first address share the trap (the session keys traps by address): its sites are the
// union, planted at once when the trap is already set.
func (t *Target) addSites(pcs []uint64, fn string) {
	key := pcs[0]
	t.mu.Lock()
	if t.sites == nil {
		t.sites, t.keyFn = map[uint64][]uint64{}, map[uint64]string{}
	}
	var added []uint64
	for _, pc := range pcs[1:] {
		if !slices.Contains(t.sites[key], pc) {
			t.sites[key] = append(t.sites[key], pc)
			added = append(added, pc)
		}
	}
	t.keyFn[key] = fn
	tr := t.traps[key]
	live := tr != nil && slices.Contains(tr.keys, key)
	t.mu.Unlock()
	if live && len(added) > 0 {
		_ = t.whileStopped(func() error {
			for _, pc := range added {
				if err := t.setOneTrap(pc, key, true); err != nil {
					return err
				}
			}
			return nil
		})
	}
}

// userTrap asks the handler about a breakpoint at pc reached while the target runs for a
// step (over a call, out of a function): the stop it wants, or nil.
func (t *Target) userTrap(pc uint64) *engine.Stop {
	t.mu.Lock()
	at := t.traps[pc] != nil
	h := t.h
	t.mu.Unlock()
	if !at || h == nil {
		return nil
	}
	return t.trapHit(h, pc)
}

// trapStopError ends a step at a breakpoint the handler wants to stop at; arrived says
// the breakpoint is where the step was going (a finish's return address).
type trapStopError struct {
	st      *engine.Stop
	arrived bool
	// returned: a function called from an expression returned (dummy.go), its frame to
	// be popped once the stop is made.
	returned bool
}

func (e *trapStopError) Error() string { return "stopped at a breakpoint" }

// TrapSites implements engine.TrapSites: the places a trap set at loc covers, loc first.
func (t *Target) TrapSites(loc engine.Location) []engine.Location {
	out := []engine.Location{loc}
	if !loc.HasPC {
		return out
	}
	t.mu.Lock()
	pcs := t.sites[loc.PC]
	t.mu.Unlock()
	for _, pc := range pcs {
		out = append(out, t.location(pc))
	}
	return out
}

package engine

import "fmt"

// TrapSites is implemented by targets where one trap stands for several places in the
// program: a breakpoint on a function that the compiler also inlined binds at the
// out-of-line copy and at every inlined copy, as gdb's "Breakpoint 1 at ...: f. (3
// locations)". The session sets one trap (at the breakpoint's Location); the target traps
// every site and reports a hit at any of them through Handler.Trap with that Location, so
// the same breakpoint id stops there; the Stop's Location is where the program really is.
type TrapSites interface {
	// TrapSites returns every place a trap set at loc covers, loc first.
	TrapSites(loc Location) []Location
}

// BreakpointSites returns every place breakpoint id traps: its Location and, on targets
// that implement TrapSites, the other copies of its function.
func (s *Session) BreakpointSites(id int) ([]Location, error) {
	s.mu.Lock()
	b, ok := s.bps[id]
	s.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no breakpoint %d", id)
	}
	if ts, ok := s.t.(TrapSites); ok && b.bp.Verified {
		return ts.TrapSites(b.bp.Location), nil
	}
	return []Location{b.bp.Location}, nil
}

// BreakpointSiteOf says where pc is among the places of breakpoint id, counted by address
// from 1 as gdb numbers them (1.2), and how many places it has; (1, 1) for a breakpoint
// at one place. It allocates nothing for a target without TrapSites (a stop's report asks
// it at every breakpoint stop).
func (s *Session) BreakpointSiteOf(id int, pc uint64) (n, of int) {
	s.mu.Lock()
	b, ok := s.bps[id]
	s.mu.Unlock()
	ts, many := s.t.(TrapSites)
	if !ok || !many || !b.bp.Verified {
		return 1, 1
	}
	sites := ts.TrapSites(b.bp.Location)
	n = 1
	for _, l := range sites {
		if l.PC < pc {
			n++
		}
	}
	return n, len(sites)
}

package engine

// Instruction breakpoints by address, for protocols whose set and clear are keyed by the
// address (Prometeu's setBreakpoint/clearBreakpoint, GDB's Z0/z0): one breakpoint per
// address, found in the engine's one table rather than in a map of the front end's own.

// InstructionBreakpointAt returns the instruction breakpoint asked for at pc.
func (s *Session) InstructionBreakpointAt(pc uint64) (Breakpoint, bool) {
	for _, bp := range s.Breakpoints() {
		if bp.Spec.Kind == InstructionBreakpoint && bp.Spec.PC == pc {
			return bp, true
		}
	}
	return Breakpoint{}, false
}

// EnsureInstructionBreakpoint returns the instruction breakpoint at pc, setting a plain one
// (no condition) when there is none, so that setting the same address twice gives the same
// breakpoint. Callers that set from several goroutines serialize their calls.
func (s *Session) EnsureInstructionBreakpoint(pc uint64) (Breakpoint, error) {
	if bp, ok := s.InstructionBreakpointAt(pc); ok {
		return bp, nil
	}
	return s.SetBreakpoint(BreakpointSpec{Kind: InstructionBreakpoint, PC: pc})
}

// BreakpointsAt returns the breakpoints bound at address pc, of any kind and whichever
// front end set them, and pc as the target resolves it (a Thumb address with its low bit
// set names the instruction at pc-1).
func (s *Session) BreakpointsAt(pc uint64) ([]Breakpoint, uint64) {
	if r, ok := s.t.(InstructionResolver); ok {
		if l, err := r.ResolvePC(pc); err == nil {
			pc = l.PC
		}
	}
	var out []Breakpoint
	for _, b := range s.Breakpoints() {
		if b.Location.HasPC && b.Location.PC == pc {
			out = append(out, b)
		}
	}
	return out, pc
}

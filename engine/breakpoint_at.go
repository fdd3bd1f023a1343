package engine

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Breakpoints by place, found in the engine's one table rather than in a map of a front
// end's own: by address, for protocols whose set and clear are keyed by it (Prometeu's
// setBreakpoint/clearBreakpoint, GDB's Z0/z0), and by line or function (gdb's clear).

// InstructionBreakpointAt returns the instruction breakpoint asked for at pc.
func (s *Session) InstructionBreakpointAt(pc uint64) (Breakpoint, bool) {
	for _, bp := range s.Breakpoints() {
		if bp.Spec.Kind == InstructionBreakpoint && bp.Spec.PC == pc {
			return bp, true
		}
	}
	return Breakpoint{}, false
}

// EnsureInstructionBreakpoint returns the instruction breakpoint at pc (as the target
// resolves it: a Thumb address names pc-1), setting a plain one (no condition) when there is
// none, so that setting the same address twice, from any goroutine, gives the same breakpoint.
func (s *Session) EnsureInstructionBreakpoint(pc uint64) (Breakpoint, error) {
	s.ensureMu.Lock()
	defer s.ensureMu.Unlock()
	if bp, ok := s.InstructionBreakpointAt(pc); ok {
		return bp, nil
	}
	at, resolved := s.BreakpointsAt(pc)
	for _, bp := range at {
		if bp.Spec.Kind == InstructionBreakpoint && bp.Location.PC == resolved {
			return bp, nil
		}
	}
	return s.SetBreakpoint(BreakpointSpec{Kind: InstructionBreakpoint, PC: pc})
}

// ClearBreakpointsAt removes the breakpoints bound at address pc (BreakpointsAt) and returns
// them, with pc as the target resolves it; none is not an error.
func (s *Session) ClearBreakpointsAt(pc uint64) ([]Breakpoint, uint64, error) {
	at, resolved := s.BreakpointsAt(pc)
	for i, b := range at {
		if err := s.RemoveBreakpoint(b.ID); err != nil {
			return at[:i], resolved, err
		}
	}
	return at, resolved, nil
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

// BreakpointsAtPlace returns the breakpoints set at the place spec names, as gdb's clear
// finds them: at its address; on a function (by name, or bound to the line the function
// starts at); on a line (bound there, or asked for there and moved to code further on).
// A file is named as a user names it: its path, or the path's end ("loop.c").
func (s *Session) BreakpointsAtPlace(spec BreakpointSpec) ([]Breakpoint, error) {
	var at func(Breakpoint) bool
	switch spec.Kind {
	case InstructionBreakpoint:
		bs, _ := s.BreakpointsAt(spec.PC)
		return bs, nil
	case FunctionBreakpoint:
		fn, err := s.t.ResolveFunction(spec.Function)
		if err != nil {
			return nil, fmt.Errorf("Function %q not defined.", spec.Function)
		}
		at = func(b Breakpoint) bool {
			return b.Spec.Function == spec.Function || atLine(b.Location, fn.File, fn.Line)
		}
	default:
		at = func(b Breakpoint) bool {
			return atLine(b.Location, spec.File, spec.Line) ||
				b.Spec.Kind == LineBreakpoint && b.Spec.Line == spec.Line && SourceFileIs(b.Location.File, spec.File)
		}
	}
	var out []Breakpoint
	for _, b := range s.Breakpoints() {
		if at(b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// atLine reports whether l is at line of file.
func atLine(l Location, file string, line int) bool {
	return l.Line == line && SourceFileIs(l.File, file)
}

// SourceFileIs reports whether the path full is the file given as a user names it: the
// same path, one that ends with it after a slash, or the same file through a symbolic link
// (an editor's path through a linked folder).
func SourceFileIs(full, given string) bool {
	if given == "" {
		return false
	}
	full, given = filepath.Clean(full), filepath.Clean(given)
	if full == given || strings.HasSuffix(full, "/"+strings.TrimPrefix(given, "./")) {
		return true
	}
	rf, err := filepath.EvalSymlinks(full)
	if err != nil {
		return false
	}
	rg, err := filepath.EvalSymlinks(given)
	return err == nil && rf == rg
}

package mcp

import (
	"fmt"
	"sort"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
)

// setBreakpoint translates one BreakpointIn into the engine's spec and sets it.
func (s *Server) setBreakpoint(g *debuggee, b BreakpointIn) (BP, error) {
	spec := engine.BreakpointSpec{Condition: b.Condition, HitCondition: b.HitCondition, LogMessage: b.LogMessage, Temporary: b.Temporary}
	switch {
	case b.Function != "":
		spec.Kind, spec.Function = engine.FunctionBreakpoint, b.Function
	case b.Address != "":
		pc, err := engine.ParseAddress(b.Address)
		if err != nil {
			return BP{}, err
		}
		spec.Kind, spec.PC = engine.InstructionBreakpoint, pc
	case b.Line > 0:
		spec.Kind, spec.Line, spec.File = engine.LineBreakpoint, b.Line, abs(b.File)
		if spec.File == "" {
			spec.File = g.d.Spec.Program
		}
	default:
		return BP{}, fmt.Errorf("a breakpoint needs a line (with a file), a function or an address")
	}
	bp, err := g.d.SetBreakpointOrPending(spec) // (one in a library not loaded yet waits for it)
	if err != nil {
		return BP{}, err
	}
	return s.bp(g, bp), nil
}

func (s *Server) bp(g *debuggee, b engine.Breakpoint) BP {
	out := BP{ID: b.ID, Verified: b.Verified, Hits: b.Hits, Message: b.Message, Condition: b.Spec.Condition}
	if b.Verified {
		l := s.location(g, b.Location)
		out.Location = &l
	}
	return out
}

func (s *Server) bpList(g *debuggee) BPList {
	out := BPList{Breakpoints: []BP{}}
	for _, b := range g.d.Breakpoints() {
		out.Breakpoints = append(out.Breakpoints, s.bp(g, b))
	}
	for _, w := range g.d.DataBreakpoints() {
		out.Breakpoints = append(out.Breakpoints, watchBP(w))
	}
	return out
}

// watchBP is a watchpoint as the breakpoint tools list it.
func watchBP(w engine.Watchpoint) BP {
	return BP{ID: w.ID, Verified: w.Verified, Message: w.Message, Watch: w.Name, Access: string(w.Access)}
}

// variables lists one page of a variable's children (through the engine's pager, so that a
// list of a million items is never produced whole), or a frame's scopes as variables.
func (s *Server) variables(g *debuggee, in VarsIn) (VarsOut, error) {
	n := in.Count
	if n <= 0 {
		n = 50
	}
	n = min(n, 1000)
	start := max(in.Start, 0)
	out := VarsOut{Variables: []Var{}, Start: start}
	if in.Ref == 0 {
		scopes, err := g.d.Scopes(in.Frame)
		if err != nil {
			return VarsOut{}, err
		}
		for _, sc := range engine.Page(scopes, start, n) {
			out.Variables = append(out.Variables, Var{Name: sc.Name, Ref: sc.Ref, Type: "scope"})
		}
		out.Total = len(scopes)
		return out, nil
	}
	// One more than asked says whether more follow.
	page, err := g.d.VariablesPage(in.Ref, start, n+1)
	if err != nil {
		return VarsOut{}, err
	}
	if len(page) > n {
		page, out.More = page[:n], true
	} else {
		out.Total = start + len(page)
	}
	for _, v := range page {
		out.Variables = append(out.Variables, s.variable(v, 0))
	}
	return out, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// profileOf summarizes a finished Kite run's profile.
func profileOf(g *debuggee, top int) (ProfileOut, error) {
	if g.d.Profiler == nil {
		return ProfileOut{}, fmt.Errorf("session %s was not started with profile: true (Kite programs only)", g.id)
	}
	if !g.d.State().Ended() {
		return ProfileOut{}, fmt.Errorf("the profile is ready once the program has ended: continue it to the end first")
	}
	if top <= 0 {
		top = 10
	}
	r := g.d.Profiler.Report()
	sites := append([]profile.SiteStats(nil), r.Sites...)
	sort.SliceStable(sites, func(i, j int) bool { return sites[i].SelfNs > sites[j].SelfNs })
	out := ProfileOut{TotalMs: float64(r.TotalNs) / 1e6, TopSelf: []ProfileSite{}, TopStack: orEmpty(profile.FlameSummary(r.FlameFolded, top))}
	for _, st := range sites[:min(top, len(sites))] {
		out.TopSelf = append(out.TopSelf, ProfileSite{Line: st.Line, Col: st.Col, Kind: st.Kind, Count: st.Count, SelfMs: float64(st.SelfNs) / 1e6})
	}
	return out, nil
}

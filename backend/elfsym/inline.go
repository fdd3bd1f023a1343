package elfsym

// Inlined functions: each DW_TAG_inlined_subroutine is a copy of a function inside
// another. A pc inside a copy has a frame of its own in a backtrace, as gdb shows it (the
// copy's function at the pc's line, then the function it is inlined into at the call's
// line), with the copy's own parameters and locals; `break FUNC` can go on every copy.

import (
	"debug/dwarf"
	"sort"
)

// Inline is one inlined copy of a function.
type Inline struct {
	Name     string
	Ranges   [][2]uint64 // link-time [lo, hi)
	Entry    uint64      // link-time entry (DW_AT_entry_pc, else the first range's start)
	CallFile string
	CallLine int
	Depth    int // 1 for a copy directly in a function, 2 for a copy inside a copy...
	die      dwarf.Offset
	linkage  string // C++'s mangled name, which names it (nameFromLinkage)
}

func (in *Inline) contains(a uint64) bool {
	for _, r := range in.Ranges {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// inlineFromEntry reads a DW_TAG_inlined_subroutine (nil when it has no code).
func (f *File) inlineFromEntry(e *dwarf.Entry, files []*dwarf.LineFile, depth int) *Inline {
	name, linkage := f.originNames(e)
	rs, err := f.DWARF.Ranges(e)
	if err != nil || len(rs) == 0 || name == "" {
		return nil
	}
	name, linkage = cLinkageName(name, linkage)
	in := &Inline{Name: name, Depth: depth, die: e.Offset, linkage: linkage}
	for _, r := range rs {
		lo, hi := f.clearThumb(r[0]), f.clearThumb(r[1])
		if f.code.has(lo) {
			in.Ranges = append(in.Ranges, [2]uint64{lo, hi})
		}
	}
	if len(in.Ranges) == 0 {
		return nil
	}
	sort.Slice(in.Ranges, func(i, j int) bool { return in.Ranges[i][0] < in.Ranges[j][0] })
	in.Entry = in.Ranges[0][0]
	if ep, ok := e.Val(dwarf.AttrEntrypc).(uint64); ok {
		in.Entry = f.clearThumb(ep)
	}
	if l, ok := e.Val(dwarf.AttrCallLine).(int64); ok {
		in.CallLine = int(l)
	}
	if fi, ok := e.Val(dwarf.AttrCallFile).(int64); ok && fi >= 0 && int(fi) < len(files) && files[fi] != nil {
		in.CallFile = files[fi].Name
	}
	return in
}

// InlinesAt returns the inlined copies containing the run-time pc, outermost first.
func (f *File) InlinesAt(pc uint64) []*Inline {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.InlinesAt(pc)
	}
	a := f.clearThumb(pc - f.Bias)
	var out []*Inline
	for _, in := range f.inlines {
		if in.contains(a) {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Depth < out[j].Depth })
	return out
}

// Inlines returns every inlined copy of the function name.
func (f *File) Inlines(name string) []*Inline {
	var out []*Inline
	for _, in := range f.inlines {
		if nameMatches(in.Name, func() string { return in.Name }, name) {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Entry < out[j].Entry })
	return out
}

// FuncBreakpoints returns the run-time addresses of a breakpoint on every copy of the
// function name: after the prologue of the out-of-line copy, and at the entry of each
// inlined copy.
func (f *File) FuncBreakpoints(name string) ([]uint64, error) {
	var pcs []uint64
	for _, g := range append([]*File{f}, f.debugLibraries()...) {
		for _, fn := range g.ownFuncsNamed(name) {
			pcs = append(pcs, g.afterPrologue(fn)+g.Bias)
		}
		for _, in := range g.Inlines(name) {
			pcs = append(pcs, g.inlineBreakpoint(in)+g.Bias)
		}
	}
	if len(pcs) == 0 {
		return nil, f.noFunc(name)
	}
	return pcs, nil
}

// expandInlines gives each frame whose pc is inside inlined copies a frame per copy, as
// gdb does: the innermost copy at the pc's line, each outer one at the line of the call
// of the copy inside it.
func (f *File) expandInlines(phys []Frame) []Frame {
	if len(f.inlines) == 0 && !f.libs.debug.Load() {
		return phys
	}
	var out []Frame
	for _, fr := range phys {
		chain := f.InlinesAt(fr.LookupPC())
		if fr.Func == nil || len(chain) == 0 || fr.TailCall {
			out = append(out, fr)
			continue
		}
		loc := fr.Loc
		for k := len(chain) - 1; k >= 0; k-- {
			v := fr
			v.inline = chain[k]
			v.Loc = loc
			v.Loc.Function = chain[k].Name
			out = append(out, v)
			loc.File, loc.Line, loc.Column = chain[k].CallFile, chain[k].CallLine, 0
			loc.Function = fr.Func.Name
		}
		fr.Loc = loc
		out = append(out, fr)
	}
	for i := range out {
		out[i].Index = i
	}
	return out
}

// inlineBreakpoint is where a breakpoint on an inlined copy goes: the lowest address of
// the copy that starts a statement, else the start of its first range. (gdb picks a later
// address in some optimised copies: docs/protocols/gdbremote.md.)
func (f *File) inlineBreakpoint(in *Inline) uint64 {
	best, found := uint64(0), false
	for _, rg := range in.Ranges {
		if rg[1] <= rg[0] {
			continue
		}
		if !found || rg[0] < best {
			best, found = rg[0], true
		}
		i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr >= rg[0] })
		for ; i < len(f.rows) && f.rows[i].Addr < rg[1]; i++ {
			if r := f.rows[i]; r.IsStmt && !r.End {
				if r.Addr < best || best == rg[0] {
					best = r.Addr
				}
				break
			}
		}
	}
	if !found {
		return in.Entry
	}
	return best
}

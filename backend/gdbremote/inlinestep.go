package gdbremote

// Target: inlined calls as gdb steps them. A stop at the first instruction of an inlined
// copy (where the call "happens") shows the caller at the line of the call, the copy's
// frame hidden; `step` there enters the copy without running (its frame appears), `next`
// runs over the whole copy. A step that leaves a copy, and `finish` in one, stop at the
// next statement of the code around it. gdb does the same (infrun's skip_inline_frames and
// step_into_inline_frame); breakpoints set on the copy's function show its frame at once.

import (
	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// inlineView is what of the inlined copies at the current stop a backtrace shows.
type inlineView struct {
	set    bool // computed for the current stop (newStop clears it)
	hidden int  // innermost inlined frames not shown (their calls are about to happen)
	reveal int  // of those, how many the step that made the stop has entered
}

// revealOnStop shows n more of the hidden frames at the coming stop.
func (t *Target) revealOnStop(n int) {
	t.mu.Lock()
	t.inl.reveal = n
	t.mu.Unlock()
}

// hiddenFrames is the number of innermost inlined frames the current stop hides.
func (t *Target) hiddenFrames() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.inl.set {
		return 0
	}
	return t.inl.hidden
}

// visible drops the hidden inlined frames of a backtrace.
func (t *Target) visible(fs []elfsym.Frame) []elfsym.Frame {
	h := t.hiddenFrames()
	if h == 0 || h >= len(fs) {
		return fs
	}
	out := append([]elfsym.Frame(nil), fs[h:]...)
	for i := range out {
		out[i].Index = i
	}
	return out
}

// entryInlines counts the innermost inlined copies of chain (outermost first) that start
// at pc: the calls that have not happened yet at pc. A copy starts at its entry pc, and at
// the start of each of its address ranges that is not reached from inside it (gdb's
// block_starting_point_at).
func (t *Target) entryInlines(chain []*elfsym.Inline, pc uint64) int {
	a := t.sym.LinkAddr(pc)
	n := 0
	for k := len(chain) - 1; k >= 0 && startsAt(chain[k], a); k-- {
		n++
	}
	return n
}

// startsAt reports whether the inlined copy starts at the link-time address a.
func startsAt(in *elfsym.Inline, a uint64) bool {
	if in.Entry == a {
		return true
	}
	for _, r := range in.Ranges {
		if r[0] == a {
			for _, q := range in.Ranges {
				if a-1 >= q[0] && a-1 < q[1] {
					return false
				}
			}
			return true
		}
	}
	return false
}

// settleInlines decides, once per reported stop, which inlined frames it hides: those
// whose copy starts at the pc, unless a breakpoint set on that copy's function stopped
// there (then that frame shows, as gdb does). It fixes the stop's location to the frame
// shown innermost.
func (t *Target) settleInlines(st *engine.Stop) {
	pc, err := t.pc()
	if err != nil {
		return
	}
	t.mu.Lock()
	done := t.inl.set
	t.mu.Unlock()
	if done { // a step that entered a hidden call without running
		t.showLocation(st, pc)
		return
	}
	chain := t.sym.InlinesAt(pc)
	n := t.entryInlines(chain, pc)
	if n > 0 && st.Reason == engine.ReasonBreakpoint {
		fns := map[string]bool{}
		t.mu.Lock()
		if tr := t.traps[pc]; tr != nil {
			for _, k := range tr.keys {
				fns[t.keyFn[k]] = true
			}
		}
		t.mu.Unlock()
		for k := len(chain) - n; k < len(chain); k++ {
			if fns[chain[k].Name] {
				n = len(chain) - 1 - k // show fn's copy and the ones around it
				break
			}
		}
	}
	t.mu.Lock()
	t.inl = inlineView{set: true, hidden: max(n-t.inl.reveal, 0)}
	t.mu.Unlock()
	t.showLocation(st, pc)
}

// showLocation makes the stop's location the innermost shown frame's when frames are
// hidden: the caller's function at the line of the call.
func (t *Target) showLocation(st *engine.Stop, pc uint64) {
	if t.hiddenFrames() == 0 {
		return
	}
	if fs, err := t.frames(); err == nil && len(fs) > 0 {
		f := fs[0]
		st.Location = engine.Location{File: f.Loc.File, Line: f.Loc.Line, Col: f.Loc.Column, Func: f.Name(), PC: pc, HasPC: true}
	}
}

// revealInline enters the outermost hidden inlined call without running (gdb's step at
// the start of an inlined call). It reports whether there was one.
func (t *Target) revealInline() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.inl.set || t.inl.hidden == 0 {
		return false
	}
	t.inl.hidden--
	return true
}

// shownInlines is the chain of inlined copies the innermost shown frame is in.
func (t *Target) shownInlines(pc uint64) []*elfsym.Inline {
	chain := t.sym.InlinesAt(pc)
	return chain[:len(chain)-min(t.hiddenFrames(), len(chain))]
}

// stepInlines decides what a statement step does at npc, in the function it started in,
// about inlined copies; shown is the chain of copies the step is in and line the line it
// steps. It returns (stop, true) to stop, (nil, false) to step on, and (non-nil, false)
// to apply the usual rules of a line step. As gdb's infrun: back in the code around a copy
// the step ends at a statement, else it goes on stepping that line (the frame the step is
// in changes, so inlined calls that start right there are not calls from it); arriving at the start
// of an inlined call stops there (the call's frame hidden) when the call is on another
// line, else step enters it and next runs through it; elsewhere inside a deeper copy, next
// runs on and step stops.
func (t *Target) stepInlines(npc uint64, over bool, shown *[]*elfsym.Inline, line *elfsym.Location) (*engine.Stop, bool) {
	stop := &engine.Stop{Reason: engine.ReasonStep}
	chain := t.sym.InlinesAt(npc)
	if c := commonInlines(chain, *shown); c < len(*shown) {
		*shown = chain[:c]
		if t.sym.IsStmt(npc) {
			return stop, true
		}
		// mid-line in another frame: step on in it (calls starting here do not count yet)
		*line, _ = t.sym.PCToLine(npc)
		return nil, false
	}
	if len(chain) <= len(*shown) {
		return stop, false
	}
	atCall := t.entryInlines(chain, npc) >= len(chain)-len(*shown)
	sameLine := chain[len(*shown)].CallLine == line.Line
	switch {
	case atCall && !sameLine:
		return stop, true
	case atCall && !over:
		t.revealOnStop(1) // a call on the line being stepped: into it
		return stop, true
	case atCall || over:
		return nil, false
	}
	return stop, true
}

// commonInlines is the length of the common outer part of two chains of copies.
func commonInlines(a, b []*elfsym.Inline) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// stepOutOfInline runs until the pc leaves the innermost shown inlined copy, then to the
// next statement (gdb's finish in an inlined frame). Calls made meanwhile are run over.
func (t *Target) stepOutOfInline(chain []*elfsym.Inline) (*engine.Stop, error) {
	pc, err := t.pc()
	if err != nil {
		return nil, err
	}
	fn := t.sym.FuncAt(pc)
	left := false
	for range 100000 {
		if st := t.pauseStop(); st != nil {
			return st, nil
		}
		npc, st, err := t.stepInLine(pc)
		if st != nil || err != nil {
			return st, err
		}
		pc = npc
		nf := t.sym.FuncAt(npc)
		if nf != fn {
			if nf != nil && npc == nf.Start() {
				// a call: run over it
				if err := t.finishCall(); err != nil {
					return nil, err
				}
				if pc, err = t.pc(); err != nil {
					return nil, err
				}
				continue
			}
			return &engine.Stop{Reason: engine.ReasonStep, ReturnValue: t.returnValue(fn)}, nil // returned from the function, with its value
		}
		if !left && commonInlines(t.sym.InlinesAt(npc), chain) < len(chain) {
			left = true
		}
		if left && t.sym.IsStmt(npc) {
			return &engine.Stop{Reason: engine.ReasonStep}, nil
		}
	}
	return &engine.Stop{Reason: engine.ReasonStep}, nil
}

package elfsym

// Tail calls: optimised code ends a function with a jump to another (a tail call), so
// that function's frame is gone from the stack while the one it jumped to runs. gdb shows
// it all the same, as a frame of its own between the callee and the caller, where the
// call sites say how the caller got there (dwarf2/frame-tailcall.c): the caller's call
// site at its return address calls T, the frame below runs F, and T reaches F through
// tail calls (DW_AT_call_tail_call) by one path only. Each function on the path before F
// is a tail call frame, at its tail call's return address (an address of its own code,
// shown as a caller's is).

import "debug/dwarf"

// tailCall is one tail call a function makes: its link-time return address and the
// function it jumps to.
type tailCall struct {
	ret    uint64
	callee string
}

// maxTailChain bounds the tail calls searched between a caller and its callee.
const maxTailChain = 5

// tailCallsIn are the tail calls function name makes.
func (f *File) tailCallsIn(name string) []tailCall {
	f.calls.once.Do(f.readCallSites)
	f.calls.tailOnce.Do(func() {
		f.calls.byFunc = map[string][]tailCall{}
		for _, ret := range f.calls.tails {
			fn := f.FuncAt(ret - 1 + f.Bias) // (the jump, before the return address)
			if fn == nil || fn.owner != f && fn.owner != nil {
				continue
			}
			cs := f.calls.sites[ret]
			f.calls.byFunc[fn.Name] = append(f.calls.byFunc[fn.Name], tailCall{ret: ret, callee: f.calleeName(cs.origin)})
		}
	})
	return f.calls.byFunc[name]
}

// calleeName is the name of the function a call site's DW_AT_call_origin names, as the
// function's own entry names it: a declaration's name may be another symbol of it (glibc's
// __pthread_kill, a name of __pthread_kill_internal), found by its address, as gdb finds it.
func (f *File) calleeName(origin dwarf.Offset) string {
	name := f.dieName(origin)
	if name == "" || len(f.ownFuncsNamed(name)) > 0 {
		return name
	}
	if addr, _, ok := f.Symbol(name); ok {
		if fn := f.FuncAt(addr); fn != nil && fn.Start() == addr {
			return fn.Name
		}
	}
	return name
}

// tailChain is the path of tail calls from function from to function to: the calls made,
// from's first, when exactly one path of at most maxTailChain calls leads there; nil
// otherwise (none, or several: gdb then shows no frames for them either).
func (f *File) tailChain(from, to string) []tailCall {
	var found [][]tailCall
	var walk func(at string, path []tailCall)
	walk = func(at string, path []tailCall) {
		if len(found) > 1 || len(path) >= maxTailChain {
			return
		}
		for _, tc := range f.tailCallsIn(at) {
			next := append(path[:len(path):len(path)], tc)
			if tc.callee == to {
				found = append(found, next)
				continue
			}
			walk(tc.callee, next)
		}
	}
	walk(from, nil)
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// insertTailCalls puts the tail call frames between each frame and its caller (physical
// frames, innermost first), where the call sites say which functions the caller's call
// went through.
func (f *File) insertTailCalls(frames []Frame) []Frame {
	if len(frames) < 2 || f.DWARF == nil && !f.libs.debug.Load() {
		return frames
	}
	var out []Frame
	for i, fr := range frames {
		out = append(out, fr)
		if i+1 >= len(frames) || fr.Func == nil || fr.Dummy || frames[i+1].Interrupted || frames[i+1].Dummy {
			continue
		}
		caller := frames[i+1]
		code := f.fileOf(fr.Func)
		if caller.Func == nil || f.fileOf(caller.Func) != code || code.DWARF == nil {
			continue
		}
		cs := code.callSiteAt(code.clearThumb(caller.PC - code.Bias))
		if cs == nil || cs.origin == 0 {
			continue
		}
		called := code.calleeName(cs.origin)
		if called == "" || called == fr.Func.Name {
			continue
		}
		chain := code.tailChain(called, fr.Func.Name)
		for k := len(chain) - 1; k >= 0; k-- { // the innermost (the last jump) first
			pc := chain[k].ret + code.Bias
			fn := code.FuncAt(pc - 1)
			if fn == nil {
				break
			}
			tf := Frame{PC: pc, lookup: pc - 1, CFA: fr.CFA, Func: fn, regs: caller.regs, TailCall: true,
				Library: fr.Library, LibraryPath: fr.LibraryPath, Symbol: fn.Name, SymbolAddr: fn.Start()}
			tf.Loc, _ = code.PCToLine(pc - 1)
			tf.Loc.PC = pc
			if in := code.InlinesAt(pc - 1); len(in) > 0 {
				tf.inline = in[len(in)-1] // named by the innermost copy there, as gdb (no frames for the others)
				tf.Loc.Function = tf.inline.Name
			}
			out = append(out, tf)
		}
	}
	return out
}

// PhysicalCaller is the index of the frame that called physical frame i's function:
// the next frame that is not a tail call frame (whose function's frame is gone).
func PhysicalCaller(fs []Frame, i int) int {
	j := i + 1
	for j < len(fs) && fs[j].TailCall {
		j++
	}
	if j >= len(fs) {
		return i + 1
	}
	return j
}

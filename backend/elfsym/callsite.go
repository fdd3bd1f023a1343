package elfsym

// Entry values (DW_OP_entry_value, DW_OP_GNU_entry_value): optimised code describes a
// parameter whose register has been reused as "the value register R had on entry". That
// value is recovered, as gdb does, from the caller: the call site (DW_TAG_call_site, or
// DW_TAG_GNU_call_site in DWARF 4) whose return address is the caller frame's pc, if it
// calls this frame's function, describes the parameter passed in R with an expression
// evaluated in the caller's frame (DW_AT_call_value). When any of that is missing the value
// is <optimized out>, where gdb says so too.

import (
	"debug/dwarf"
	"encoding/binary"
	"fmt"
	"sync"
)

// DWARF 5 and GNU tags and attributes of call sites (debug/dwarf has no names for them).
const (
	tagCallSite         dwarf.Tag  = 0x48
	tagCallSiteParam    dwarf.Tag  = 0x49
	tagGNUCallSite      dwarf.Tag  = 0x4109
	tagGNUCallSiteParam dwarf.Tag  = 0x410a
	attrCallReturnPC    dwarf.Attr = 0x7d
	attrCallValue       dwarf.Attr = 0x7e
	attrCallOrigin      dwarf.Attr = 0x7f
	attrCallTarget      dwarf.Attr = 0x83
	attrGNUCallValue    dwarf.Attr = 0x2111
	attrGNUCallTarget   dwarf.Attr = 0x2113
	attrCallTailCall    dwarf.Attr = 0x82
	attrGNUTailCall     dwarf.Attr = 0x2115
)

// maxEntryDepth bounds the callers asked for one value (a call value may itself be an
// entry value of the caller).
const maxEntryDepth = 8

// callSite is one call in a function, by its return address.
type callSite struct {
	origin dwarf.Offset // the DIE of the function called (0 when unknown)
	tail   bool         // a tail call (a jump): its function's frame is gone when the callee runs
	target []byte       // an expression for the address called (indirect calls)
	params []callParam
	cu     *cuInfo
}

type callParam struct {
	loc, value []byte // where the callee finds it (a register), its value in the caller
}

type callSiteIndex struct {
	once  sync.Once
	sites map[uint64]*callSite // link-time return address -> call
	tails []uint64             // the return addresses of the tail calls
	// byFunc are the tail calls by the function that makes them (tailCallsIn), made once.
	tailOnce sync.Once
	byFunc   map[string][]tailCall
}

// callSiteAt is the call whose link-time return address is ret, or nil.
func (f *File) callSiteAt(ret uint64) *callSite {
	f.calls.once.Do(f.readCallSites)
	return f.calls.sites[ret]
}

// readCallSites indexes the call sites of every unit.
func (f *File) readCallSites() {
	f.calls.sites = map[uint64]*callSite{}
	if f.DWARF == nil {
		return
	}
	r := f.DWARF.Reader()
	var cu *cuInfo
	var cur *callSite
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			return
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			cu, cur = f.cus[e.Offset], nil
		case tagCallSite, tagGNUCallSite:
			cur = nil
			ret, ok := e.Val(attrCallReturnPC).(uint64)
			if !ok && e.Tag == tagGNUCallSite {
				ret, ok = e.Val(dwarf.AttrLowpc).(uint64) // GNU: low_pc is the return address
			}
			if !ok {
				continue
			}
			cs := &callSite{cu: cu}
			if o, ok := e.Val(attrCallOrigin).(dwarf.Offset); ok {
				cs.origin = o
			} else if o, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset); ok {
				cs.origin = o
			}
			if t, ok := e.Val(attrCallTarget).([]byte); ok {
				cs.target = t
			} else if t, ok := e.Val(attrGNUCallTarget).([]byte); ok {
				cs.target = t
			}
			if t, _ := e.Val(attrCallTailCall).(bool); t {
				cs.tail = true
			} else if t, _ := e.Val(attrGNUTailCall).(bool); t {
				cs.tail = true
			}
			f.calls.sites[f.clearThumb(ret)] = cs
			if cs.tail && cs.origin != 0 {
				f.calls.tails = append(f.calls.tails, f.clearThumb(ret))
			}
			if e.Children {
				cur = cs
			}
		case tagCallSiteParam, tagGNUCallSiteParam:
			if cur == nil {
				continue
			}
			loc, _ := e.Val(dwarf.AttrLocation).([]byte)
			val, ok := e.Val(attrCallValue).([]byte)
			if !ok {
				val, _ = e.Val(attrGNUCallValue).([]byte)
			}
			if loc != nil && val != nil {
				cur.params = append(cur.params, callParam{loc: loc, value: val})
			}
		case 0:
		default:
			cur = nil
		}
	}
}

// entryValue is the value the register named by sub (DW_OP_regN or DW_OP_regx) had when
// fr's function was entered.
func (f *File) entryValue(fr *Frame, mem Memory, sub []byte, depth int) (uint64, error) {
	optimized := func(why string, args ...any) (uint64, error) {
		return 0, fmt.Errorf("%w: entry value: %s", ErrOptimizedOut, fmt.Sprintf(why, args...))
	}
	reg, ok := regOf(sub)
	if !ok {
		return optimized("not a register")
	}
	if depth >= maxEntryDepth {
		return optimized("too many callers")
	}
	caller := fr.caller
	if caller == nil && fr.more != nil {
		caller = fr.more()
	}
	if caller == nil || fr.Func == nil || caller.Func == nil {
		return optimized("no caller")
	}
	if caller.Func.owner != fr.Func.owner { // (a call into a library: its call sites are not f's, and
		return optimized("the caller is in another file") // reading all of libc's cost 0.15 s)
	}
	cs := f.callSiteAt(f.clearThumb(caller.PC - f.Bias))
	if cs == nil {
		return optimized("no call site at %#x", caller.PC)
	}
	env := f.frameEnv(caller, mem, f.cus[caller.Func.cu], caller.Func, depth+1)
	switch {
	case cs.origin != 0:
		if f.calleeName(cs.origin) != fr.Func.Name {
			return optimized("the call at %#x is not to %s", caller.PC, fr.Func.Name)
		}
	case cs.target != nil:
		l, err := f.evalExpr(cs.target, env, nil)
		if err != nil || l.Kind != LocMemory || f.clearThumb(l.Addr) != fr.Func.Low+f.Bias {
			return optimized("the call at %#x is not to %s", caller.PC, fr.Func.Name)
		}
	default:
		return optimized("the call at %#x has no known callee", caller.PC)
	}
	for _, p := range cs.params {
		if r, ok := regOf(p.loc); !ok || r != reg {
			continue
		}
		env.cu = cs.cu
		l, err := f.evalExpr(p.value, env, nil)
		if err != nil {
			return 0, err
		}
		switch l.Kind {
		case LocMemory, LocValue: // the expression's result is the value
			if l.Bytes == nil {
				return l.Addr, nil
			}
			return uintFrom(l.Bytes, f.Arch), nil
		case LocRegister:
			if v, ok := caller.Register(l.Reg); ok {
				return v, nil
			}
		}
		return optimized("the call's value is not available")
	}
	return optimized("the call at %#x does not say what %s got in register %d", caller.PC, fr.Func.Name, reg)
}

// regOf decodes an expression that is just a register (DW_OP_regN, DW_OP_regx).
func regOf(expr []byte) (int, bool) {
	if len(expr) == 1 && expr[0] >= 0x50 && expr[0] <= 0x6f {
		return int(expr[0] - 0x50), true
	}
	if len(expr) > 1 && expr[0] == 0x90 {
		r := &cfiReader{b: expr[1:]}
		n := r.uleb()
		if r.err == nil && r.pos == len(expr)-1 {
			return int(n), true
		}
	}
	return 0, false
}

// dieName is the name of the entry at off (through its abstract origin or specification).
func (f *File) dieName(off dwarf.Offset) string {
	r := f.DWARF.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil || e == nil {
		return ""
	}
	name, _ := f.originVal(e, dwarf.AttrName).(string)
	return name
}

// linkCallers gives each frame of a backtrace the frame of its function's caller: the
// next frame below its function's own frame (inlined copies share their function's).
func linkCallers(fs []Frame) {
	for i := range fs {
		p := i
		for p < len(fs) && fs[p].inline != nil && !fs[p].TailCall { // (a tail call frame is its function's own)
			p++
		}
		if p+1 < len(fs) {
			fs[i].caller = &fs[p+1]
		}
	}
}

// ParamEntryValue is the value parameter v of fr's function had when the function was
// entered (gdb's v@entry), when its location at the entry is a register and the caller's
// call site says what was passed in it; false otherwise (-O0 code keeps parameters in
// memory: gdb shows no entry value there either).
func (f *File) ParamEntryValue(fr *Frame, v *Var, mem Memory) (Value, bool) {
	if o := f.fileOfVar(v); o != f {
		return o.ParamEntryValue(fr, v, mem)
	}
	if fr == nil || fr.Func == nil || !v.IsParam || v.Type == nil {
		return Value{}, false
	}
	at := fr.Func.Low
	if fr.Func.entryPC != 0 {
		at = fr.Func.entryPC // (a cold part's frame: the function's entry is in its hot part)
	}
	expr, err := f.locExpr(v, at)
	if _, isReg := regOf(expr); err != nil || !isReg {
		return Value{}, false
	}
	u, err := f.entryValue(fr, mem, expr, 0)
	size := int(v.Type.Size())
	if err != nil || size <= 0 || size > 8 {
		return Value{}, false
	}
	b := make([]byte, 8)
	f.Arch.ByteOrder.PutUint64(b, u)
	if f.Arch.ByteOrder == binary.BigEndian {
		b = b[8-size:]
	} else {
		b = b[:size]
	}
	val := f.FormatValue(v.Type, b, 0, false, mem, 0)
	val.Name = v.Name
	return val, true
}

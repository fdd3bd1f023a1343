package gdbremote

// Target: what is read during one stop (registers, memory, frames), cached until the next resume.

import (
	"fmt"
	"sync"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// stopCache holds what was read from the target during one stop.
type stopCache struct {
	// mu guards the fields; reg and readCached hold it across their reads from the stub,
	// so that concurrent callers (several front-end requests) fill the cache once.
	mu     sync.Mutex
	regs   map[int][]byte // by stub register number
	full   bool           // all of 'g' read
	mem    map[uint64][]byte
	frames []elfsym.Frame
	frame0 *elfsym.Frame // the innermost frame alone (Unwind with max 1)
}

const cacheLine = 64

func (t *Target) newStop(sr StopReply) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastStop = sr
	if sr.Thread != "" {
		t.threadID = sr.Thread
	}
	regs := map[int][]byte{}
	for k, v := range sr.Regs {
		regs[k] = v
	}
	t.stopCache = &stopCache{regs: regs, mem: map[uint64][]byte{}}
	t.inl = inlineView{}
	t.refs = map[int]refEntry{}
	t.nextRef = 0
}

func (t *Target) cache() *stopCache {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopCache == nil {
		t.stopCache = &stopCache{regs: map[int][]byte{}, mem: map[uint64][]byte{}}
	}
	return t.stopCache
}

// reg reads a register by stub number, from the stop's cache, expedited registers first.
func (t *Target) reg(n int) ([]byte, error) {
	sc := t.cache()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if b, ok := sc.regs[n]; ok {
		return b, nil
	}
	if !sc.full {
		if g, err := t.c.ReadRegisters(t.ctx); err == nil {
			for k, v := range t.desc.SplitG(g) {
				if _, ok := sc.regs[k]; !ok {
					sc.regs[k] = v
				}
			}
			sc.full = true
			if b, ok := sc.regs[n]; ok {
				return b, nil
			}
		}
	}
	b, err := t.c.ReadRegister(t.ctx, n)
	if err != nil {
		return nil, err
	}
	sc.regs[n] = b
	return b, nil
}

func (t *Target) pc() (uint64, error) {
	r, ok := t.desc.PCReg()
	if !ok {
		return 0, fmt.Errorf("gdbremote: no pc register")
	}
	b, err := t.reg(r.Num)
	if err != nil {
		return 0, err
	}
	return t.clearThumb(Uint(b, t.order)), nil
}

func (t *Target) clearThumb(a uint64) uint64 { return t.sym.ClearThumb(a) }

// dwarfRegs adapts the stop cache to elfsym.Registers.
type dwarfRegs struct{ t *Target }

func (d dwarfRegs) Register(n int) (uint64, bool) {
	name := d.t.sym.Arch.RegName(n)
	switch n {
	case elfsym.RegARMPSP:
		name = "psp"
	case elfsym.RegARMMSP:
		name = "msp"
	}
	r, ok := d.t.desc.Reg(name)
	if !ok {
		return 0, false
	}
	b, err := d.t.reg(r.Num)
	if err != nil {
		return 0, false
	}
	return Uint(b, d.t.order), true
}

// cachedMem reads memory through the stop's cache, in aligned lines.
type cachedMem struct{ t *Target }

func (m cachedMem) ReadMemory(addr uint64, n int) ([]byte, error) {
	return m.t.readCached(addr, n)
}

func (t *Target) readCached(addr uint64, n int) ([]byte, error) {
	if !t.started() { // before run, as gdb: what the program's file says
		if b, ok := t.sym.ReadFileMemory(addr, n); ok {
			return b, nil
		}
	}
	if n > 4*cacheLine {
		return t.c.ReadMemory(t.ctx, addr, n)
	}
	sc := t.cache()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	out := make([]byte, 0, n)
	for a := addr &^ (cacheLine - 1); a < addr+uint64(n); a += cacheLine {
		line, ok := sc.mem[a]
		if !ok {
			var err error
			line, err = t.c.ReadMemory(t.ctx, a, cacheLine)
			if err != nil || len(line) < cacheLine {
				// a line at the edge of readable memory: read just what was asked
				return t.c.ReadMemory(t.ctx, addr, n)
			}
			sc.mem[a] = line
		}
		lo := max(addr, a) - a
		hi := min(addr+uint64(n), a+cacheLine) - a
		out = append(out, line[lo:hi]...)
	}
	return out, nil
}

func (t *Target) needStopped() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return engine.ErrEnded
	}
	if t.running {
		return engine.ErrRunning
	}
	return nil
}

// frames unwinds the current stop (cached).
func (t *Target) frames() ([]elfsym.Frame, error) {
	sc := t.cache()
	sc.mu.Lock()
	fs := sc.frames
	sc.mu.Unlock()
	if fs != nil {
		return t.visible(fs), nil
	}
	fs, err := t.sym.Unwind(dwarfRegs{t}, cachedMem{t}, 256)
	if err != nil {
		return nil, err
	}
	fs = t.throughDummies(t.unwindThroughLibraries(fs))
	sc.mu.Lock()
	sc.frames = fs
	sc.mu.Unlock()
	return t.visible(fs), nil
}

// forget drops what the cache holds of memory and frames (after a write), and sets
// register n when n >= 0.
func (sc *stopCache) forget(n int, val []byte) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.mem = map[uint64][]byte{}
	sc.frames, sc.frame0 = nil, nil
	if n >= 0 {
		sc.regs[n] = val
	}
}

// hasAllRegs reports whether the whole 'g' packet was read.
func (sc *stopCache) hasAllRegs() bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	return sc.full
}

// sp reads the stack pointer.
func (t *Target) sp() uint64 {
	v, _ := dwarfRegs{t}.Register(t.sym.Arch.SP)
	return v
}

func (t *Target) frame(i int) (*elfsym.Frame, error) {
	if i == 0 && t.hiddenFrames() == 0 {
		// Conditions and logpoints need only the innermost frame: do not walk the stack.
		sc := t.cache()
		sc.mu.Lock()
		fs, f0 := sc.frames, sc.frame0
		sc.mu.Unlock()
		if fs != nil {
			return &fs[0], nil
		}
		if f0 == nil {
			fs, err := t.sym.Unwind(dwarfRegs{t}, cachedMem{t}, 1)
			if err != nil || len(fs) == 0 {
				return nil, fmt.Errorf("gdbremote: no frame: %v", err)
			}
			f0 = &fs[0]
			sc.mu.Lock()
			sc.frame0 = f0
			sc.mu.Unlock()
		}
		return f0, nil
	}
	fs, err := t.frames()
	if err != nil {
		return nil, err
	}
	if i < 0 || i >= len(fs) {
		return nil, engine.ErrNoFrame
	}
	return &fs[i], nil
}

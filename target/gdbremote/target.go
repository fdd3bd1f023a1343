package gdbremote

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/target/elfsym"
)

// Config configures a Target.
type Config struct {
	// Timeout bounds each exchange with the stub (default 10s).
	Timeout time.Duration
	// Logger for debug traces (nil: slog.Default()).
	Logger *slog.Logger
}

// Target is an engine.Target for a program behind a GDB stub. Besides the engine's
// interfaces it offers memory and register access (ReadMemory, WriteMemory, Registers,
// WriteRegister), instruction breakpoints (engine.InstructionResolver), Restart, and
// SetTrapConditions for conditions the stub evaluates itself.
type Target struct {
	c     *Client
	sym   *elfsym.File
	desc  *TargetDesc
	stub  *Stub     // started by us, or nil
	sink  *lineSink // the stub's output as lines (with stub)
	log   *slog.Logger
	order binary.ByteOrder
	bpLen int // Z0 kind: 1 on x86, 2 for Thumb

	h    engine.Handler
	ctx  context.Context
	stop context.CancelFunc

	mu        sync.Mutex // guards the fields below
	traps     map[uint64]*trap
	running   bool
	pausing   bool
	ended     bool
	killing   bool
	pending   []func() error // trap changes requested while running
	runDone   chan struct{}
	threadID  string
	lastStop  StopReply
	stopCache *stopCache
	refs      map[int]refEntry
	nextRef   int
}

type trap struct {
	kind  BreakKind
	conds [][]byte // agent expressions, when the stub evaluates them
}

// stopCache holds what was read from the target during one stop.
type stopCache struct {
	regs   map[int][]byte // by stub register number
	full   bool           // all of 'g' read
	mem    map[uint64][]byte
	frames []elfsym.Frame
	frame0 *elfsym.Frame // the innermost frame alone (Unwind with max 1)
}

const cacheLine = 64

type refEntry struct {
	frame int
	kind  string // "locals", "globals", "registers", "value"
	val   elfsym.Value
}

// Connect attaches to a stub at addr (HOST:PORT) debugging the ELF file elfPath.
func Connect(ctx context.Context, addr, elfPath string, cfg Config) (*Target, error) {
	return connect(ctx, addr, elfPath, cfg, nil, false)
}

// LaunchNative starts prog under gdbserver on a free loopback port and connects to it.
// Program output reaches the handler as "stdout" output events.
func LaunchNative(ctx context.Context, prog string, args []string, cfg Config) (*Target, error) {
	return launch(ctx, prog, cfg, true, func(opts StubOptions) (*Stub, error) {
		return StartGdbserver(ctx, prog, args, opts)
	})
}

// StartQEMUTarget starts qemu-system-arm for machine with the ELF file, halted at reset,
// and connects to its stub. Semihosting output reaches the handler as "stdout".
func StartQEMUTarget(ctx context.Context, machine, elfPath string, cfg Config) (*Target, error) {
	return launch(ctx, elfPath, cfg, false, func(opts StubOptions) (*Stub, error) {
		return StartQEMU(ctx, machine, elfPath, opts)
	})
}

// launch starts a stub whose output becomes "stdout" events of the target, and connects.
func launch(ctx context.Context, elfPath string, cfg Config, extended bool, start func(StubOptions) (*Stub, error)) (*Target, error) {
	var t *Target
	var mu sync.Mutex
	sink := &lineSink{fn: func(s string) {
		mu.Lock()
		tt := t
		mu.Unlock()
		if tt != nil {
			tt.output("stdout", s)
		}
	}}
	stub, err := start(StubOptions{Output: sink})
	if err != nil {
		return nil, err
	}
	tt, err := connect(ctx, stub.Addr, elfPath, cfg, stub, extended)
	if err != nil {
		stub.Stop()
		return nil, err
	}
	mu.Lock()
	t = tt
	mu.Unlock()
	return tt, nil
}

// lineSink forwards complete lines, without gdbserver's own messages.
type lineSink struct {
	mu  sync.Mutex
	buf []byte
	fn  func(string)
}

func (w *lineSink) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := string(w.buf[:i+1])
		w.buf = w.buf[i+1:]
		if line == "\n" && isStubMessage(string(w.buf)) {
			continue // gdbserver starts its messages on a fresh line: not the program's
		}
		if !isStubMessage(line) {
			w.fn(line)
		}
	}
	return len(p), nil
}

// flush forwards a last line without a newline.
func (w *lineSink) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		line := string(w.buf)
		w.buf = nil
		if !isStubMessage(line) {
			w.fn(line)
		}
	}
}

func isStubMessage(line string) bool {
	return strings.HasPrefix(line, "Process ") && strings.Contains(line, "created; pid") ||
		strings.HasPrefix(line, "Listening on port") || strings.HasSuffix(line, "QEMU: Terminated via GDBstub\n") || strings.HasPrefix(line, "Remote debugging from host") ||
		strings.HasPrefix(line, "Child exited with status") || strings.HasPrefix(line, "Child terminated with signal") || strings.HasPrefix(line, "Detaching from process")
}

// flushOutput delivers all the program has printed so far (called before reporting its
// end, so the last lines come before the exited event).
func (t *Target) flushOutput() {
	if t.stub == nil || t.sink == nil {
		return
	}
	t.stub.DrainOutput()
	t.sink.flush()
}

func connect(ctx context.Context, addr, elfPath string, cfg Config, stub *Stub, extended bool) (*Target, error) {
	sym, err := elfsym.Open(elfPath)
	if err != nil {
		return nil, err
	}
	t := &Target{sym: sym, stub: stub, log: cfg.Logger, traps: map[uint64]*trap{}, refs: map[int]refEntry{}}
	if stub != nil {
		t.sink, _ = stub.outW.(*lineSink) // drained before the exit is reported
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	t.ctx, t.stop = context.WithCancel(context.Background())
	c, err := Dial(ctx, addr, Options{Timeout: cfg.Timeout, Extended: extended, Logger: cfg.Logger,
		Output: func(s string) { t.output("console", s) }})
	if err != nil {
		sym.Close()
		return nil, err
	}
	t.c = c
	fail := func(err error) (*Target, error) {
		c.Close()
		sym.Close()
		return nil, err
	}
	sr, err := c.HaltReason(ctx)
	if err != nil {
		return fail(err)
	}
	t.lastStop = sr
	t.threadID = sr.Thread
	if t.desc, err = c.ReadTargetDesc(ctx); err != nil {
		return fail(err)
	}
	t.order = t.desc.Order()
	switch sym.Arch.Machine {
	case elf.EM_X86_64, elf.EM_386:
		t.bpLen = 1
	case elf.EM_ARM:
		t.bpLen = 2 // Thumb (Cortex-M); ARM state code would need 4
	default:
		t.bpLen = 4
	}
	if sym.IsPIE() {
		aux, err := c.Auxv(ctx, sym.Arch.PtrSize, sym.Arch.ByteOrder)
		if err != nil {
			return fail(fmt.Errorf("gdbremote: load bias of a PIE: %w", err))
		}
		if entry, ok := aux[9]; ok { // AT_ENTRY
			sym.Bias = entry - sym.ELF.Entry
		}
	}
	return t, nil
}

// Client returns the RSP client (for monitor commands and raw packets).
func (t *Target) Client() *Client { return t.c }

// Symbols returns the ELF/DWARF symbols.
func (t *Target) Symbols() *elfsym.File { return t.sym }

func (t *Target) output(cat, s string) {
	t.mu.Lock()
	h := t.h
	t.mu.Unlock()
	if h != nil {
		h.Output(cat, s)
	}
}

// Start implements engine.Target. The stub already holds the program stopped (gdbserver:
// before the dynamic loader; QEMU: at reset): the target first runs to the ELF entry point.
func (t *Target) Start(h engine.Handler, stopOnEntry bool) error {
	t.mu.Lock()
	t.h = h
	t.mu.Unlock()
	entry := t.sym.Entry()
	pc, err := t.pc()
	if err != nil {
		return err
	}
	if pc != entry {
		if err := t.runTo(entry); err != nil {
			return err
		}
	}
	if stopOnEntry {
		t.reportStop(engine.Stop{Reason: engine.ReasonEntry})
		return nil
	}
	return t.Resume(engine.Continue)
}

// runTo runs synchronously to addr with a temporary breakpoint (before Start reports).
func (t *Target) runTo(addr uint64) error {
	ctx := t.ctx
	had := t.traps[addr] != nil
	if !had {
		if _, err := t.c.SetBreakpoint(ctx, addr, t.bpLen); err != nil {
			return err
		}
	}
	if err := t.c.Continue(ctx); err != nil {
		return err
	}
	sr, err := t.c.Wait(ctx)
	t.newStop(sr)
	if !had {
		t.c.ClearBreakpoint(ctx, SoftwareBreak, addr, t.bpLen)
	}
	if err != nil {
		return err
	}
	if sr.Exited() {
		return fmt.Errorf("gdbremote: the program ended before its entry point")
	}
	return nil
}

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
	return t.sym.Entry()*0 + t.clearThumb(Uint(b, t.order)), nil
}

func (t *Target) clearThumb(a uint64) uint64 {
	if t.sym.Arch.Machine == elf.EM_ARM {
		return a &^ 1
	}
	return a
}

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
	if n > 4*cacheLine {
		return t.c.ReadMemory(t.ctx, addr, n)
	}
	sc := t.cache()
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

// ReadMemory reads target memory (the target must be stopped).
func (t *Target) ReadMemory(addr uint64, n int) ([]byte, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	return t.readCached(addr, n)
}

// WriteMemory writes target memory (the target must be stopped).
func (t *Target) WriteMemory(addr uint64, data []byte) error {
	if err := t.needStopped(); err != nil {
		return err
	}
	t.cache().mem = map[uint64][]byte{}
	t.cache().frames, t.cache().frame0 = nil, nil
	return t.c.WriteMemory(t.ctx, addr, data)
}

// Register is one register's value.
type Register struct {
	Name  string
	Num   int
	Size  int
	Value uint64 // the low 64 bits
	Bytes []byte
}

// Registers returns the general registers of the current thread (those in the 'g' packet).
func (t *Target) Registers() ([]Register, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	var out []Register
	for _, r := range t.desc.Regs {
		if r.Offset < 0 {
			continue
		}
		b, err := t.reg(r.Num)
		if err != nil {
			continue
		}
		if !t.cache().full {
			continue
		}
		out = append(out, Register{Name: r.Name, Num: r.Num, Size: r.Bitsize / 8, Value: Uint(b, t.order), Bytes: b})
	}
	return out, nil
}

// WriteRegister sets a register by name.
func (t *Target) WriteRegister(name string, value uint64) error {
	if err := t.needStopped(); err != nil {
		return err
	}
	r, ok := t.desc.Reg(name)
	if !ok {
		return fmt.Errorf("gdbremote: no register %q", name)
	}
	b := make([]byte, r.Bitsize/8)
	var full [8]byte
	t.order.PutUint64(full[:], value)
	if t.order == binary.BigEndian {
		copy(b[max(0, len(b)-8):], full[max(0, 8-len(b)):])
	} else {
		copy(b, full[:])
	}
	if err := t.c.WriteRegister(t.ctx, r.Num, b); err != nil {
		return err
	}
	sc := t.cache()
	sc.regs[r.Num] = b
	sc.frames, sc.frame0 = nil, nil
	return nil
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

// ResolveLine implements engine.Target.
func (t *Target) ResolveLine(file string, line int) (engine.Location, error) {
	pcs, got, err := t.sym.LineToPCs(file, line)
	if err != nil {
		return engine.Location{}, err
	}
	loc := t.location(pcs[0])
	loc.Line = got
	return loc, nil
}

// ResolveFunction implements engine.Target.
func (t *Target) ResolveFunction(name string) (engine.Location, error) {
	pc, err := t.sym.FuncBreakpoint(name)
	if err != nil {
		return engine.Location{}, err
	}
	return t.location(pc), nil
}

// ResolvePC implements engine.InstructionResolver.
func (t *Target) ResolvePC(pc uint64) (engine.Location, error) {
	return t.location(t.clearThumb(pc)), nil
}

func (t *Target) location(pc uint64) engine.Location {
	l, _ := t.sym.PCToLine(pc)
	return engine.Location{File: l.File, Line: l.Line, Col: l.Column, Func: l.Function, PC: pc, HasPC: true}
}

// SetTrap implements engine.Target: a breakpoint at loc.PC. While the target runs it is
// interrupted, the change made, and resumed.
func (t *Target) SetTrap(loc engine.Location, on bool) error {
	if !loc.HasPC {
		return fmt.Errorf("gdbremote: a trap needs an address")
	}
	pc := loc.PC
	apply := func() error {
		t.mu.Lock()
		tr := t.traps[pc]
		t.mu.Unlock()
		if on {
			if tr != nil {
				return nil
			}
			k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen)
			if err != nil {
				return err
			}
			t.mu.Lock()
			t.traps[pc] = &trap{kind: k}
			t.mu.Unlock()
			return nil
		}
		if tr == nil {
			return nil
		}
		t.mu.Lock()
		delete(t.traps, pc)
		t.mu.Unlock()
		return t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen)
	}
	return t.whileStopped(apply)
}

// SetTrapConditions makes the stub itself evaluate the trap at loc: it reports the trap
// only when one of conds is true. Every condition must have been made by this target's
// CompileCondition and be simple enough for an agent expression (CanRunOnStub), and the
// stub must support it (gdbserver does); otherwise it returns an error wrapping
// ErrNotCompilable or ErrUnsupported and the trap is unconditional (the session then
// checks every condition itself). A nil conds makes it unconditional again. The session
// calls it when every breakpoint at loc has a condition and no log message (hit counts
// still work: they count true hits).
func (t *Target) SetTrapConditions(loc engine.Location, conds []engine.Condition) error {
	var exprs [][]byte
	var cerr error
	if !t.c.Supports("ConditionalBreakpoints") && len(conds) > 0 {
		cerr = fmt.Errorf("%w: target-side conditions", ErrUnsupported)
	}
	for _, c := range conds {
		if cerr != nil {
			break
		}
		hc, ok := c.(*hostCond)
		if !ok || hc.agent == nil {
			cerr = fmt.Errorf("%w: %v", ErrNotCompilable, c)
			break
		}
		exprs = append(exprs, hc.agent)
	}
	if cerr != nil {
		exprs = nil // unconditional: a condition the stub cannot check must still stop it
	}
	pc := loc.PC
	err := t.whileStopped(func() error {
		t.mu.Lock()
		tr := t.traps[pc]
		t.mu.Unlock()
		if tr == nil {
			return fmt.Errorf("gdbremote: no trap at %#x", pc)
		}
		if tr.conds == nil && exprs == nil {
			return nil // already unconditional
		}
		if err := t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen); err != nil {
			return err
		}
		k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen, exprs...)
		if err != nil {
			k, _ = t.c.SetBreakpoint(t.ctx, pc, t.bpLen)
			exprs = nil
		}
		t.mu.Lock()
		t.traps[pc] = &trap{kind: k, conds: exprs}
		t.mu.Unlock()
		return err
	})
	if cerr != nil {
		return cerr
	}
	return err
}

// whileStopped runs fn now if the target is stopped, or queues it for the run loop and
// interrupts the target, which applies it and resumes.
func (t *Target) whileStopped(fn func() error) error {
	t.mu.Lock()
	if !t.running {
		t.mu.Unlock()
		return fn()
	}
	errc := make(chan error, 1)
	t.pending = append(t.pending, func() error { err := fn(); errc <- err; return err })
	err := t.c.Interrupt()
	t.mu.Unlock()
	if err != nil && !errors.Is(err, ErrNotRunning) {
		return err
	}
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second):
		return fmt.Errorf("gdbremote: the target did not stop to change a breakpoint")
	}
}

// Resume implements engine.Target.
func (t *Target) Resume(mode engine.ResumeMode) error {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return engine.ErrEnded
	}
	if t.running {
		t.mu.Unlock()
		return engine.ErrRunning
	}
	t.running = true
	t.pausing = false
	done := make(chan struct{})
	t.runDone = done
	t.mu.Unlock()
	go func() {
		defer close(done)
		t.run(mode)
	}()
	return nil
}

// Pause implements engine.Target.
func (t *Target) Pause() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.running {
		return nil
	}
	t.pausing = true
	if err := t.c.Interrupt(); err != nil && !errors.Is(err, ErrNotRunning) {
		return err
	}
	return nil // not running between two packets: the run loop sees pausing
}

// Terminate implements engine.Target.
func (t *Target) Terminate() error {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return nil
	}
	t.killing = true
	running := t.running
	done := t.runDone
	t.mu.Unlock()
	if running {
		t.c.Interrupt()
		if done != nil {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
			}
		}
	}
	if t.stub != nil && t.sym.Arch.Machine == elf.EM_ARM {
		// QEMU: 'k' ends the emulator
		t.c.Kill(t.ctx)
	} else {
		t.c.Kill(t.ctx)
	}
	t.mu.Lock()
	t.ended = true
	h := t.h
	t.mu.Unlock()
	if h != nil {
		h.Terminated()
	}
	return nil
}

// Close implements engine.Target.
func (t *Target) Close() error {
	t.stop()
	t.c.Close()
	if t.stub != nil {
		t.stub.Stop()
	}
	t.mu.Lock()
	done := t.runDone
	t.mu.Unlock()
	if done != nil {
		<-done
	}
	return t.sym.Close()
}

// Restart restarts the program (gdbserver: vRun in extended mode; QEMU: system_reset) and
// runs to its entry point; the target is then stopped there.
func (t *Target) Restart() error {
	if err := t.needStopped(); err != nil {
		t.Pause()
		deadline := time.Now().Add(5 * time.Second)
		for t.needStopped() != nil && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	sr, err := t.c.Restart(t.ctx)
	if err != nil {
		return err
	}
	t.newStop(sr)
	if t.sym.IsPIE() {
		if aux, err := t.c.Auxv(t.ctx, t.sym.Arch.PtrSize, t.sym.Arch.ByteOrder); err == nil {
			if e, ok := aux[9]; ok && e-t.sym.ELF.Entry != t.sym.Bias {
				return fmt.Errorf("gdbremote: the program moved on restart; breakpoints are stale")
			}
		}
	}
	// breakpoints of the old process are gone with it (gdbserver); set them again
	t.mu.Lock()
	traps := make(map[uint64]*trap, len(t.traps))
	for pc, tr := range t.traps {
		traps[pc] = tr
	}
	t.mu.Unlock()
	for pc, tr := range traps {
		t.c.ClearBreakpoint(t.ctx, tr.kind, pc, t.bpLen)
		if k, err := t.c.SetBreakpoint(t.ctx, pc, t.bpLen, tr.conds...); err == nil {
			tr.kind = k
		}
	}
	pc, err := t.pc()
	if err != nil {
		return err
	}
	if pc != t.sym.Entry() {
		return t.runTo(t.sym.Entry())
	}
	return nil
}

// run executes one resume request until something must be reported.
func (t *Target) run(mode engine.ResumeMode) {
	var stop *engine.Stop
	var err error
	switch mode {
	case engine.Continue:
		stop, err = t.doContinue()
	case engine.StepInstruction:
		stop, err = t.doStepInstruction()
	case engine.StepInto, engine.StepOver:
		stop, err = t.doStepLine(mode == engine.StepOver)
	case engine.StepOut:
		stop, err = t.doStepOut()
	default:
		err = fmt.Errorf("gdbremote: resume mode %v is not supported", mode)
	}
	if errors.Is(err, errPaused) {
		stop, err = &engine.Stop{Reason: engine.ReasonPause}, nil
	}
	if err != nil {
		var ex *exitedError
		if errors.As(err, &ex) {
			t.finish(ex.sr)
			return
		}
		t.mu.Lock()
		killing := t.killing
		t.mu.Unlock()
		if killing {
			t.mu.Lock()
			t.running = false
			t.mu.Unlock()
			return
		}
		t.log.Warn("gdbremote: run failed", "err", err)
		if t.c.Err() != nil {
			// the connection is gone: the session is over
			t.flushOutput()
			t.mu.Lock()
			t.running = false
			t.ended = true
			h := t.h
			t.mu.Unlock()
			if h != nil {
				h.Output("console", "gdbremote: "+err.Error()+"\n")
				h.Terminated()
			}
			return
		}
		stop = &engine.Stop{Reason: engine.ReasonException, Text: err.Error()}
	}
	t.reportStop(*stop)
}

type exitedError struct{ sr StopReply }

func (e *exitedError) Error() string { return "exited" }

func (t *Target) finish(sr StopReply) {
	t.flushOutput()
	t.mu.Lock()
	t.running = false
	t.ended = true
	h := t.h
	killing := t.killing
	t.mu.Unlock()
	if h == nil || killing {
		return
	}
	if sr.Kind == StopExited {
		h.Exited(sr.Signal)
	} else {
		h.Output("console", fmt.Sprintf("program terminated by signal %d\n", sr.Signal))
		h.Exited(128 + sr.Signal)
	}
}

func (t *Target) reportStop(st engine.Stop) {
	t.mu.Lock()
	pending := t.pending
	t.pending = nil
	killing := t.killing
	t.mu.Unlock()
	for _, fn := range pending {
		fn()
	}
	if killing {
		t.mu.Lock()
		t.running = false
		t.mu.Unlock()
		return
	}
	if !st.Location.HasPC {
		if pc, err := t.pc(); err == nil {
			st.Location = t.location(pc)
		}
	}
	t.mu.Lock()
	t.running = false
	h := t.h
	t.mu.Unlock()
	if h != nil {
		h.Stopped(st)
	}
}

// errPaused ends a run loop that was asked to pause between two packets.
var errPaused = errors.New("paused")

// resumeWait sends one resume and waits for the stop, applying queued trap changes
// (which interrupt the target) and resuming again after them.
func (t *Target) resumeWait(action string, start, end uint64) (StopReply, error) {
	for {
		t.mu.Lock()
		pending := t.pending
		t.pending = nil
		t.mu.Unlock()
		for _, fn := range pending {
			fn()
		}
		// Checking for a pause and resuming under the lock closes the race with Pause:
		// either it sees the client running and interrupts, or we see its request here.
		t.mu.Lock()
		if t.pausing {
			t.mu.Unlock()
			return StopReply{}, errPaused
		}
		var err error
		if action == "r" {
			err = t.c.StepRange(t.ctx, t.threadID, start, end)
		} else {
			err = t.c.Resume(t.ctx, action, "")
		}
		t.mu.Unlock()
		if err != nil {
			return StopReply{}, err
		}
		sr, err := t.c.Wait(t.ctx)
		if err != nil {
			return sr, err
		}
		t.newStop(sr)
		if sr.Exited() {
			return sr, &exitedError{sr}
		}
		t.mu.Lock()
		pending = t.pending
		t.pending = nil
		pausing := t.pausing
		t.mu.Unlock()
		if len(pending) == 0 {
			return sr, nil
		}
		for _, fn := range pending {
			fn()
		}
		// the interrupt was ours: go on unless something else stopped the target
		pc, _ := t.pc()
		t.mu.Lock()
		atTrap := t.traps[pc] != nil
		t.mu.Unlock()
		if pausing || atTrap || sr.Signal != int(syscall.SIGINT) && sr.Signal != int(syscall.SIGTRAP) {
			return sr, nil
		}
		if action != "c" {
			return sr, nil
		}
	}
}

// stepOff steps one instruction, over the breakpoint at the pc if there is one.
func (t *Target) stepOff() (StopReply, error) {
	pc, err := t.pc()
	if err != nil {
		return StopReply{}, err
	}
	t.mu.Lock()
	tr := t.traps[pc]
	t.mu.Unlock()
	var sr StopReply
	if tr != nil {
		sr, err = t.c.StepOver(t.ctx, "", tr.kind, pc, t.bpLen, tr.conds...)
		if err == nil {
			t.newStop(sr)
			if sr.Exited() {
				return sr, &exitedError{sr}
			}
		}
		return sr, err
	}
	return t.resumeWait("s", 0, 0)
}

// doContinue runs until a trap the handler wants to stop at, a pause or a signal.
func (t *Target) doContinue() (*engine.Stop, error) {
	first := true
	for {
		if first {
			first = false
			pc, err := t.pc()
			if err != nil {
				return nil, err
			}
			t.mu.Lock()
			atTrap := t.traps[pc] != nil
			t.mu.Unlock()
			if atTrap {
				if _, err := t.stepOff(); err != nil {
					return nil, err
				}
				if st := t.checkStopAfterStep(); st != nil {
					return st, nil
				}
			}
		}
		sr, err := t.resumeWait("c", 0, 0)
		if err != nil {
			return nil, err
		}
		if st := t.classify(sr); st != nil {
			return st, nil
		}
		// a trap whose conditions are false: step off it and go on
		if _, err := t.stepOff(); err != nil {
			return nil, err
		}
		if st := t.checkStopAfterStep(); st != nil {
			return st, nil
		}
	}
}

// checkStopAfterStep handles what may stop the target during a step-off: a pause, or
// arriving at another trap.
func (t *Target) checkStopAfterStep() *engine.Stop {
	if st := t.pauseStop(); st != nil {
		return st
	}
	sr := t.lastStopReply()
	if sr.Signal != int(syscall.SIGTRAP) && sr.Signal != 0 {
		return t.classify(sr)
	}
	pc, err := t.pc()
	if err != nil {
		return nil
	}
	t.mu.Lock()
	atTrap := t.traps[pc] != nil
	h := t.h
	t.mu.Unlock()
	if atTrap && h != nil {
		if st := h.Trap(t.location(pc)); st != nil {
			return st
		}
	}
	return nil
}

func (t *Target) lastStopReply() StopReply {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastStop
}

// classify turns a stop reply during continue into a stop to report, or nil to go on.
func (t *Target) classify(sr StopReply) *engine.Stop {
	t.mu.Lock()
	pausing := t.pausing
	h := t.h
	t.mu.Unlock()
	pc, err := t.pc()
	if err != nil {
		return &engine.Stop{Reason: engine.ReasonException, Text: err.Error()}
	}
	t.mu.Lock()
	atTrap := t.traps[pc] != nil
	t.mu.Unlock()
	if atTrap && (sr.Signal == int(syscall.SIGTRAP) || sr.Signal == 0) {
		if h == nil {
			return &engine.Stop{Reason: engine.ReasonBreakpoint}
		}
		if st := h.Trap(t.location(pc)); st != nil {
			return st
		}
		if pausing {
			return &engine.Stop{Reason: engine.ReasonPause}
		}
		return nil
	}
	if pausing {
		return &engine.Stop{Reason: engine.ReasonPause}
	}
	if sr.Signal == int(syscall.SIGTRAP) || sr.Signal == int(syscall.SIGINT) {
		return &engine.Stop{Reason: engine.ReasonPause}
	}
	return &engine.Stop{Reason: engine.ReasonException, Text: "signal " + signalName(sr.Signal)}
}

func signalName(n int) string {
	if s := syscall.Signal(n).String(); !strings.HasPrefix(s, "signal ") {
		return s
	}
	return strconv.Itoa(n)
}

func (t *Target) doStepInstruction() (*engine.Stop, error) {
	if _, err := t.stepOff(); err != nil {
		return nil, err
	}
	return &engine.Stop{Reason: engine.ReasonStep}, nil
}

// frames unwinds the current stop (cached).
func (t *Target) frames() ([]elfsym.Frame, error) {
	sc := t.cache()
	if sc.frames != nil {
		return sc.frames, nil
	}
	fs, err := t.sym.Unwind(dwarfRegs{t}, cachedMem{t}, 256)
	if err != nil {
		return nil, err
	}
	sc.frames = fs
	return fs, nil
}

// sp reads the stack pointer.
func (t *Target) sp() uint64 {
	v, _ := dwarfRegs{t}.Register(t.sym.Arch.SP)
	return v
}

// doStepLine steps to the next statement: into calls (StepInto) or over them (StepOver,
// with a temporary breakpoint on the return address). A call into code without line
// information is stepped over in both modes.
func (t *Target) doStepLine(over bool) (*engine.Stop, error) {
	pc, err := t.pc()
	if err != nil {
		return nil, err
	}
	startLoc, _ := t.sym.PCToLine(pc)
	startFn := t.sym.FuncAt(pc)
	for range 100000 {
		if st := t.pauseStop(); st != nil {
			return st, nil
		}
		pc, err = t.pc()
		if err != nil {
			return nil, err
		}
		s, e, ok := t.sym.LineRange(pc)
		t.mu.Lock()
		atTrap := t.traps[pc] != nil
		t.mu.Unlock()
		if ok && !atTrap && t.c.HasVCont("r") && pc >= s && pc < e {
			if _, err := t.resumeWait("r", s, e); err != nil {
				return nil, err
			}
		} else if _, err := t.stepOff(); err != nil {
			return nil, err
		}
		sr := t.lastStopReply()
		if sr.Signal != int(syscall.SIGTRAP) && sr.Signal != 0 && sr.Signal != int(syscall.SIGINT) {
			return t.classify(sr), nil
		}
		npc, err := t.pc()
		if err != nil {
			return nil, err
		}
		fn := t.sym.FuncAt(npc)
		// A call: the pc is at a function's first instruction (or in code without lines).
		isCall := fn != nil && npc == fn.Low+t.sym.Bias && npc != pc
		loc, hasLine := t.sym.PCToLine(npc)
		if (isCall && over) || !hasLine || fn == nil {
			if err := t.finishCall(); err != nil {
				return nil, err
			}
			if st := t.pauseStop(); st != nil {
				return st, nil
			}
			continue
		}
		if isCall {
			// step into: stop at the first statement after the callee's prologue
			bp, err := t.sym.FuncBreakpoint(fn.Name)
			if err == nil && bp != npc {
				if err := t.runToTemp(bp, 0); err != nil {
					return nil, err
				}
			}
			return &engine.Stop{Reason: engine.ReasonStep}, nil
		}
		if !t.sym.IsStmt(npc) {
			continue
		}
		if loc.Line != startLoc.Line || loc.File != startLoc.File || fn != startFn {
			return &engine.Stop{Reason: engine.ReasonStep}, nil
		}
		if npc <= pc && fn == startFn && loc.Line == startLoc.Line {
			// back to the start of the same line (a loop on one line): a new statement
			return &engine.Stop{Reason: engine.ReasonStep}, nil
		}
	}
	return &engine.Stop{Reason: engine.ReasonStep}, nil
}

// pauseStop is the stop to report when a pause was asked for, or nil.
func (t *Target) pauseStop() *engine.Stop {
	t.mu.Lock()
	pausing := t.pausing
	t.mu.Unlock()
	if pausing {
		return &engine.Stop{Reason: engine.ReasonPause}
	}
	return nil
}

// finishCall runs until the current function returns to its caller: a temporary
// breakpoint on the return address, taken only when the stack is back above the callee's
// frame (so recursion works).
func (t *Target) finishCall() error {
	fs, err := t.frames()
	if err != nil {
		return err
	}
	if len(fs) < 2 {
		return fmt.Errorf("gdbremote: no caller to return to")
	}
	ra := fs[1].PC
	return t.runToTemp(ra, fs[0].CFA)
}

// runToTemp continues to addr with a temporary breakpoint; with minCFA > 0 a hit counts
// only when the stack pointer is at or above minCFA (the callee's frame is gone). User
// breakpoints hit on the way stop the run (reported by the caller via h.Trap).
func (t *Target) runToTemp(addr, minCFA uint64) error {
	t.mu.Lock()
	_, had := t.traps[addr]
	t.mu.Unlock()
	if !had {
		if _, err := t.c.SetBreakpoint(t.ctx, addr, t.bpLen); err != nil {
			return err
		}
		defer t.c.ClearBreakpoint(t.ctx, SoftwareBreak, addr, t.bpLen)
	}
	for {
		sr, err := t.resumeWait("c", 0, 0)
		if err != nil {
			return err
		}
		pc, err := t.pc()
		if err != nil {
			return err
		}
		t.mu.Lock()
		pausing := t.pausing
		t.mu.Unlock()
		if pausing || sr.Signal != int(syscall.SIGTRAP) && sr.Signal != 0 {
			return nil
		}
		if pc == addr && (minCFA == 0 || t.sp() >= minCFA) {
			return nil
		}
		// another trap (or a recursive hit of the return address): step off and go on
		if _, err := t.stepOffTemp(addr); err != nil {
			return err
		}
	}
}

func (t *Target) stepOffTemp(addr uint64) (StopReply, error) {
	pc, err := t.pc()
	if err != nil {
		return StopReply{}, err
	}
	t.mu.Lock()
	_, user := t.traps[pc]
	t.mu.Unlock()
	if pc == addr && !user {
		sr, err := t.c.StepOver(t.ctx, "", SoftwareBreak, pc, t.bpLen)
		if err == nil {
			t.newStop(sr)
		}
		return sr, err
	}
	return t.stepOff()
}

// doStepOut runs until the current function returns.
func (t *Target) doStepOut() (*engine.Stop, error) {
	if err := t.finishCall(); err != nil {
		return nil, err
	}
	if st := t.pauseStop(); st != nil {
		return st, nil
	}
	return &engine.Stop{Reason: engine.ReasonStep}, nil
}

// Stack implements engine.Target.
func (t *Target) Stack() ([]engine.Frame, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	fs, err := t.frames()
	if err != nil {
		return nil, err
	}
	out := make([]engine.Frame, len(fs))
	for i, f := range fs {
		name := fmt.Sprintf("%#x", f.PC)
		if f.Func != nil {
			name = f.Func.Name
		}
		out[i] = engine.Frame{Index: i, Func: name, Location: engine.Location{File: f.Loc.File, Line: f.Loc.Line,
			Col: f.Loc.Column, Func: f.Loc.Function, PC: f.PC, HasPC: true}}
	}
	return out, nil
}

func (t *Target) frame(i int) (*elfsym.Frame, error) {
	if i == 0 {
		// Conditions and logpoints need only the innermost frame: do not walk the stack.
		sc := t.cache()
		if sc.frames != nil {
			return &sc.frames[0], nil
		}
		if sc.frame0 == nil {
			fs, err := t.sym.Unwind(dwarfRegs{t}, cachedMem{t}, 1)
			if err != nil || len(fs) == 0 {
				return nil, fmt.Errorf("gdbremote: no frame: %v", err)
			}
			sc.frame0 = &fs[0]
		}
		return sc.frame0, nil
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

func (t *Target) newRef(e refEntry) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.nextRef++
	t.refs[t.nextRef] = e
	return t.nextRef
}

// Scopes implements engine.Target: Locals (parameters and locals), Globals, Registers.
func (t *Target) Scopes(frame int) ([]engine.Scope, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	if _, err := t.frame(frame); err != nil {
		return nil, err
	}
	return []engine.Scope{
		{Name: "Locals", Ref: t.newRef(refEntry{frame: frame, kind: "locals"})},
		{Name: "Globals", Ref: t.newRef(refEntry{frame: frame, kind: "globals"})},
		{Name: "Registers", Ref: t.newRef(refEntry{frame: frame, kind: "registers"})},
	}, nil
}

// lookupPC is where variables of frame fr are looked up (the call, for callers).
func lookupPC(fr *elfsym.Frame) uint64 {
	if fr.Index > 0 && !fr.Interrupted {
		return fr.PC - 1
	}
	return fr.PC
}

// Variables implements engine.Target.
func (t *Target) Variables(ref int) ([]engine.Variable, error) {
	if err := t.needStopped(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	e, ok := t.refs[ref]
	t.mu.Unlock()
	if !ok {
		return nil, engine.ErrNoVariable
	}
	switch e.kind {
	case "locals", "globals":
		fr, err := t.frame(e.frame)
		if err != nil {
			return nil, err
		}
		var vars []*elfsym.Var
		if e.kind == "locals" {
			params, locals, err := t.sym.FrameVars(lookupPC(fr))
			if err != nil {
				return nil, err
			}
			vars = append(params, locals...)
		} else {
			vars = t.sym.Globals()
			sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
		}
		out := make([]engine.Variable, 0, len(vars))
		for _, v := range vars {
			val, _ := t.sym.ReadVar(v, fr, cachedMem{t})
			out = append(out, t.variable(e.frame, val))
		}
		return out, nil
	case "registers":
		fr, err := t.frame(e.frame)
		if err != nil {
			return nil, err
		}
		var out []engine.Variable
		if e.frame == 0 {
			regs, err := t.Registers()
			if err != nil {
				return nil, err
			}
			for _, r := range regs {
				out = append(out, engine.Variable{Name: r.Name, Value: fmt.Sprintf("%#x", r.Value), Type: fmt.Sprintf("uint%d", 8*r.Size)})
			}
			return out, nil
		}
		regs := fr.Regs()
		nums := make([]int, 0, len(regs))
		for n := range regs {
			nums = append(nums, n)
		}
		sort.Ints(nums)
		for _, n := range nums {
			if name := t.sym.Arch.RegName(n); name != "" {
				out = append(out, engine.Variable{Name: name, Value: fmt.Sprintf("%#x", regs[n])})
			}
		}
		return out, nil
	case "value":
		out := make([]engine.Variable, 0, len(e.val.Children))
		for _, c := range e.val.Children {
			out = append(out, t.variable(e.frame, c))
		}
		return out, nil
	}
	return nil, engine.ErrNoVariable
}

func (t *Target) variable(frame int, v elfsym.Value) engine.Variable {
	ev := engine.Variable{Name: v.Name, Value: v.Text, Type: v.Type}
	if len(v.Children) > 0 {
		ev.Ref = t.newRef(refEntry{frame: frame, kind: "value", val: v})
		ev.Len = len(v.Children)
	}
	return ev
}

// Evaluate implements engine.Target: a variable (name, name.field, name[i], *name), a
// register ($pc, $sp, $rax...), a number, or a condition (comparisons with and/or).
func (t *Target) Evaluate(frame int, expr string, mode engine.EvalMode) (engine.Variable, error) {
	if err := t.needStopped(); err != nil {
		return engine.Variable{}, err
	}
	fr, err := t.frame(frame)
	if err != nil {
		return engine.Variable{}, err
	}
	ev := &evaluator{t: t, fr: fr}
	v, err := ev.value(strings.TrimSpace(expr))
	if err == nil {
		out := t.variable(frame, v)
		out.Name = expr
		return out, nil
	}
	if truth, cerr := ev.cond(expr); cerr == nil {
		return engine.Variable{Name: expr, Value: strconv.FormatBool(truth), Type: "bool"}, nil
	}
	return engine.Variable{}, err
}

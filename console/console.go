// Package console is polydbg's fantasy console, Prometeu: it runs Kite cartridges on a
// 128×128, 16-colour screen at a fixed frame rate, with counted syscalls, a per-frame cycle
// budget and certification rules. A Console is an engine target (backend/kitevm) whose Run
// function drives the frame loop, so every front end can debug a cartridge.
package console

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/vm"
)

// DefaultFPS is the console's frame rate; DefaultTelemetry the frames between telemetry
// events.
const (
	DefaultFPS       = 60
	DefaultTelemetry = 60
)

// Options configure a console run.
type Options struct {
	FPS       int    // frames per second; 0 runs unpaced (tests, benchmarks)
	Frames    int64  // end the run after this many frames; 0: run until the program ends
	Seed      uint64 // seed of rnd(); 0 means 1
	Telemetry int    // frames between telemetry events; 0: DefaultTelemetry, <0: none
}

// Event is something the console reports besides the engine's events: a log line of the
// cartridge, telemetry, or a broken certification rule.
type Event struct {
	Kind       string // EventLog, EventTelemetry or EventCert
	FrameIndex int64

	Level, Source, Msg string // log

	Steps, Cycles, Syscalls int64 // telemetry: the VM's counters since the start

	Rule        string // cert
	Used, Limit int64
}

// Event kinds.
const (
	EventLog       = "log"
	EventTelemetry = "telemetry"
	EventCert      = "cert"
)

// Counters are the console's counters at one moment.
type Counters struct {
	FrameIndex int64 // the frame being run (at a boundary: the next one)
	Steps      int64 // instructions executed since the start
	Cycles     int64 // their cost in cycles
	Syscalls   int64 // syscalls made since the start
}

// errFramesDone ends a run that reached Options.Frames.
var errFramesDone = errors.New("frame count reached")

// Console runs one cartridge.
type Console struct {
	cart   *Cartridge
	opts   Options
	limits Limits
	tg     *kitevm.Target
	sink   atomic.Pointer[func(Event)]

	// Owned by the VM goroutine.
	v             *vm.VM
	fb            Framebuffer
	frame         int64
	frameCalls    int64 // syscalls made in this frame
	frameLogs     int64
	totalSyscalls int64
	frameCycles   int64 // vm.Cycles() when the frame began
	input         uint8 // buttons latched for this frame
	rng           uint64
	frameFn       vm.Value
	frameEntry    int
	inFrame       bool // frame() is running (a cut happens inside it)
	next          time.Time

	// Shared.
	frameIndex atomic.Int64
	buttons    atomic.Uint32
	telemetry  atomic.Int64
	snapMu     sync.Mutex
	snap       Counters
	front      Framebuffer
}

// New prepares a console for cart. Its target is ready for engine.NewSession.
func New(cart *Cartridge, opts Options) (*Console, error) {
	c := &Console{cart: cart, opts: opts, limits: cart.Manifest.Limits}
	c.rng = opts.Seed
	if c.rng == 0 {
		c.rng = 1
	}
	switch {
	case opts.Telemetry == 0:
		c.telemetry.Store(DefaultTelemetry)
	case opts.Telemetry > 0:
		c.telemetry.Store(int64(opts.Telemetry))
	}
	tg, err := kitevm.New(cart.Program, kitevm.Options{
		Host:        c.syscalls(),
		Run:         c.run,
		Frames:      true,
		OutOfCycles: c.outOfCycles,
		Annotate:    func(st *engine.Stop) { st.FrameIndex = c.FrameIndex() },
		Seed:        opts.Seed,
	})
	if err != nil {
		return nil, err
	}
	c.tg = tg
	c.v = tg.VM()
	return c, nil
}

// Target is the console's engine target.
func (c *Console) Target() *kitevm.Target { return c.tg }

// Cartridge is the cartridge being run.
func (c *Console) Cartridge() *Cartridge { return c.cart }

// Limits are the certification limits in force.
func (c *Console) Limits() Limits { return c.limits }

// SetEventHandler sets the function that receives the console's events. It runs on the
// VM goroutine and must not block; set it before the session starts.
func (c *Console) SetEventHandler(f func(Event)) { c.sink.Store(&f) }

func (c *Console) emit(e Event) {
	if f := c.sink.Load(); f != nil {
		(*f)(e)
	}
}

// FrameIndex is the frame being run; at a frame boundary, the next one.
func (c *Console) FrameIndex() int64 { return c.frameIndex.Load() }

// SetInput sets the buttons that are down (bit i is button i); btn() sees them from the
// next frame on.
func (c *Console) SetInput(buttons uint8) { c.buttons.Store(uint32(buttons)) }

// SetTelemetry sets the frames between telemetry events (0: none).
func (c *Console) SetTelemetry(frames int) { c.telemetry.Store(int64(max(frames, 0))) }

// TelemetryInterval is the frames between telemetry events (0: none).
func (c *Console) TelemetryInterval() int { return int(c.telemetry.Load()) }

// Snapshot returns the counters as of the last frame boundary.
func (c *Console) Snapshot() Counters {
	c.snapMu.Lock()
	defer c.snapMu.Unlock()
	return c.snap
}

// Screen returns the last complete frame (the screen as presented at the last frame
// boundary).
func (c *Console) Screen() *Framebuffer {
	c.snapMu.Lock()
	defer c.snapMu.Unlock()
	fb := c.front
	return &fb
}

// run drives the cartridge on the VM goroutine: the top level, init(), then frame() once
// per frame until the program ends, the frame count is reached or it is terminated.
func (c *Console) run(t *kitevm.Target) error {
	err := c.loop(t)
	if errors.Is(err, errFramesDone) {
		return nil
	}
	return err
}

func (c *Console) loop(t *kitevm.Target) error {
	v := c.v
	if err := v.Run(); err != nil {
		return err
	}
	var initFn vm.Value
	for _, g := range v.Globals() {
		switch g.Name {
		case "frame":
			c.frameFn = g.Value
		case "init":
			initFn = g.Value
		}
	}
	if c.frameFn.Kind() != vm.FuncKind || c.frameFn.Closure().Fn.NumParams != 0 {
		return fmt.Errorf("the cartridge's frame must be a function without parameters")
	}
	c.frameEntry = c.frameFn.Closure().Fn.Entry
	if initFn.Kind() == vm.FuncKind {
		if _, err := v.Call(initFn); err != nil {
			return err
		}
	}
	c.next = time.Now()
	c.beginFrame()
	for {
		c.inFrame = true
		_, err := v.Call(c.frameFn)
		c.inFrame = false
		if err != nil {
			return err
		}
		if err := c.endFrame(t, false); err != nil {
			return err
		}
	}
}

// outOfCycles cuts a frame that used its budget: the frame ends here, and frame() goes on
// where it was in the next one, as a real console slows down.
func (c *Console) outOfCycles(v *vm.VM) error {
	if !c.inFrame {
		v.SetCycleLimit(math.MaxInt64)
		return nil
	}
	return c.endFrame(c.tg, true)
}

func (c *Console) beginFrame() {
	c.frameCalls, c.frameLogs = 0, 0
	c.frameCycles = c.v.Cycles()
	c.input = uint8(c.buttons.Load())
	c.v.SetCycleLimit(c.frameCycles + c.limits.CyclesPerFrame)
}

// endFrame ends the current frame: certification, presenting the screen, telemetry, then
// what a debugger asked for at frame boundaries (frame steps, pause), pacing, and the
// next frame's budget.
func (c *Console) endFrame(t *kitevm.Target, cut bool) error {
	v := c.v
	f := c.frame
	used := v.Cycles() - c.frameCycles
	if cut || used > c.limits.CyclesPerFrame {
		c.cert(RuleCycles, used, c.limits.CyclesPerFrame)
	}
	if c.frameCalls > c.limits.SyscallsPerFrame {
		c.cert(RuleSyscalls, c.frameCalls, c.limits.SyscallsPerFrame)
	}
	if c.frameLogs > c.limits.LogsPerFrame {
		c.cert(RuleLogs, c.frameLogs, c.limits.LogsPerFrame)
	}
	if heap := v.MemStats().Values; heap > c.limits.HeapValues {
		c.cert(RuleHeap, heap, c.limits.HeapValues)
	}
	c.frame++
	c.frameIndex.Store(c.frame)
	c.snapMu.Lock()
	c.front = c.fb
	c.snap = Counters{FrameIndex: c.frame, Steps: v.Steps(), Cycles: v.Cycles(), Syscalls: c.totalSyscalls}
	c.snapMu.Unlock()
	if n := c.telemetry.Load(); n > 0 && (f+1)%n == 0 {
		c.emit(Event{Kind: EventTelemetry, FrameIndex: f, Steps: v.Steps(), Cycles: v.Cycles(), Syscalls: c.totalSyscalls})
	}
	if c.opts.Frames > 0 && c.frame >= c.opts.Frames {
		return errFramesDone
	}
	if t.Terminating() {
		return kitevm.ErrTerminated
	}
	if t.TakeFrameStep() {
		if err := t.Suspend(engine.Stop{Reason: engine.ReasonFrame, Location: c.boundary(cut)}); err != nil {
			return err
		}
		c.next = time.Now()
	}
	if err := c.pace(t, cut); err != nil {
		return err
	}
	c.beginFrame()
	return nil
}

func (c *Console) cert(rule string, used, limit int64) {
	c.emit(Event{Kind: EventCert, FrameIndex: c.frame, Rule: rule, Used: used, Limit: limit})
}

// boundary is where a frame boundary stops: before frame() when the frame ended by
// returning, or where it was cut.
func (c *Console) boundary(cut bool) engine.Location {
	pc := c.frameEntry
	if cut {
		if fi, ok := c.v.Frame(0); ok {
			pc = fi.PC
		}
	}
	loc, _ := c.tg.ResolvePC(uint64(pc))
	if cut {
		if fi, ok := c.v.Frame(0); ok && fi.Func != nil && fi.Func.Name != "" {
			loc.Func = fi.Func.Name
		}
	} else {
		loc.Func = "frame"
	}
	return loc
}

// pace waits for the next frame's time (no wait at FPS 0), pausing when asked.
func (c *Console) pace(t *kitevm.Target, cut bool) error {
	var period time.Duration
	if c.opts.FPS > 0 {
		period = time.Second / time.Duration(c.opts.FPS)
		c.next = c.next.Add(period)
		if now := time.Now(); c.next.Before(now.Add(-period)) {
			c.next = now // far behind: do not try to catch up
		}
	}
	for {
		if t.Terminating() {
			return kitevm.ErrTerminated
		}
		if t.TakePause() {
			if err := t.Suspend(engine.Stop{Reason: engine.ReasonPause, Location: c.boundary(cut)}); err != nil {
				return err
			}
			c.next = time.Now()
			return nil
		}
		if period == 0 {
			return nil
		}
		d := time.Until(c.next)
		if d <= 0 {
			return nil
		}
		time.Sleep(min(d, 2*time.Millisecond))
	}
}

// Disassemble returns up to count instructions from pc, as `polydbg disasm` prints them.
func (c *Console) Disassemble(pc, count int) []Instruction {
	return disassemble(c.cart.Program, pc, count)
}

// LiveState is what a debugger reads from a stopped console.
type LiveState struct {
	Counters
	StackTop *string // the operand stack's top value, printed; nil when empty
}

// Live reads the counters and the operand stack's top; the program must be stopped.
func (c *Console) Live() (LiveState, error) {
	var st LiveState
	err := c.tg.Inspect(func(v *vm.VM) {
		st.Counters = Counters{FrameIndex: c.frame, Steps: v.Steps(), Cycles: v.Cycles(), Syscalls: c.totalSyscalls}
		if top, ok := v.OperandTop(); ok {
			s := top.Repr()
			st.StackTop = &s
		}
	})
	return st, err
}

// LiveScreen returns the screen as drawn so far (mid-frame when stopped inside frame());
// the program must be stopped.
func (c *Console) LiveScreen() (*Framebuffer, error) {
	var fb Framebuffer
	err := c.tg.Inspect(func(*vm.VM) { fb = c.fb })
	return &fb, err
}

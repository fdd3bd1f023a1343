package gdbremote

// Target: its configuration, construction (connect, launch a stub) and the stub's output.

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// Config configures a Target.
type Config struct {
	// Timeout bounds each exchange with the stub (default 10s).
	Timeout time.Duration
	// Logger for debug traces (nil: slog.Default()).
	Logger *slog.Logger
	// NoThreadEvents leaves threads to be seen at stops only. Live thread events cost a
	// stop in the kernel at every system call on gdbserver before 15 (threadevents.go).
	NoThreadEvents bool
	// DebugDirs are where separate debug files are looked for (gdb's
	// debug-file-directory): nil for elfsym.DefaultDebugDir.
	DebugDirs []string
}

// Target is an engine.Target for a program behind a GDB stub. Besides the engine's
// interfaces it offers memory and register access (ReadMemory, WriteMemory, Registers,
// WriteRegister), instruction breakpoints (engine.InstructionResolver), Restart, and
// SetTrapConditions for conditions the stub evaluates itself.
type Target struct {
	c     *Client
	sym   *elfsym.File
	desc  *TargetDesc
	stub  *Stub  // started by us, or nil
	addr  string // the stub's HOST:PORT
	local bool   // the program runs on this machine, under a gdbserver started by us
	// attached says the program was running before polydbg came (AttachNative): it is
	// debugged where it is, not run to its entry point, and Close lets it go on.
	attached bool
	core     *CoreInfo // a core dump's program (corefile.go), nil for a live one
	sink     *lineSink // the stub's output as lines (with stub)
	log      *slog.Logger
	order    binary.ByteOrder
	bpLen    int // Z0 kind: 1 on x86, 2 for Thumb

	// catchCalls and catchAll are the system calls to stop at (syscalls.go), catchSent
	// the QCatchSyscalls the stub was last sent ("" for none); under mu.
	entryPending bool // started at the first instruction: the entry's work is due (starti.go)
	catchForks   bool // stop after forks during a continue (CatchForks)
	catchVforks  bool // stop after vforks during a continue (CatchForks)
	catchCalls   []int
	catchAll     bool
	catchSent    string
	stepFilter   engine.StepFilter // the functions a step into passes over (gdb's skip), under mu

	h    engine.Handler
	ctx  context.Context
	stop context.CancelFunc

	// stopMu is held while something works on the stopped target outside the run loop
	// (whileStopped's direct path, ResetHalt), and by Resume while it starts the run
	// loop, so that no resume begins in the middle of it.
	stopMu sync.Mutex

	qemuOnce sync.Once
	isQEMU   bool // QEMU's stub (it answers qqemu.sstepbits): device stores go through the core

	mu        sync.Mutex // guards the fields below
	traps     map[uint64]*trap
	sites     map[uint64][]uint64 // a function breakpoint's address -> its other copies' (sites.go)
	keyFn     map[uint64]string   // a function breakpoint's address -> the function
	inl       inlineView          // the inlined frames the current stop hides (inlinestep.go)
	running   bool
	pausing   bool
	ended     bool
	killing   bool
	pending   []*pendingOp    // work (trap changes, memory access) requested while running
	opQueued  chan struct{}   // told (without blocking) when work is added to pending
	libEvent  uint64          // the dynamic linker's event breakpoint (solib.go), 0 when not set
	dummies   []dummyFrame    // calls from expressions left on the stack, the innermost last (dummy.go)
	catchLibs bool            // a continue stops at library events (CatchLibraries)
	libsKnown map[string]bool // the libraries loaded at the last event, and in the stub's order
	libsOrder []string
	waiting   bool // the run loop waits for the stop of an interruptible resume
	stepping  bool // the run loop waits for a single step: only a pause interrupts it
	intrSent  bool // an interrupt was sent during that wait
	runDone   chan struct{}
	threadID  string
	pid       int               // the program's process id (ProcessID)
	letGo     []string          // the files of the processes let go after a fork, their children followed
	handles   map[uint64]uint64 // threads' pthread_t by thread id (threadHandles)
	parked    map[string]uint64 // threads stopped at a breakpoint, by stub id: its address (parked.go)
	// afterSyscall remembers, by pc, whether a syscall instruction ends right before it
	// (blockedInSyscall: read from the file once per pc, not at every step).
	afterSyscall map[uint64]bool
	tlsOf        map[string]tlsLayout // glibc's TLS layout, by libc's path, read once (tls.go)
	lastStop     StopReply
	stopCache    *stopCache
	refs         map[int]refEntry
	nextRef      int
	watches      []*watch // armed watchpoints (watch.go)
	nptl         bool     // glibc's thread events are asked for (nptl_events.go)
	elfPath      string   // the program's file, as given (modules.go)
	libsMu       sync.Mutex
	libs         map[string]elfsym.LibraryInfo       // the libraries' files, read once (modules.go)
	history      atomic.Pointer[engine.ValueHistory] // a front end's $1, $v, for values kept whole (UseHistory)
}

// Connect attaches to a stub at addr (HOST:PORT) debugging the ELF file elfPath.
func Connect(ctx context.Context, addr, elfPath string, cfg Config) (*Target, error) {
	return connect(ctx, addr, elfPath, cfg, nil, false)
}

// LaunchNative starts prog under gdbserver on a free loopback port and connects to it.
// Program output reaches the handler as "stdout" output events.
func LaunchNative(ctx context.Context, prog string, args []string, cfg Config) (*Target, error) {
	return LaunchNativeIn(ctx, prog, args, "", nil, cfg)
}

// LaunchNativeIn is LaunchNative with the program started in directory dir (polydbg's when
// empty) with the complete environment env (polydbg's when nil).
func LaunchNativeIn(ctx context.Context, prog string, args []string, dir string, env []string, cfg Config) (*Target, error) {
	return LaunchNativeRun(ctx, prog, NativeRun{Args: args, Dir: dir, Env: env}, cfg)
}

// NativeRun is how a native program is started: its arguments, working directory and
// environment (polydbg's when empty), and files for its standard input and output
// (nil: none for its input, polydbg's for its output).
type NativeRun struct {
	Args          []string
	Dir           string
	Env           []string
	Stdin, Stdout *os.File
}

// LaunchNativeRun is LaunchNativeIn with the whole of how the program starts.
func LaunchNativeRun(ctx context.Context, prog string, run NativeRun, cfg Config) (*Target, error) {
	return launch(ctx, prog, cfg, true, func(opts StubOptions) (*Stub, error) {
		opts.Dir, opts.Env, opts.Stdin, opts.Stdout = run.Dir, run.Env, run.Stdin, run.Stdout
		return StartGdbserver(ctx, prog, run.Args, opts)
	})
}

// AttachNative attaches to the running process pid through a gdbserver of its own on
// loopback (gdb's attach), with the symbols of elfPath ("" for the process's executable).
// The process stays stopped where it was found until it is resumed; closing the target
// detaches from it, leaving it running.
func AttachNative(ctx context.Context, pid int, elfPath string, cfg Config) (*Target, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("gdbremote: no process %d to attach to", pid)
	}
	if elfPath == "" {
		exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
		if err != nil {
			return nil, fmt.Errorf("gdbremote: process %d: %w", pid, err)
		}
		elfPath = exe
	}
	t, err := launch(ctx, elfPath, cfg, true, func(opts StubOptions) (*Stub, error) {
		return StartGdbserverAttach(ctx, pid, opts)
	})
	if err != nil {
		return nil, err
	}
	t.attached = true
	return t, nil
}

// Attached implements engine.AttachedTarget.
func (t *Target) Attached() bool { return t.attached }

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
	sym, err := elfsym.OpenWith(elfPath, cfg.DebugDirs)
	if err != nil {
		return nil, err
	}
	t := &Target{sym: sym, stub: stub, log: cfg.Logger, traps: map[uint64]*trap{}, refs: map[int]refEntry{},
		handles: map[uint64]uint64{}, parked: map[string]uint64{}, opQueued: make(chan struct{}, 1)}
	t.elfPath, t.addr, t.local = elfPath, addr, stub != nil && extended
	if stub != nil {
		t.sink, _ = stub.outW.(*lineSink) // drained before the exit is reported
	}
	if t.log == nil {
		t.log = slog.Default()
	}
	t.ctx, t.stop = context.WithCancel(context.Background())
	c, err := Dial(ctx, addr, Options{Timeout: cfg.Timeout, Extended: extended, Logger: cfg.Logger,
		FollowForks: !sym.BareMetalARM(), // a program under an operating system may fork
		Output:      func(s string) { t.output("console", s) },
		Followed:    t.followed})
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
		sym.SetFileAddresses(true) // until Start: before run, as gdb, addresses are the file's
	}
	if !cfg.NoThreadEvents {
		err := c.EnableThreadEvents(ctx, t.threadEvent)
		if errors.Is(err, ErrUnsupported) {
			t.nptl = t.askReportEvents(ctx) == nil // armed at the entry point (Start)
		} else if err != nil {
			return fail(err)
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

// LoadWarnings implements engine.LoadWarner: what reading the program's symbols left out.
func (t *Target) LoadWarnings() []string { return t.sym.Warnings() }

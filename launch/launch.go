// Package launch turns one description of a debuggee (a Kite file, a console cartridge, a
// native program under gdbserver, firmware in QEMU, any GDB stub) into a running
// engine.Session. Front ends and the command line start debuggees only through it, so that
// every protocol offers the same kinds of target with the same options, and DAP's and MCP's
// launch configurations map onto a Spec one to one (the role Delve's service/debugger plays).
package launch

import (
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/polydbg/polydbg/backend/core"
	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/backend/mcu"
	"github.com/polydbg/polydbg/backend/mcu/svd"
	"github.com/polydbg/polydbg/backend/process"
	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/vm"
)

// Kind names a kind of debuggee.
type Kind string

const (
	Kite      Kind = "kite"      // Program is a .kite source file
	Cartridge Kind = "cartridge" // Program is a console cartridge (directory or built file)
	Native    Kind = "native"    // Program is a Linux executable, run under gdbserver
	Process   Kind = "process"   // Program is a Linux executable, run under plain supervision (output, exit, terminate; no breakpoints)
	QEMU      Kind = "qemu"      // ELF is firmware for qemu-system-arm's Machine
	Remote    Kind = "remote"    // Address is a running GDB stub (QEMU, OpenOCD, probe-rs, gdbserver, a lantern session) debugging ELF
	Attach    Kind = "attach"    // PID is a running Linux process, attached to under gdbserver (ELF: its executable when empty)
	Core      Kind = "core"      // Core is a core dump of Program (x86-64 Linux), inspected after its end
)

// Spec describes one debuggee. The zero value of every option works.
type Spec struct {
	Kind    Kind     // empty: Detect(Program)
	Program string   // the Kite file, cartridge or executable
	Source  []byte   // a Kite program's source, when it is not read from Program (which names it)
	Args    []string // the program's arguments (Native)
	ELF     string   // the firmware or program with its symbols (QEMU, Remote; Native defaults to Program)
	Machine string   // a qemu-system-arm machine: lm3s6965evb, mps2-an385... (QEMU)
	Address string   // HOST:PORT of a GDB stub (Remote)
	PID     int      // the process to attach to (Attach)
	Core    string   // the core dump (Core); Program is its executable (the dump's first mapped file when empty)
	SVD     string   // the device's SVD file: peripherals by name (QEMU, Remote)

	// Dir and Env are a native program's working directory and complete environment
	// (polydbg's own when empty, nil).
	Dir string
	Env []string
	// StdinFile and StdoutFile redirect a native program's standard input from and output
	// to files (gdb's run < IN > OUT; relative to Dir), StdoutAppend adding to the file (>>).
	StdinFile, StdoutFile string
	StdoutAppend          bool

	// QEMUSerial are QEMU's -serial backends (UART0, UART1...); none means "-serial null".
	QEMUSerial []string
	// Console configures a cartridge's console (frame rate, seed, telemetry).
	Console console.Options
	// Profile records a statement profile of a Kite program (Debuggee.Profiler).
	Profile bool
	// Seed seeds a Kite program's rnd() (0 means 1).
	Seed uint64
	// Remote configures the GDB remote client (exchange timeout, logger).
	Remote gdbremote.Config
	// Supervision of a Process: its argv[0] (Program when empty), its stdin (none when nil)
	// and how long it has to end after SIGTERM before SIGKILL.
	Argv0     string
	Stdin     io.Reader
	TermGrace time.Duration
	MCU       MCUOptions // the microcontroller service's options (Native, QEMU, Remote)
}

// Debuggee is a started Spec: its session, and what its kind adds.
type Debuggee struct {
	*engine.Session
	Spec     Spec
	Console  *console.Console  // Cartridge
	Profiler *profile.Profiler // Kite with Spec.Profile
	Device   *svd.Device       // QEMU and Remote with Spec.SVD
	MCU      *mcu.Service      // Native, QEMU and Remote: RTT, samples, tasks, peripherals
}

// Detect says what kind of debuggee a file is: an ELF executable runs natively, a directory
// is a cartridge, anything else a Kite source.
func Detect(path string) Kind {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return Cartridge
	}
	if f, err := openRegular(path); err == nil { // never blocks on a FIFO; an executable may be large
		defer f.Close()
		magic := make([]byte, 4)
		if _, err := io.ReadFull(f, magic); err == nil && bytes.Equal(magic, []byte("\x7fELF")) {
			return Native
		}
	}
	return Kite
}

// IsCore reports whether path is an ELF core dump.
func IsCore(path string) bool {
	f, err := openRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, 18)
	if _, err := io.ReadFull(f, hdr); err != nil || !bytes.Equal(hdr[:4], []byte("\x7fELF")) {
		return false
	}
	typ := uint16(hdr[16]) | uint16(hdr[17])<<8 // e_type (little-endian)
	if hdr[5] == 2 {                            // ELFDATA2MSB
		typ = uint16(hdr[16])<<8 | uint16(hdr[17])
	}
	return elf.Type(typ) == elf.ET_CORE
}

// ProgramPath is the absolute path of a program to run: a name without a slash is looked
// up on PATH, as a shell does (a name not found there stays relative to the directory).
func ProgramPath(name string) string {
	if name != "" && !strings.Contains(name, "/") {
		if p, err := exec.LookPath(name); err == nil {
			name = p
		}
	}
	if abs, err := filepath.Abs(name); err == nil && name != "" {
		return abs
	}
	return name
}

// Resolved is the spec as a client's configuration means it: its paths absolute, a QEMU or
// Remote debuggee's ELF its Program when not given, and its kind detected from the program
// when not given (what DAP's and MCP's launch arguments leave out).
func (s Spec) Resolved() Spec {
	for _, p := range []*string{&s.Program, &s.ELF, &s.SVD, &s.Core} {
		if *p != "" {
			if a, err := filepath.Abs(*p); err == nil {
				*p = a
			}
		}
	}
	if (s.Kind == QEMU || s.Kind == Remote) && s.ELF == "" {
		s.ELF = s.Program
	}
	switch {
	case s.Kind == "" && s.Core != "":
		s.Kind = Core
	case s.Kind == "" && s.Program != "" && s.Source == nil:
		s.Kind = Detect(s.Program)
	}
	return s
}

// Name is what the debuggee is called in lists of sessions: its program's file name, or
// its ELF's, or the process attached to.
func (s Spec) Name() string {
	if s.Program == "" && s.ELF == "" && s.PID > 0 {
		return fmt.Sprintf("process %d", s.PID)
	}
	if s.Program == "" {
		return filepath.Base(s.ELF)
	}
	return filepath.Base(s.Program)
}

// Start makes the debuggee's session, in state Initialized (Session.Start runs it). For
// targets behind a GDB stub, the stub is started or connected to now: ctx bounds that.
func Start(ctx context.Context, spec Spec) (*Debuggee, error) {
	if spec.Kind == "" && spec.Source != nil {
		spec.Kind = Kite
	}
	if spec.Kind == "" {
		if spec.Program == "" {
			return nil, errors.New("launch: nothing to debug: give a program")
		}
		spec.Kind = Detect(spec.Program)
	}
	if spec.Kind == Native || spec.Kind == Process || spec.Kind == Core && spec.Program != "" {
		spec.Program = ProgramPath(spec.Program)
	}
	d := &Debuggee{Spec: spec}
	var t engine.Target
	var err error
	switch spec.Kind {
	case Kite:
		t, err = d.kite()
	case Cartridge:
		t, err = d.cartridge()
	case Process:
		t = process.NewTarget(process.Spec{Path: spec.Program, Argv0: spec.Argv0, Args: spec.Args, Stdin: spec.Stdin}, spec.TermGrace)
	case Native, QEMU, Remote, Attach:
		t, err = d.remote(ctx)
	case Core:
		t, err = d.core(ctx)
	default:
		return nil, fmt.Errorf("launch: unknown kind %q (want kite, cartridge, native, attach, core, qemu or remote)", spec.Kind)
	}
	if err != nil {
		return nil, err
	}
	d.Session = engine.NewSession(t)
	d.startMCU()
	return d, nil
}

// KiteMemory is the live-value report of a Kite program, taken when it ended (zero for
// other kinds, or before the end).
func (d *Debuggee) KiteMemory() vm.MemStats {
	if t, ok := d.Target().(*kitevm.Target); ok {
		return t.Memory()
	}
	return vm.MemStats{}
}

// Restart makes a fresh debuggee from the same spec, with the breakpoints and watches of
// this one (same ids), and closes this one.
func (d *Debuggee) Restart(ctx context.Context) (*Debuggee, error) {
	bps, watches, catches := d.Breakpoints(), d.Watches(), d.Catchpoints()
	_ = d.Close()
	nd, err := Start(ctx, d.Spec)
	if err != nil {
		return nil, err
	}
	nd.RestoreBreakpoints(bps)
	_ = nd.RestoreCatchpoints(catches) // (a DAP exception filter's catch throw)
	nd.ClearHitCounts()                // a new run
	for _, w := range watches {
		nd.AddWatch(w.Expr)
	}
	return nd, nil
}

func (d *Debuggee) kite() (engine.Target, error) {
	if d.Spec.Program == "" {
		return nil, errors.New("launch: no Kite program given")
	}
	var prog *compile.Program
	var err error
	if d.Spec.Source != nil {
		prog, err = kite.Compile(d.Spec.Program, d.Spec.Source, nil)
	} else {
		prog, err = kite.CompileFile(d.Spec.Program, nil)
	}
	if err != nil {
		return nil, err
	}
	opts := kitevm.Options{Seed: d.Spec.Seed}
	if d.Spec.Profile {
		d.Profiler = &profile.Profiler{}
		opts.Profiler = d.Profiler
	}
	return kitevm.New(prog, opts)
}

func (d *Debuggee) cartridge() (engine.Target, error) {
	cart, err := console.Load(d.Spec.Program)
	if err != nil {
		return nil, err
	}
	con, err := console.New(cart, d.Spec.Console)
	if err != nil {
		return nil, err
	}
	d.Console = con
	return con.Target(), nil
}

func (d *Debuggee) remote(ctx context.Context) (engine.Target, error) {
	s := d.Spec
	if s.SVD != "" {
		dev, err := svd.ParseFile(s.SVD)
		if err != nil {
			return nil, err
		}
		d.Device = dev
	}
	switch s.Kind {
	case Native:
		if s.Program == "" {
			return nil, errors.New("launch: no program given")
		}
		if err := CheckRunsHere(s.Program); err != nil {
			return nil, err
		}
		run := gdbremote.NativeRun{Args: s.Args, Dir: s.Dir, Env: s.Env}
		closeIO, err := openRedirections(s, &run)
		if err != nil {
			return nil, err
		}
		defer closeIO() // gdbserver, which the program inherits them from, has its own
		return gdbremote.LaunchNativeRun(ctx, s.Program, run, s.Remote)
	case Attach:
		return gdbremote.AttachNative(ctx, s.PID, s.ELF, s.Remote)
	case QEMU:
		if s.Machine == "" || s.ELF == "" {
			return nil, errors.New("launch: QEMU needs a machine and an ELF file")
		}
		return gdbremote.StartQEMUWith(ctx, s.Machine, s.ELF, gdbremote.QEMUOptions{Serial: s.QEMUSerial}, s.Remote)
	}
	if s.Address == "" || s.ELF == "" {
		return nil, errors.New("launch: a remote stub needs an address (HOST:PORT) and an ELF file")
	}
	return gdbremote.Connect(ctx, s.Address, s.ELF, s.Remote)
}

// core opens a core dump and debugs it through a stub that serves it (backend/core).
func (d *Debuggee) core(ctx context.Context) (engine.Target, error) {
	if d.Spec.Core == "" {
		return nil, errors.New("launch: no core dump given")
	}
	cf, err := core.Open(d.Spec.Core)
	if err != nil {
		return nil, err
	}
	if d.Spec.Program == "" && len(cf.Mappings) > 0 {
		d.Spec.Program = cf.Mappings[0].Path // the program's own file is mapped first
	}
	if d.Spec.Program == "" {
		cf.Close()
		return nil, errors.New("launch: the core dump does not name its program: give the executable")
	}
	stub, err := core.Serve(cf, d.Spec.Program)
	if err != nil {
		cf.Close()
		return nil, err
	}
	release := func() { stub.Close(); cf.Close() }
	t, err := gdbremote.ConnectCore(ctx, stub.Addr, d.Spec.Program, d.Spec.Remote,
		gdbremote.CoreInfo{Args: cf.Args, Signal: cf.Signal(), Close: release})
	if err != nil {
		release()
		return nil, err
	}
	return t, nil
}

// ProcessStatus is how a supervised Process ended (its exit code, or the signal that
// killed it); ok is false for other kinds or while it runs.
func (d *Debuggee) ProcessStatus() (st process.Status, ok bool) {
	if t, is := d.Target().(*process.Target); is {
		return t.Status()
	}
	return process.Status{}, false
}

// DefaultDebugDir is where a stripped program's or library's separate debug file is looked
// for while no other folder is set (engine.Session.SetDebugDirs; gdb's debug-file-directory).
const DefaultDebugDir = elfsym.DefaultDebugDir

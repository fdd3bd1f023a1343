package gdbremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"

	"github.com/polydbg/polydbg/backend/process"
)

// Stub is a stub process polydbg started: gdbserver or QEMU. It is started by
// process.StartHelper, the one spawner of helper processes (own process group, death
// signal, guarded against polydbg being killed).
type Stub struct {
	Addr string           // HOST:PORT of its GDB stub
	Proc *process.Process // the stub process

	out       *lockedBuffer
	outW      io.Writer // StubOptions.Output
	inferior  int       // gdbserver: the program's pid, which leads its own process group
	announced []byte    // the output that made it ready ("Listening on port N")
	unguardIn func()
}

// Output returns what the stub process (and, for gdbserver, the debugged program) wrote to
// stdout and stderr so far.
func (s *Stub) Output() string { return s.out.String() }

// Exited is closed when the stub process has ended and its output has been read.
func (s *Stub) Exited() <-chan struct{} { return s.Proc.Done() }

// DrainOutput takes, at once, every byte the stub and the programs it runs have written to
// its stdout and stderr so far and passes it on (Stub.Output, StubOptions.Output). After
// the debugged program has exited, everything it printed has been delivered when
// DrainOutput returns.
func (s *Stub) DrainOutput() { s.Proc.Drain() }

// Stop kills the stub process (and its process group, and the process group of the
// program gdbserver started) and waits for it.
func (s *Stub) Stop() error {
	s.Proc.Kill()
	if s.inferior != 0 {
		process.SignalGroup(s.inferior, syscall.SIGKILL)
		s.unguardIn()
	}
	return nil
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// each write is also offered to tee
	tee func([]byte)
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.tee != nil {
		l.tee(p)
	}
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// StubOptions configure StartGdbserver and StartQEMU.
type StubOptions struct {
	// Program output (stdout and stderr of the stub process) is copied here as it comes,
	// besides being kept for Stub.Output.
	Output io.Writer
	// Path of the executable (default "gdbserver" / "qemu-system-arm" on PATH).
	Path string
	// Extra arguments for the stub before the program (gdbserver) or at the end (QEMU).
	Extra []string
	// Serial gives QEMU's -serial backends in order (UART0, UART1...), e.g.
	// "file:/tmp/u0"; none means "-serial null". Not used by gdbserver.
	Serial []string
	// OnWaiting is told, after a second, what the start still waits for (see
	// process.HelperSpec); nil logs it with slog.
	OnWaiting func(msg string)
	// Dir and Env are the stub's working directory and complete environment, which
	// gdbserver passes on to the program it starts (empty, nil: polydbg's own).
	Dir string
	Env []string
	// Stdin and Stdout, when set, are the stub's standard input and output, which
	// gdbserver's program inherits (run < IN > OUT); its standard error stays the pipe.
	Stdin, Stdout *os.File

	attach bool // gdbserver attaches to a running process, which outlives it (StartGdbserverAttach)
}

// startStub starts a stub with process.StartHelper and returns once it is ready.
func startStub(ctx context.Context, hs process.HelperSpec, opts StubOptions) (*Stub, error) {
	path, err := exec.LookPath(hs.Path)
	if err != nil {
		return nil, fmt.Errorf("gdbremote: %w", err)
	}
	hs.Path = path
	s := &Stub{out: &lockedBuffer{}, outW: opts.Output, unguardIn: func() {}}
	if opts.Output != nil {
		w := opts.Output
		s.out.tee = func(p []byte) { w.Write(p) }
	}
	hs.MergeOutput = true
	hs.OnOutput = func(_ process.Stream, b []byte) { s.out.Write(b) }
	hs.OnWaiting = opts.OnWaiting
	h, err := process.StartHelper(ctx, hs)
	if err != nil {
		return nil, fmt.Errorf("gdbremote: %w", err)
	}
	s.Proc, s.announced = h.Process, h.Announced()
	if pid := process.GdbserverInferior(h.Announced()); pid > 1 && hs.Ready != nil && !opts.attach {
		s.inferior, s.unguardIn = pid, process.Guard(pid)
	}
	return s, nil
}

// StartGdbserver starts gdbserver for prog on a free loopback port, in extended mode
// (--multi is not needed: the client sends "!"), and returns when it listens.
func StartGdbserver(ctx context.Context, prog string, args []string, opts StubOptions) (*Stub, error) {
	path := opts.Path
	if path == "" {
		path = "gdbserver"
	}
	argv := append([]string{}, opts.Extra...)
	argv = append(argv, "127.0.0.1:0", prog)
	argv = append(argv, args...)
	spec := process.Spec{Path: path, Argv0: path, Args: argv, Dir: opts.Dir, Env: opts.Env, Stdout: opts.Stdout}
	if opts.Stdin != nil {
		spec.Stdin = opts.Stdin
	}
	s, err := startStub(ctx, process.HelperSpec{
		Spec:  spec,
		Name:  "gdbserver",
		Ready: process.GdbserverListening,
	}, opts)
	if err != nil {
		return nil, err
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(process.GdbserverPort(s.announced)) // what made it ready: the output may still be on its way
	return s, nil
}

// StartGdbserverAttach starts gdbserver attached to the running process pid (gdb's attach),
// on a free loopback port, and returns when it listens. The process is not polydbg's: it is
// neither killed with the stub nor when polydbg dies, and a detach lets it go on.
func StartGdbserverAttach(ctx context.Context, pid int, opts StubOptions) (*Stub, error) {
	path := opts.Path
	if path == "" {
		path = "gdbserver"
	}
	argv := append([]string{}, opts.Extra...)
	argv = append(argv, "--attach", "127.0.0.1:0", strconv.Itoa(pid))
	opts.attach = true
	s, err := startStub(ctx, process.HelperSpec{
		Spec:  process.Spec{Path: path, Argv0: path, Args: argv},
		Name:  "gdbserver",
		Ready: process.GdbserverListening,
	}, opts)
	if err != nil {
		return nil, err
	}
	s.Addr = "127.0.0.1:" + strconv.Itoa(process.GdbserverPort(s.announced))
	return s, nil
}

// StartQEMU starts qemu-system-arm for machine (e.g. "lm3s6965evb", "mps2-an385") with the
// ELF file loaded, halted at reset (-S), its GDB stub on a free loopback port, and
// semihosting output on its stdout. It returns when the stub accepts connections.
func StartQEMU(ctx context.Context, machine, elfPath string, opts StubOptions) (*Stub, error) {
	path := opts.Path
	if path == "" {
		path = "qemu-system-arm"
	}
	serial := opts.Serial
	if len(serial) == 0 {
		serial = []string{"null"}
	}
	var lastErr error
	for range 5 {
		port, err := process.FreePort("127.0.0.1", 0, 0, nil)
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		argv := []string{"-M", machine, "-nographic", "-monitor", "none"}
		for _, s := range serial {
			argv = append(argv, "-serial", s)
		}
		argv = append(argv, "-semihosting-config", "enable=on,target=native",
			"-S", "-gdb", "tcp:"+addr, "-kernel", elfPath)
		argv = append(argv, opts.Extra...)
		s, err := startStub(ctx, process.HelperSpec{
			Spec:   process.Spec{Path: path, Argv0: path, Args: argv},
			Name:   "qemu",
			Listen: addr, // QEMU listens before it starts the machine
		}, opts)
		var exited *process.ExitError
		if errors.As(err, &exited) {
			lastErr = err
			continue // probably lost the port to someone else: try another
		}
		if err != nil {
			return nil, err
		}
		s.Addr = addr
		return s, nil
	}
	return nil, lastErr
}

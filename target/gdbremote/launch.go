package gdbremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Stub is a stub process polydbg started: gdbserver or QEMU.
type Stub struct {
	Addr string // HOST:PORT of its GDB stub
	Cmd  *exec.Cmd

	out      *lockedBuffer
	waitOnce sync.Once
	waitErr  error
	exited   chan struct{}
}

// Output returns what the stub process (and, for gdbserver, the debugged program) wrote to
// stdout and stderr so far.
func (s *Stub) Output() string { return s.out.String() }

// Exited is closed when the stub process has ended.
func (s *Stub) Exited() <-chan struct{} { return s.exited }

// Stop kills the stub process (and its process group) and waits for it.
func (s *Stub) Stop() error {
	select {
	case <-s.exited:
	default:
		if s.Cmd.Process != nil {
			syscall.Kill(-s.Cmd.Process.Pid, syscall.SIGKILL)
		}
		<-s.exited
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
}

func startStub(cmd *exec.Cmd, opts StubOptions) (*Stub, *lockedBuffer, error) {
	s := &Stub{Cmd: cmd, out: &lockedBuffer{}, exited: make(chan struct{})}
	if opts.Output != nil {
		w := opts.Output
		s.out.tee = func(p []byte) { w.Write(p) }
	}
	cmd.Stdout = s.out
	cmd.Stderr = s.out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, nil, fmt.Errorf("gdbremote: start %s: %w", cmd.Path, err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	return s, s.out, nil
}

var listenRE = regexp.MustCompile(`Listening on port (\d+)`)

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
	s, out, err := startStub(exec.Command(path, argv...), opts)
	if err != nil {
		return nil, err
	}
	for {
		if m := listenRE.FindStringSubmatch(out.String()); m != nil {
			s.Addr = "127.0.0.1:" + m[1]
			return s, nil
		}
		select {
		case <-s.exited:
			return nil, fmt.Errorf("gdbremote: gdbserver exited: %s", bytes.TrimSpace([]byte(out.String())))
		case <-ctx.Done():
			s.Stop()
			return nil, fmt.Errorf("gdbremote: gdbserver did not listen: %w", ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// StartQEMU starts qemu-system-arm for machine (e.g. "lm3s6965evb", "mps2-an385") with the
// ELF file loaded, halted at reset (-S), its GDB stub on a free loopback port, and
// semihosting output on its stdout. It returns when the stub accepts connections.
func StartQEMU(ctx context.Context, machine, elfPath string, opts StubOptions) (*Stub, error) {
	path := opts.Path
	if path == "" {
		path = "qemu-system-arm"
	}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		argv := []string{"-M", machine, "-nographic", "-monitor", "none", "-serial", "null",
			"-semihosting-config", "enable=on,target=native",
			"-S", "-gdb", "tcp:" + addr, "-kernel", elfPath}
		argv = append(argv, opts.Extra...)
		s, out, err := startStub(exec.Command(path, argv...), opts)
		if err != nil {
			return nil, err
		}
		s.Addr = addr
		// QEMU listens before it starts the machine; poll until the port answers.
		if err := waitListening(ctx, addr, s.exited); err == nil {
			return s, nil
		} else if errors.Is(err, errExited) {
			lastErr = fmt.Errorf("gdbremote: qemu exited: %s", bytes.TrimSpace([]byte(out.String())))
			continue // probably lost the port to someone else: try another
		} else {
			s.Stop()
			return nil, err
		}
	}
	return nil, lastErr
}

var errExited = errors.New("process exited")

// waitListening polls until something accepts connections on addr. The probe connection is
// closed at once; QEMU accepts the next one.
func waitListening(ctx context.Context, addr string, exited <-chan struct{}) error {
	for {
		// Do not connect: QEMU's stub serves one client and a probe would take its place.
		// Instead check the port is taken, by trying to listen on it.
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return nil
		}
		l.Close()
		select {
		case <-exited:
			return errExited
		case <-ctx.Done():
			return fmt.Errorf("gdbremote: %s does not listen: %w", addr, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("gdbremote: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

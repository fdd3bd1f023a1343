package gdbremote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
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

	out    *lockedBuffer
	pipe   *outPipe
	outW   io.Writer // StubOptions.Output
	exited chan struct{}
}

// Output returns what the stub process (and, for gdbserver, the debugged program) wrote to
// stdout and stderr so far.
func (s *Stub) Output() string { return s.out.String() }

// Exited is closed when the stub process has ended and its output has been read.
func (s *Stub) Exited() <-chan struct{} { return s.exited }

// DrainOutput takes, at once, every byte the stub and the programs it runs have written to
// its stdout and stderr so far and passes it on (Stub.Output, StubOptions.Output). After
// the debugged program has exited, everything it printed has been delivered when
// DrainOutput returns.
func (s *Stub) DrainOutput() { s.pipe.drain() }

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

// outPipe reads the stub's stdout and stderr from a pipe of our own (not os/exec's copying
// goroutine), so drain can take every byte already in the pipe: each read happens under
// mu, and the reader and drain both read until the pipe is empty.
type outPipe struct {
	mu   sync.Mutex
	r    *os.File
	rc   syscall.RawConn
	dst  io.Writer
	buf  [32 << 10]byte
	done chan struct{} // closed at EOF (every writer gone) or when r is closed
}

func newOutPipe(dst io.Writer) (p *outPipe, w *os.File, err error) {
	r, w, err := os.Pipe() // the read end is non-blocking and uses the poller
	if err != nil {
		return nil, nil, fmt.Errorf("gdbremote: output pipe: %w", err)
	}
	rc, err := r.SyscallConn()
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, fmt.Errorf("gdbremote: output pipe: %w", err)
	}
	return &outPipe{r: r, rc: rc, dst: dst, done: make(chan struct{})}, w, nil
}

// run reads until EOF; the poller wakes it whenever the pipe has data.
func (p *outPipe) run() {
	defer close(p.done)
	p.rc.Read(func(fd uintptr) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.readAvailable(fd)
	})
}

// readAvailable reads what the pipe holds, without blocking; it reports whether the pipe
// is finished (EOF or an error). mu is held.
func (p *outPipe) readAvailable(fd uintptr) (finished bool) {
	for {
		n, err := syscall.Read(int(fd), p.buf[:])
		switch {
		case n > 0:
			p.dst.Write(p.buf[:n])
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false
		default: // EOF or an error
			return true
		}
	}
}

func (p *outPipe) drain() {
	p.rc.Control(func(fd uintptr) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.readAvailable(fd)
	})
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
}

// outputGrace bounds how long an ended stub's output pipe stays open for programs it left
// behind that still hold it.
const outputGrace = time.Second

func startStub(cmd *exec.Cmd, opts StubOptions) (*Stub, *lockedBuffer, error) {
	s := &Stub{Cmd: cmd, out: &lockedBuffer{}, outW: opts.Output, exited: make(chan struct{})}
	if opts.Output != nil {
		w := opts.Output
		s.out.tee = func(p []byte) { w.Write(p) }
	}
	pipe, w, err := newOutPipe(s.out)
	if err != nil {
		return nil, nil, err
	}
	s.pipe = pipe
	cmd.Stdout = w
	cmd.Stderr = w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	w.Close() // the stub holds its own copy
	if err != nil {
		pipe.r.Close()
		return nil, nil, fmt.Errorf("gdbremote: start %s: %w", cmd.Path, err)
	}
	go pipe.run()
	go func() {
		cmd.Wait()
		select {
		case <-pipe.done:
		case <-time.After(outputGrace):
		}
		pipe.r.Close() // ends run if something still holds the pipe
		<-pipe.done
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
	serial := opts.Serial
	if len(serial) == 0 {
		serial = []string{"null"}
	}
	var lastErr error
	for range 5 {
		port, err := freePort()
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

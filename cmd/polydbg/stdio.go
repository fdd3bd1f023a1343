package main

import (
	"io"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// pollableStdin returns standard input ready for Go's poller when it is a pipe or a socket,
// so that a read waits in the runtime's poller instead of holding a thread in read(2): a
// command that arrives then wakes the goroutine that waits for it on the thread already
// running, without a thread hand-off (what a step's round trip costs over stdio). A terminal
// or a file is returned as it is. Only for a front end whose standard input carries its
// protocol alone: a child given this descriptor would find it non-blocking.
//
// Reads are raw read(2) calls, like protocolStdout's writes: an ordinary system call wakes
// the runtime's monitor thread (sysmon), asleep whenever the front end waits for its client,
// and that cost two more thread switches a step. The monitor is still woken when a Kite
// program runs long (backend/kitevm), for it to preempt the program so that the next
// command (a pause) is read.
func pollableStdin() io.Reader {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	rc, err := os.NewFile(0, "/dev/stdin").SyscallConn()
	if err != nil {
		return os.Stdin
	}
	return rawStdin{rc}
}

// rawStdin reads a non-blocking descriptor with raw read(2) calls, waiting in Go's poller
// while there is nothing to read.
type rawStdin struct{ rc syscall.RawConn }

func (r rawStdin) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		var n uintptr
		var errno syscall.Errno
		err := r.rc.Read(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			return errno != syscall.EAGAIN // false: wait until readable, then call again
		})
		switch {
		case err != nil:
			return 0, err
		case errno == syscall.EINTR:
		case errno != 0:
			return 0, &os.PathError{Op: "read", Path: "/dev/stdin", Err: errno}
		case n == 0:
			return 0, io.EOF
		default:
			return int(n), nil
		}
	}
}

// protocolStdout returns the writer for a stdio front end's answers, and the function that
// writes out what it still holds (call it before the process exits). When standard output
// is a pipe, it writes through a descriptor of its own on that pipe (opened again through
// /proc, so fd 1 and whoever shares it keep their blocking mode), non-blocking, with raw
// write(2) calls that wait in Go's poller when the pipe is full. A raw call does not go
// through the runtime's system-call entry, which wakes the monitor thread (sysmon) each
// time it sleeps: with one processor it sleeps whenever the front end waits for its client,
// so every answer cost a wake-up and two more thread switches (docs/PERFORMANCE.md). With
// burst, the writes of one burst (a response, then the stop's event) leave in one write(2)
// (burstWriter), for a front end that does not gather them itself. Anything else (a
// terminal, a file, a socket) gets os.Stdout as it is.
func protocolStdout(burst bool) (io.Writer, func()) {
	fi, err := os.Stdout.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return os.Stdout, func() {}
	}
	fd, err := syscall.Open("/proc/self/fd/1", syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return os.Stdout, func() {}
	}
	rc, err := os.NewFile(uintptr(fd), "/dev/stdout").SyscallConn()
	if err != nil {
		syscall.Close(fd)
		return os.Stdout, func() {}
	}
	if !burst {
		return rawWriter{rc}, func() {}
	}
	bw := newBurstWriter(rawWriter{rc})
	return bw, bw.flush
}

// burstMax bounds what a burstWriter holds: a writer beyond it waits for the write-out, so
// a client that stops reading still holds the program's output back.
const burstMax = 256 << 10

// burstWriter gathers the writes a front end makes in one burst into one write(2): Write
// queues the bytes and a goroutine of its own writes out what is queued once the writing
// goroutine lets it run (with one processor, when that goroutine waits for the next event or
// command). A failed write-out is returned by the next Write.
type burstWriter struct {
	w       io.Writer
	kick    chan struct{} // a write-out is due
	mu      sync.Mutex
	done    sync.Cond // signalled after each write-out
	buf     []byte
	spare   []byte // the buffer of the last write-out, reused
	writing bool   // a write-out is under way
	err     error
}

func newBurstWriter(w io.Writer) *burstWriter {
	b := &burstWriter{w: w, kick: make(chan struct{}, 1)}
	b.done.L = &b.mu
	go b.run()
	return b
}

func (b *burstWriter) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.err == nil && len(b.buf) >= burstMax {
		b.done.Wait()
	}
	if b.err != nil {
		return 0, b.err
	}
	b.buf = append(b.buf, p...)
	select {
	case b.kick <- struct{}{}:
	default: // one is due already
	}
	return len(p), nil
}

func (b *burstWriter) run() {
	for range b.kick {
		// Let what is runnable run first: the program's step, then the goroutine that
		// writes its event, whose bytes then leave with the response written before it.
		runtime.Gosched()
		b.writeOut()
	}
}

// writeOut writes what is queued, on the calling goroutine, unless a write-out is under
// way already (it then takes what was queued before it ends, or the next one does).
func (b *burstWriter) writeOut() {
	b.mu.Lock()
	if b.writing || len(b.buf) == 0 || b.err != nil {
		b.mu.Unlock()
		return
	}
	out := b.buf
	b.buf, b.spare = b.spare[:0], nil
	b.writing = true
	b.mu.Unlock()
	_, err := b.w.Write(out)
	b.mu.Lock()
	b.spare = out[:0]
	b.writing = false
	if err != nil && b.err == nil {
		b.err = err
	}
	b.done.Broadcast()
	b.mu.Unlock()
}

// writeOutFirst is a reader that writes out what w holds before each read: a front end
// that waits for its next command has said all it will say, and its client may be waiting
// for it (the terminal's answer and prompt leave at once, not after the read that parks).
type writeOutFirst struct {
	io.Reader
	w *burstWriter
}

func (r writeOutFirst) Read(p []byte) (int, error) {
	r.w.writeOut()
	return r.Reader.Read(p)
}

// flush waits until what was written has been written out (or the write-out failed).
func (b *burstWriter) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.err == nil && (len(b.buf) > 0 || b.writing) {
		b.done.Wait()
	}
}

// rawWriter writes a non-blocking descriptor with raw write(2) calls, waiting in Go's poller
// while it would block. It is a wire.TryWriter: a front end's wire.Outbox writes an answer
// on the goroutine that made it when the pipe has room.
type rawWriter struct{ rc syscall.RawConn }

// TryWrite writes what the pipe takes now, without waiting.
func (w rawWriter) TryWrite(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		var n uintptr
		var errno syscall.Errno
		err := w.rc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			return true
		})
		switch {
		case err != nil:
			return done, err
		case errno == syscall.EINTR:
		case errno == syscall.EAGAIN:
			return done, nil
		case errno != 0:
			return done, &os.PathError{Op: "write", Path: "/dev/stdout", Err: errno}
		default:
			done += int(n)
		}
	}
	return done, nil
}

func (w rawWriter) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		var n uintptr
		var errno syscall.Errno
		err := w.rc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			return errno != syscall.EAGAIN // false: wait until writable, then call again
		})
		switch {
		case err != nil:
			return done, err
		case errno == syscall.EINTR:
		case errno != 0:
			return done, &os.PathError{Op: "write", Path: "/dev/stdout", Err: errno}
		default:
			done += int(n)
		}
	}
	return done, nil
}

// oneProcessor runs Go code on one processor (GOMAXPROCS=1) unless the environment says
// otherwise, for a front end that serves one client over stdio: a command, the program's
// step and the answer then pass from goroutine to goroutine on the thread already running
// instead of waking another (half the thread switches of a step), and the Kite programs of
// bench/programs run as fast or faster (the collector has no other processor to coordinate
// with). Measured in docs/PERFORMANCE.md.
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

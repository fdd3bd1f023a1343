package main

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// protocolStdout returns the writer for a stdio front end's answers. When standard output
// is a pipe, it writes through a descriptor of its own on that pipe (opened again through
// /proc, so fd 1 and whoever shares it keep their blocking mode), non-blocking, with raw
// write(2) calls that wait in Go's poller when the pipe is full: a raw call does not go
// through the runtime's system-call entry, which would wake its monitor thread (sysmon)
// when it sleeps. It is a wire.TryWriter, so a wire.Outbox over it writes an answer on the
// goroutine that made it. Anything else (a terminal, a file, a socket) gets os.Stdout as
// it is.
func protocolStdout() io.Writer {
	fi, err := os.Stdout.Stat()
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		return os.Stdout
	}
	fd, err := syscall.Open("/proc/self/fd/1", syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return os.Stdout
	}
	f := os.NewFile(uintptr(fd), "/dev/stdout")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return os.Stdout
	}
	return rawWriter{rc, f}
}

// rawWriter writes a non-blocking descriptor (a pipe, a socket) with raw write(2) calls,
// waiting in Go's poller while it would block. It is a wire.TryWriter: a front end's
// wire.Outbox writes an answer on the goroutine that made it when the pipe has room.
type rawWriter struct {
	rc syscall.RawConn
	f  *os.File // the descriptor rc is of; nil when rawWriter does not own it (a socket)
}

// Close closes the descriptor of its own: a write that waits for the client to read
// returns at once (an MCP session closed on SIGTERM ends, whatever its client does).
func (w rawWriter) Close() error {
	if w.f == nil {
		return nil
	}
	return w.f.Close()
}

// TryWrite writes what the pipe takes now, without waiting.
func (w rawWriter) TryWrite(p []byte) (int, error) { return w.write(p, false) }

// Write writes all of p, waiting in the poller while the pipe is full.
func (w rawWriter) Write(p []byte) (int, error) { return w.write(p, true) }

// write writes p with raw write(2) calls; a full pipe ends it (wait false) or is waited
// for in the poller (wait true).
func (w rawWriter) write(p []byte, wait bool) (int, error) {
	done := 0
	for done < len(p) {
		var n uintptr
		var errno syscall.Errno
		err := w.rc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			return !wait || errno != syscall.EAGAIN // false: wait until writable, then call again
		})
		switch {
		case err != nil:
			return done, err
		case errno == syscall.EINTR:
		case errno == syscall.EAGAIN:
			return done, nil // not waiting: what the pipe took
		case errno != 0:
			return done, os.NewSyscallError("write", errno)
		default:
			done += int(n)
		}
	}
	return done, nil
}

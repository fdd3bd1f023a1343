package main

import (
	"io"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// pollWait sets this child up as polydbg's stdio front ends were until session 8: one
// processor, standard input non-blocking and read with raw read(2) calls that wait in Go's
// poller, answers written with raw write(2) calls. Beside the plain floor (a blocking read,
// as polydbg waits now) it shows what that way of waiting cost: a thread woken through
// epoll is left on the other CPU far more often (docs/PERFORMANCE.md, "Session 6", "Session 8").
func pollWait() (io.Reader, io.Writer) {
	runtime.GOMAXPROCS(1)
	if err := syscall.SetNonblock(0, true); err != nil {
		panic(err)
	}
	in, err := os.NewFile(0, "/dev/stdin").SyscallConn()
	if err != nil {
		panic(err)
	}
	fd, err := syscall.Open("/proc/self/fd/1", syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		panic(err)
	}
	out, err := os.NewFile(uintptr(fd), "/dev/stdout").SyscallConn()
	if err != nil {
		panic(err)
	}
	return rawIO{in}, rawIO{out}
}

// rawIO reads or writes a non-blocking descriptor with raw system calls, waiting in Go's
// poller while it would block: rawStdin and rawWriter of cmd/polydbg/stdio.go, copied on
// purpose (the floor must not link polydbg, and a command package cannot be imported).
type rawIO struct{ rc syscall.RawConn }

func (r rawIO) Read(p []byte) (int, error) {
	for {
		var n uintptr
		var errno syscall.Errno
		err := r.rc.Read(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			return errno != syscall.EAGAIN
		})
		switch {
		case err != nil:
			return 0, err
		case errno == syscall.EINTR:
		case errno != 0:
			return 0, errno
		case n == 0:
			return 0, io.EOF
		default:
			return int(n), nil
		}
	}
}

func (r rawIO) Write(p []byte) (int, error) {
	done := 0
	for done < len(p) {
		var n uintptr
		var errno syscall.Errno
		err := r.rc.Write(func(fd uintptr) bool {
			n, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done))
			return errno != syscall.EAGAIN
		})
		switch {
		case err != nil:
			return done, err
		case errno == syscall.EINTR:
		case errno != 0:
			return done, errno
		default:
			done += int(n)
		}
	}
	return done, nil
}

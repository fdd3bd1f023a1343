package process

import (
	"fmt"
	"os"
	"sync"
	"syscall"
)

// outPipe reads one output pipe of a program through the runtime poller rather than a
// blocking read, so that Drain can take every byte already in the pipe at once: each read
// happens under mu, and both the reader and Drain read until the pipe is empty.
type outPipe struct {
	mu   *sync.Mutex // shared by every pipe of a program: output callbacks never overlap
	r    *os.File
	rc   syscall.RawConn
	dst  func([]byte)
	buf  [32 << 10]byte
	done chan struct{} // closed at EOF (every writer gone) or when r is closed
}

// newOutPipe returns a pipe whose read end delivers to dst (under mu) and its write end
// for the child.
func newOutPipe(mu *sync.Mutex, dst func([]byte)) (*outPipe, *os.File, error) {
	r, w, err := os.Pipe() // the read end is non-blocking and uses the poller
	if err != nil {
		return nil, nil, fmt.Errorf("process: output pipe: %w", err)
	}
	rc, err := r.SyscallConn()
	if err != nil {
		r.Close()
		w.Close()
		return nil, nil, fmt.Errorf("process: output pipe: %w", err)
	}
	return &outPipe{mu: mu, r: r, rc: rc, dst: dst, done: make(chan struct{})}, w, nil
}

// run reads until EOF or until r is closed; the poller wakes it whenever the pipe has data.
func (p *outPipe) run() {
	defer close(p.done)
	p.rc.Read(func(fd uintptr) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.readAvailable(fd)
	})
}

// readAvailable reads what the pipe holds without blocking, and reports whether the pipe
// is finished (EOF or an error). mu is held.
func (p *outPipe) readAvailable(fd uintptr) (finished bool) {
	for {
		n, err := syscall.Read(int(fd), p.buf[:])
		switch {
		case n > 0:
			if p.dst != nil {
				p.dst(p.buf[:n])
			}
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return false
		default: // EOF or an error
			return true
		}
	}
}

// drain delivers, at once, whatever the pipe holds now.
func (p *outPipe) drain() {
	p.rc.Control(func(fd uintptr) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.readAvailable(fd)
	})
}

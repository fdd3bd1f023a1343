// Package upload receives a program that a client sends over a connection: the payload of
// a known size (read with a deadline per chunk, spliced by the kernel straight from the
// socket into the file), either one ELF executable kept in a sealed memfd, so it never
// touches the disk and cannot change while it runs, or a tar.gz bundle unpacked safely into
// a private directory with its executable checked. It knows nothing of the wire around the
// payload: the caller parsed the command that announced it.
package upload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/polydbg/polydbg/internal/memfd"
	"github.com/polydbg/polydbg/internal/tarball"
)

// Chunk is how much of a payload must arrive within ChunkTimeout.
const (
	Chunk        = 4 << 20
	ChunkTimeout = time.Minute
)

// ELFMagic is how every ELF file starts.
var ELFMagic = []byte{0x7f, 'E', 'L', 'F'}

// The kinds of failure, for the caller's error codes. Errors that wrap ErrPayload leave the
// connection out of step (the payload was not read to its end): the caller closes it. The
// others come once the whole payload was read.
var (
	ErrPayload  = errors.New("reading the upload")
	ErrMemfd    = errors.New("memfd_create failed")
	ErrNotELF   = errors.New("not an ELF file")
	ErrTempDir  = errors.New("creating the bundle directory")
	ErrExtract  = errors.New("unpacking the bundle")
	ErrExecPath = errors.New("bad executable path")
)

// Payload reads exactly Left bytes of a payload from a connection: first what the command
// reader Buf already buffered, then the socket itself, with a fresh deadline for every
// chunk so that a stalled client cannot hold the caller forever.
type Payload struct {
	Conn net.Conn
	Buf  *bufio.Reader
	Left int64
}

func (u *Payload) Read(p []byte) (int, error) {
	if u.Left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > u.Left {
		p = p[:u.Left]
	}
	var n int
	var err error
	if u.Buf.Buffered() > 0 {
		n, err = u.Buf.Read(p)
	} else {
		u.Conn.SetReadDeadline(time.Now().Add(ChunkTimeout))
		n, err = u.Conn.Read(p)
	}
	u.Left -= int64(n)
	if err == io.EOF && u.Left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// copyTo writes the rest of the payload to f: the buffered part, then straight from the
// socket with splice (os.File.ReadFrom: the kernel moves the bytes from the socket into the
// memfd, with no copy through this process and no buffer of its own), Chunk at a time,
// each chunk with its own deadline. Two goroutines copying through 1 MiB buffers, the
// earlier way, reached 0.5 – 0.76 of a bare io.Copy into a memfd (which splices).
func (u *Payload) copyTo(f *os.File) (int64, error) {
	var total int64
	if b := u.Buf.Buffered(); b > 0 && u.Left > 0 {
		n, err := io.CopyN(f, u.Buf, min(int64(b), u.Left))
		total += n
		u.Left -= n
		if err != nil {
			return total, err
		}
	}
	for u.Left > 0 {
		u.Conn.SetReadDeadline(time.Now().Add(ChunkTimeout))
		n, err := f.ReadFrom(io.LimitReader(u.Conn, min(u.Left, Chunk)))
		total += n
		u.Left -= n
		if err == nil && n == 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Discard reads and drops what is left of the payload, so the connection stays in step.
func (u *Payload) Discard() error {
	if _, err := io.Copy(io.Discard, u); err != nil {
		return fmt.Errorf("%w: %v", ErrPayload, err)
	}
	return nil
}

// Binary receives a single ELF executable into a new sealed memfd named name. A payload
// that does not start with the ELF magic is read to its end and refused with ErrNotELF.
func (u *Payload) Binary(name string) (*os.File, error) {
	magic := make([]byte, min(int64(len(ELFMagic)), u.Left))
	if _, err := io.ReadFull(u, magic); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if !bytes.Equal(magic, ELFMagic) {
		if err := u.Discard(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: the upload does not start with the ELF magic (7f 45 4c 46)", ErrNotELF)
	}
	f, err := memfd.New(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMemfd, err)
	}
	if _, err = f.Write(magic); err == nil {
		if _, err = u.copyTo(f); err == nil {
			err = memfd.Seal(f)
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	return f, nil
}

// Bundle unpacks a tar.gz bundle into a new private directory under base, within the
// limits, and checks that execPath in it is a regular ELF file, which it makes executable.
// The payload is always read to its end. It returns the directory (to remove on error
// too, when not "") and the bytes unpacked; room, when not nil, is asked whether the
// unpacked bytes may be kept (a budget).
func (u *Payload) Bundle(base, execPath string, lim tarball.Limits, room func(int64) bool) (dir string, n int64, err error) {
	dir, err = os.MkdirTemp(base, "bundle-")
	if err != nil {
		u.Discard()
		return "", 0, fmt.Errorf("%w: %v", ErrTempDir, err)
	}
	n, xerr := tarball.Extract(u, dir, lim)
	if xerr == nil && room != nil && !room(n) {
		xerr = fmt.Errorf("%w: unpacked size exceeds the daemon's byte budget", tarball.ErrUnsafe)
	}
	// Whatever happened, consume the rest of the payload (a tar ends before the gzip
	// stream, and a refused archive is not read further) to stay in step.
	if err := u.Discard(); err != nil {
		return dir, n, err
	}
	if xerr != nil {
		return dir, n, fmt.Errorf("%w: %v", ErrExtract, xerr)
	}
	return dir, n, CheckExecutable(dir, execPath)
}

// CheckExecutable checks that execPath (relative to dir, not leaving it) is a regular ELF
// file and makes it executable by its owner only.
func CheckExecutable(dir, execPath string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrExtract, err)
	}
	defer root.Close()
	fi, err := root.Lstat(execPath)
	if err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("%w: %q is not a regular file in the bundle", ErrExecPath, execPath)
	}
	f, err := root.Open(execPath)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrExecPath, err)
	}
	magic := make([]byte, len(ELFMagic))
	_, err = io.ReadFull(f, magic)
	f.Close()
	if err != nil || !bytes.Equal(magic, ELFMagic) {
		return fmt.Errorf("%w: %q is not an ELF file", ErrNotELF, execPath)
	}
	if err := root.Chmod(execPath, 0o700); err != nil {
		return fmt.Errorf("%w: %v", ErrExtract, err)
	}
	return nil
}

// LoadBinary copies a kept executable file into a new sealed memfd named name.
func LoadBinary(name, path string) (*os.File, error) {
	src, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	f, err := memfd.New(name)
	if err != nil {
		return nil, err
	}
	if _, err = io.Copy(f, src); err == nil {
		err = memfd.Seal(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Package memfd makes anonymous in-memory files (memfd_create) for programs that must run
// without ever being written to disk: uploads of the lantern daemon, and what
// backend/process runs from them.
package memfd

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// New creates an anonymous in-memory file (memfd_create) named name, to hold a program
// that must run without ever being written to disk. It is close-on-exec and can be sealed.
func New(name string) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, fmt.Errorf("memfd_create: %w", err)
	}
	return os.NewFile(uintptr(fd), "memfd:"+name), nil
}

// Seal makes a memfd immutable (no write, grow or shrink, and no further seals), so that
// the image a program runs from cannot change underneath it.
func Seal(f *os.File) error {
	_, err := unix.FcntlInt(f.Fd(), unix.F_ADD_SEALS,
		unix.F_SEAL_WRITE|unix.F_SEAL_GROW|unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL)
	if err != nil {
		return fmt.Errorf("seal memfd: %w", err)
	}
	return nil
}

// Supported reports whether this kernel can create memfds (Linux 3.17 and later).
func Supported() bool {
	f, err := New("polydbg-probe")
	if err != nil {
		return false
	}
	f.Close()
	return true
}

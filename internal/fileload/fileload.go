// Package fileload is the one rule for every file polydbg reads because a user named it:
// a Kite source, a cartridge's manifest and code, an ELF file, an SVD file, a script. The
// file must be a regular file (not /dev/zero, a FIFO, a directory or a device, which could
// be read forever or block) and at most MaxBytes long, so that a wrong path gives a clear
// error instead of a hang or an exhausted machine.
package fileload

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// MaxBytes is the largest file polydbg reads (64 MiB).
const MaxBytes = 64 << 20

// Open opens path for reading after checking, on the opened file itself, that it is a
// regular file of at most MaxBytes. Opening never blocks (a FIFO without a writer is
// refused, not waited for).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = check(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads path whole, under the same rule as Open (and never more than MaxBytes,
// even if the file grows while it is read).
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBytes {
		return nil, tooLarge(path)
	}
	return b, nil
}

// Check applies the rule to a path that another program will read (gdbserver, QEMU).
func Check(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	return check(path, fi)
}

func check(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > MaxBytes {
		return tooLarge(path)
	}
	return nil
}

func tooLarge(path string) error {
	return fmt.Errorf("%s is larger than %d MiB", path, MaxBytes>>20)
}

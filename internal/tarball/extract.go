// Package tarball reads and writes the gzip-compressed tar archives a daemon exchanges with
// its clients: it unpacks an untrusted archive safely (no path out of the target directory,
// no devices, bounded size and entries), and it packs a host's library directories into a
// sysroot a remote debugger can use.
package tarball

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Limits bound what an archive may unpack to, so that an archive bomb is refused
// while it is being read instead of filling the disk.
type Limits struct {
	// MaxBytes is the total size of the files it may create.
	MaxBytes int64
	// MaxEntries is the number of entries (files, directories, links) it may hold.
	MaxEntries int
}

// ErrUnsafe wraps every refusal of an archive entry (absolute path, "..", a link out
// of the archive, a device or FIFO) and every limit that was exceeded.
var ErrUnsafe = errors.New("unsafe archive")

// CleanPath checks that name is a relative path that stays inside the archive root and
// returns it cleaned ("./a//b" -> "a/b"; "." for the root itself).
func CleanPath(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: absolute or empty path %q", ErrUnsafe, name)
	}
	if strings.ContainsRune(name, 0) || strings.Contains(name, "\\") {
		return "", fmt.Errorf("%w: path %q has a NUL or backslash", ErrUnsafe, name)
	}
	for _, part := range strings.Split(name, "/") {
		if part == ".." {
			return "", fmt.Errorf("%w: path %q contains \"..\"", ErrUnsafe, name)
		}
	}
	return path.Clean(name), nil
}

// Extract unpacks a gzip-compressed tar archive from r into dir, which must exist.
// Every file and directory it creates is private to the current user (0700/0600, keeping
// only the owner's execute bit), whatever the archive says. It refuses (with an error
// wrapping ErrUnsafe) absolute paths, "..", symbolic and hard links that resolve
// outside the archive, devices, FIFOs and anything else that is not a file, directory or
// link, and stops as soon as a limit would be exceeded. All writes go through an os.Root,
// so no entry can reach outside dir even through a link created by an earlier entry.
// It returns the bytes written. On error, what was already unpacked stays in dir: the
// caller removes dir.
func Extract(r io.Reader, dir string, lim Limits) (int64, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, fmt.Errorf("not a gzip stream: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	tr := tar.NewReader(zr)
	var written int64
	entries := 0
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return written, nil
		}
		if err != nil {
			return written, fmt.Errorf("reading archive: %w", err)
		}
		entries++
		if lim.MaxEntries > 0 && entries > lim.MaxEntries {
			return written, fmt.Errorf("%w: more than %d entries", ErrUnsafe, lim.MaxEntries)
		}
		name, err := CleanPath(hdr.Name)
		if err != nil {
			return written, err
		}
		if name != "." {
			if err := root.MkdirAll(path.Dir(name), 0o700); err != nil {
				return written, fmt.Errorf("creating %s: %w", path.Dir(name), err)
			}
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			if name == "." {
				continue
			}
			if err := root.MkdirAll(name, 0o700); err != nil {
				return written, fmt.Errorf("creating %s: %w", name, err)
			}
		case tar.TypeReg: // the reader reports the old TypeRegA as TypeReg
			if hdr.Size < 0 || (lim.MaxBytes > 0 && written+hdr.Size > lim.MaxBytes) {
				return written, fmt.Errorf("%w: unpacked size exceeds %d bytes", ErrUnsafe, lim.MaxBytes)
			}
			perm := fs.FileMode(0o600)
			if hdr.Mode&0o111 != 0 {
				perm = 0o700
			}
			f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
			if err != nil {
				return written, fmt.Errorf("creating %s: %w", name, err)
			}
			n, err := io.CopyN(f, tr, hdr.Size)
			written += n
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return written, fmt.Errorf("writing %s: %w", name, err)
			}
		case tar.TypeSymlink:
			t := hdr.Linkname
			if t == "" || strings.HasPrefix(t, "/") {
				return written, fmt.Errorf("%w: symlink %s points to absolute path %q", ErrUnsafe, name, t)
			}
			if _, err := CleanPath(path.Join(path.Dir(name), t)); err != nil || strings.HasPrefix(path.Join(path.Dir(name), t), "..") {
				return written, fmt.Errorf("%w: symlink %s points outside the archive (%q)", ErrUnsafe, name, t)
			}
			if err := root.Symlink(t, name); err != nil {
				return written, fmt.Errorf("creating symlink %s: %w", name, err)
			}
		case tar.TypeLink:
			target, err := CleanPath(hdr.Linkname)
			if err != nil {
				return written, fmt.Errorf("%w: hard link %s: %v", ErrUnsafe, name, err)
			}
			if err := root.Link(target, name); err != nil {
				return written, fmt.Errorf("creating hard link %s: %w", name, err)
			}
		default:
			return written, fmt.Errorf("%w: entry %s has type %q (only files, directories and links are allowed)", ErrUnsafe, name, hdr.Typeflag)
		}
	}
}

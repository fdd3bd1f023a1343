package tarball

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// DefaultSysrootDirs are the library directories SYSROOT collects, as the document says.
var DefaultSysrootDirs = []string{"/lib", "/lib64", "/usr/lib", "/usr/lib/debug"}

// ErrNoLibs is returned when none of the sysroot directories exists.
var ErrNoLibs = errors.New("no system library directories found")

// sysrootWanted says whether a file belongs in a sysroot: gdb needs the shared objects the
// program loads (and the dynamic linker) and separate debug files, not the rest of /usr/lib
// (compilers, Python, JVMs...), which can be gigabytes.
func sysrootWanted(archiveName string, all bool) bool {
	if all {
		return true
	}
	base := path.Base(archiveName)
	return strings.HasSuffix(base, ".so") || strings.Contains(base, ".so.") ||
		strings.HasPrefix(archiveName, "usr/lib/debug/")
}

// WriteSysroot writes a gzip-compressed tar of the library directories dirs (absolute
// paths on the host, read below root, normally "/") to w. Files are dereferenced: every
// symbolic link inside the directories is stored as the file it points to, so the archive
// works wherever it is unpacked. A listed directory that is itself a symlink to another
// listed directory (Debian's /lib -> usr/lib) is stored as that relative symlink instead of
// a second copy; a listed directory inside another one is not walked twice. Unreadable
// files are skipped. all=false keeps only what a debugger needs (see sysrootWanted).
func WriteSysroot(w io.Writer, root string, dirs []string, all bool) (files int, err error) {
	if root == "" {
		root = "/"
	}
	type listed struct {
		name, real string
		link       bool // the listed path itself is a symbolic link
	}
	var present []listed
	for _, d := range dirs {
		d = path.Clean("/" + d)
		real, err := filepath.EvalSymlinks(filepath.Join(root, d))
		if err != nil {
			continue
		}
		lfi, err := os.Lstat(filepath.Join(root, d))
		if err != nil {
			continue
		}
		present = append(present, listed{d, real, lfi.Mode()&os.ModeSymlink != 0})
	}
	if len(present) == 0 {
		return 0, ErrNoLibs
	}
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	written := map[string]bool{}
	visited := map[[2]uint64]bool{}

	var walk func(hostDir, name string) error
	walk = func(hostDir, name string) error {
		fi, err := os.Stat(hostDir)
		if err != nil {
			return nil
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			key := [2]uint64{uint64(st.Dev), st.Ino}
			if visited[key] {
				return nil // a symlink loop or a second path to the same directory
			}
			visited[key] = true
		}
		ents, err := os.ReadDir(hostDir)
		if err != nil {
			return nil
		}
		for _, e := range ents {
			hp := filepath.Join(hostDir, e.Name())
			an := name + "/" + e.Name()
			fi, err := os.Stat(hp) // follows symlinks: dereferenced
			if err != nil {
				continue
			}
			switch {
			case fi.IsDir():
				if err := walk(hp, an); err != nil {
					return err
				}
			case fi.Mode().IsRegular():
				if written[an] || !sysrootWanted(an, all) {
					continue
				}
				f, err := os.Open(hp)
				if err != nil {
					continue
				}
				hdr := &tar.Header{Typeflag: tar.TypeReg, Name: an, Size: fi.Size(), Mode: int64(fi.Mode().Perm()), ModTime: fi.ModTime()}
				if err := tw.WriteHeader(hdr); err != nil {
					f.Close()
					return err
				}
				n, err := io.CopyN(tw, f, fi.Size())
				f.Close()
				if err != nil {
					// The file shrank while being read: pad, the header is already out.
					if _, perr := io.CopyN(tw, zeroReader{}, fi.Size()-n); perr != nil {
						return perr
					}
				}
				written[an] = true
				files++
			}
		}
		return nil
	}

	for i, l := range present {
		name := strings.TrimPrefix(l.name, "/")
		cover := -1 // another listed directory that already holds this one's files
		for j, o := range present {
			if j != i && ((l.real == o.real && l.link && !o.link) || strings.HasPrefix(l.real, o.real+"/")) {
				cover = j
				break
			}
		}
		switch {
		case cover >= 0 && l.link:
			// Store the link, relative to where it sits, to the directory already stored.
			o := present[cover]
			target := path.Join(o.name, strings.TrimPrefix(l.real, o.real))
			rel, err := filepath.Rel(path.Dir(l.name), target)
			if err != nil {
				return files, err
			}
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: name, Linkname: rel, Mode: 0o777}); err != nil {
				return files, err
			}
		case cover >= 0:
			// Walked as part of the enclosing directory.
		default:
			if err := walk(l.real, name); err != nil {
				return files, err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return files, err
	}
	return files, zw.Close()
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// ErrTempFile wraps BuildSysroot's failure to create its temporary file (the host's
// fault, not the archive's).
var ErrTempFile = errors.New("creating the archive file")

// BuildSysroot writes the sysroot archive to a new unlinked temporary file in tmpDir and
// returns it rewound, with its size, so that a response header can carry the size before
// the bytes. Its errors wrap ErrTempFile or ErrNoLibs, or say the archive failed.
func BuildSysroot(tmpDir, root string, dirs []string, all bool) (*os.File, int64, error) {
	f, err := os.CreateTemp(tmpDir, "lantern-sysroot-*.tar.gz")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrTempFile, err)
	}
	os.Remove(f.Name()) // private and gone with the descriptor
	if _, err := WriteSysroot(f, root, dirs, all); err != nil {
		f.Close()
		if errors.Is(err, ErrNoLibs) {
			return nil, 0, err
		}
		return nil, 0, fmt.Errorf("writing the archive: %w", err)
	}
	size, err := f.Seek(0, io.SeekCurrent)
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

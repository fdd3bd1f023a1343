package tarball

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// archive makes a tar.gz of the given headers, each file with its body.
func archive(entries ...*tar.Header) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, h := range entries {
		body := []byte(h.Name)
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		tw.WriteHeader(h)
		if h.Typeflag == tar.TypeReg {
			tw.Write(body)
		}
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func file(name string, mode int64) *tar.Header {
	return &tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode}
}

// TestExtract: files, directories and links inside the archive unpack private; what would
// leave the directory, a device and the limits are refused with ErrUnsafe.
func TestExtract(t *testing.T) {
	dir := t.TempDir()
	good := archive(&tar.Header{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o777}, file("bin/app", 0o755), file("./etc//conf", 0o666),
		&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/conf", Linkname: "../etc/conf"},
		&tar.Header{Typeflag: tar.TypeLink, Name: "app2", Linkname: "bin/app"})
	n, err := Extract(bytes.NewReader(good), dir, Limits{})
	if err != nil || n != int64(len("bin/app")+len("./etc//conf")) {
		t.Fatalf("good archive: %d %v", n, err)
	}
	for name, perm := range map[string]fs.FileMode{"bin": 0o700, "bin/app": 0o700, "etc/conf": 0o600} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.Mode().Perm() != perm {
			t.Errorf("%s: %v %v, want %v", name, fi.Mode(), err, perm)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "bin/conf")); err != nil || string(b) != "./etc//conf" {
		t.Errorf("symlink: %q %v", b, err)
	}
	for name, a := range map[string][]byte{
		"dotdot":    archive(file("../x", 0o644)),
		"absolute":  archive(file("/tmp/x", 0o644)),
		"link out":  archive(&tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "../../etc/passwd"}),
		"link abs":  archive(&tar.Header{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "/etc/passwd"}),
		"hard out":  archive(&tar.Header{Typeflag: tar.TypeLink, Name: "l", Linkname: "../x"}),
		"device":    archive(&tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3}),
		"too big":   archive(file("big", 0o644), file("big2", 0o644)),
		"too many":  archive(file("a", 0o644), file("b", 0o644), file("c", 0o644)),
		"via link":  archive(&tar.Header{Typeflag: tar.TypeSymlink, Name: "up", Linkname: "."}, file("up/../../x", 0o644)),
		"backslash": archive(file(`a\..\..\x`, 0o644)),
	} {
		_, err := Extract(bytes.NewReader(a), t.TempDir(), Limits{MaxBytes: 4, MaxEntries: 2})
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("%s: %v, want ErrUnsafe", name, err)
		}
	}
	if _, err := Extract(bytes.NewReader([]byte("not gzip")), t.TempDir(), Limits{}); err == nil {
		t.Error("a stream that is not gzip was accepted")
	}
}

// FuzzExtract unpacks arbitrary bytes: it never panics, never writes outside its directory,
// keeps to its limits, and what it creates is private.
func FuzzExtract(f *testing.F) {
	f.Add(archive(file("a/b", 0o755), &tar.Header{Typeflag: tar.TypeSymlink, Name: "c", Linkname: "a/b"}))
	f.Add(archive(file("../x", 0o644)))
	f.Add(archive(&tar.Header{Typeflag: tar.TypeLink, Name: "h", Linkname: "a"}, file("a", 0o600)))
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		base := t.TempDir()
		dir := filepath.Join(base, "in")
		os.Mkdir(dir, 0o700)
		n, _ := Extract(bytes.NewReader(data), dir, Limits{MaxBytes: 1 << 16, MaxEntries: 64})
		if n > 1<<16 {
			t.Fatalf("wrote %d bytes, over the limit", n)
		}
		if ents, _ := os.ReadDir(base); len(ents) != 1 {
			t.Fatalf("something was written beside the directory: %v", ents)
		}
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type()&fs.ModeSymlink == 0 {
				if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
					t.Errorf("%s is %v: not private", p, fi.Mode())
				}
			}
			return nil
		})
	})
}

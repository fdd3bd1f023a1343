package tarball

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

func tarIndex(t *testing.T, data []byte) map[string]*tar.Header {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	idx := map[string]*tar.Header{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return idx
		}
		if err != nil {
			t.Fatal(err)
		}
		idx[h.Name] = h
	}
}

func TestSysrootArchive(t *testing.T) {
	root, libc, _ := realparts.HostRoot(t, false)
	var buf bytes.Buffer
	if _, err := WriteSysroot(&buf, root, DefaultSysrootDirs, false); err != nil {
		t.Fatal(err)
	}
	idx := tarIndex(t, buf.Bytes())
	if h := idx["lib"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "usr/lib" {
		t.Errorf("lib: %+v", h)
	}
	fi, _ := os.Stat(libc)
	if h := idx["usr/lib/x86_64-linux-gnu/libc.so.6"]; h == nil || h.Typeflag != tar.TypeReg || h.Size != fi.Size() {
		t.Errorf("libc not dereferenced: %+v", h)
	}
	if h := idx["lib64/ld-linux-x86-64.so.2"]; h == nil || h.Typeflag != tar.TypeReg {
		t.Errorf("ld.so: %+v", h)
	}
	if idx["usr/lib/debug/.build-id/ab/cdef.debug"] == nil {
		t.Error("debug file missing")
	}
	if idx["usr/lib/x86_64-linux-gnu/notes.txt"] != nil {
		t.Error("a file that is not a library was included")
	}
	buf.Reset()
	WriteSysroot(&buf, root, DefaultSysrootDirs, true)
	if tarIndex(t, buf.Bytes())["usr/lib/x86_64-linux-gnu/notes.txt"] == nil {
		t.Error("SysrootAll left out a file")
	}
	if _, err := WriteSysroot(io.Discard, t.TempDir(), DefaultSysrootDirs, false); err != ErrNoLibs {
		t.Errorf("empty root: %v", err)
	}
}

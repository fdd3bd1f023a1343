package lantern

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// fakeHostRoot builds a small host root that mirrors a merged-/usr Debian layout with
// symlinks to this machine's real C library and dynamic linker, so a test sysroot is
// small but real.
func fakeHostRoot(t *testing.T, realLibs bool) (root, libc, ldso string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake host root mirrors x86-64 library paths")
	}
	libc, ldso = "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"
	realparts.NeedFile(t, libc, ldso)
	root = t.TempDir()
	mk := func(p string) { os.MkdirAll(filepath.Join(root, p), 0o755) }
	mk("usr/lib/x86_64-linux-gnu")
	mk("usr/lib/debug/.build-id/ab")
	mk("lib64")
	os.Symlink("usr/lib", filepath.Join(root, "lib"))
	realLibc, _ := filepath.EvalSymlinks(libc)
	realLd, _ := filepath.EvalSymlinks(ldso)
	if !realLibs { // small stand-ins, for tests of the archive only
		realLibc, realLd = filepath.Join(root, "libc-stand-in"), filepath.Join(root, "ld-stand-in")
		os.WriteFile(realLibc, []byte("\x7fELF libc"), 0o755)
		os.WriteFile(realLd, []byte("\x7fELF ld.so"), 0o755)
		libc = realLibc
	}
	os.Symlink(realLibc, filepath.Join(root, "usr/lib/x86_64-linux-gnu/libc.so.6"))
	os.Symlink(realLd, filepath.Join(root, "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"))
	os.Symlink("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
	os.WriteFile(filepath.Join(root, "usr/lib/debug/.build-id/ab/cdef.debug"), []byte("debug info"), 0o644)
	os.WriteFile(filepath.Join(root, "usr/lib/x86_64-linux-gnu/notes.txt"), []byte("not a library"), 0o644)
	os.Symlink("..", filepath.Join(root, "usr/lib/x86_64-linux-gnu/loop")) // a directory loop
	return root, libc, ldso
}

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
	root, libc, _ := fakeHostRoot(t, false)
	var buf bytes.Buffer
	if _, err := writeSysroot(&buf, root, DefaultSysrootDirs, false); err != nil {
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
	writeSysroot(&buf, root, DefaultSysrootDirs, true)
	if tarIndex(t, buf.Bytes())["usr/lib/x86_64-linux-gnu/notes.txt"] == nil {
		t.Error("SysrootAll left out a file")
	}
	if _, err := writeSysroot(io.Discard, t.TempDir(), DefaultSysrootDirs, false); err != errNoLibs {
		t.Errorf("empty root: %v", err)
	}
}

func TestSysrootNoLibs(t *testing.T) {
	addr, _ := testServer(t, Config{SysrootRoot: t.TempDir()})
	c := dial(t, addr)
	_, err := c.Sysroot(io.Discard)
	if e, ok := err.(*Error); !ok || e.Code != "sysroot_no_libs" {
		t.Fatalf("got %v", err)
	}
	c.ok("LIST") // still in step
}

func TestSysrootWithGdb(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	dir := programs(t)
	root, _, _ := fakeHostRoot(t, true)
	addr, _ := testServer(t, Config{SysrootRoot: root})
	c := dial(t, addr)
	var buf bytes.Buffer
	n, err := c.Sysroot(&buf)
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("SYSROOT: %d %v", n, err)
	}
	sysroot := t.TempDir()
	if _, err := ExtractTarGz(&buf, sysroot, ExtractLimits{}); err != nil {
		t.Fatal(err)
	}
	c.ok("LIST") // the connection is in step after the payload
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " work")
	s := c.session("START " + id + " --debug")
	start := time.Now()
	out := gdbBatchSysroot(t, filepath.Join(dir, "prog"), sysroot, *s.DebugPort, "break work", "continue", "info sharedlibrary", "print x", "kill")
	t.Logf("gdb took %v", time.Since(start))
	if !strings.Contains(out, sysroot+"/lib/x86_64-linux-gnu/libc.so.6") || !strings.Contains(out, "$1 = 20") {
		t.Errorf("gdb did not use the sysroot:\n%s", out)
	}
	if strings.Contains(out, "warning: Unable to find dynamic linker breakpoint") || strings.Contains(out, "Could not load shared library symbols") {
		t.Errorf("gdb complained about the sysroot:\n%s", out)
	}
	c.waitState(id, StateStopped)
}

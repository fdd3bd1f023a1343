package realparts

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// HostRoot builds a small host root that mirrors a merged-/usr Debian layout with
// symlinks to this machine's real C library and dynamic linker, so a test sysroot is
// small but real. With realLibs false the libraries are small stand-ins (for tests of an
// archive only).
func HostRoot(t testing.TB, realLibs bool) (root, libc, ldso string) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the fake host root mirrors x86-64 library paths")
	}
	libc, ldso = "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2"
	NeedFile(t, libc, ldso)
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

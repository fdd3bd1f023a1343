package realparts

import (
	"debug/elf"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// StrippedLibSrc is the library of BuildStripped, lib.c: scale's statements are lines 3-4,
// and it calls a static function, twice.
const StrippedLibSrc = `static int twice(int x) { return 2 * x; }
int scale(int v, int by) {
	int r = twice(v) * by;
	return r;
}
`

// StrippedProg is the program of BuildStripped, prog.c: it calls add (lines 5-7), then
// the library's scale, and prints "40 5".
const StrippedProg = `#include <stdio.h>
int scale(int v, int by);
static int total;
int add(int a, int b) {
	int s = a + b;
	total += s;
	return s;
}
int main(void) {
	int n = add(2, 3);
	n = scale(n, 4);
	printf("%d %d\n", n, total);
	return 0;
}
`

// BuildStripped builds StrippedProg as dir/prog and StrippedLibSrc as dir/libsc.so with
// gcc -g -O0, then moves their debug information into separate files as distributions
// ship it: the program's into dir/.debug/prog.debug, found by its debug link; the
// library's under debugDir by its build id (debugDir/.build-id/ab/cdef….debug).
func BuildStripped(t testing.TB) (dir, exe, debugDir string) {
	t.Helper()
	Need(t, "gcc", "objcopy", "strip")
	dir = t.TempDir()
	for name, src := range map[string]string{"prog.c": StrippedProg, "lib.c": StrippedLibSrc} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lib, exe := filepath.Join(dir, "libsc.so"), filepath.Join(dir, "prog")
	debugDir = filepath.Join(dir, "debug")
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir // the units are named lib.c and prog.c
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
	}
	run("gcc", "-g", "-O0", "-shared", "-fPIC", "-Wl,--build-id", "-o", lib, "lib.c")
	run("gcc", "-g", "-O0", "-Wl,--build-id", "-o", exe, "prog.c", "-L.", "-lsc", "-Wl,-rpath,"+dir)
	id := BuildID(t, lib)
	byID := filepath.Join(debugDir, ".build-id", id[:2], id[2:]+".debug")
	for _, d := range []string{filepath.Dir(byID), filepath.Join(dir, ".debug")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run("objcopy", "--only-keep-debug", lib, byID)
	run("strip", "-g", lib)
	run("objcopy", "--only-keep-debug", exe, filepath.Join(dir, ".debug", "prog.debug"))
	run("strip", "-g", exe)
	run("objcopy", "--add-gnu-debuglink="+filepath.Join(dir, ".debug", "prog.debug"), exe)
	return dir, exe, debugDir
}

// BuildID is the hex of the ELF file's GNU build id.
func BuildID(t testing.TB, path string) string {
	t.Helper()
	id := buildIDOrNone(path)
	if id == "" {
		t.Fatalf("%s has no build id", path)
	}
	return id
}

// buildIDOrNone is the hex of the ELF file's GNU build id, "" when it has none.
func buildIDOrNone(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil || len(b) < 17 {
		return ""
	}
	return hex.EncodeToString(b[16:]) // after the 12-byte header and "GNU\0"
}

// NeedLibcDebugFile skips t where libc's separate debug information (Debian's libc6-dbg)
// is not installed.
func NeedLibcDebugFile(t testing.TB) {
	t.Helper()
	for _, libc := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(libc); err != nil {
			continue
		}
		id := BuildID(t, libc)
		if _, err := os.Stat(filepath.Join("/usr/lib/debug/.build-id", id[:2], id[2:]+".debug")); err == nil {
			return
		}
	}
	t.Skip("libc's separate debug information (Debian's libc6-dbg) is not installed")
}

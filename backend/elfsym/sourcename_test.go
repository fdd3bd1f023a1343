package elfsym

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A unit's source file is named as the compiler was given it: relative when built from its
// own directory, absolute when given so; its headers by their path, as gdb names them.
func TestSourceName(t *testing.T) {
	realparts.Need(t, "gcc")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "twice.h"), []byte("static inline int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte("#include \"twice.h\"\nint main(void) { return twice(0); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ src, main, header string }{
		{"main.c", "main.c", filepath.Join(dir, "twice.h")},
		{filepath.Join(dir, "main.c"), filepath.Join(dir, "main.c"), filepath.Join(dir, "twice.h")},
	} {
		exe := filepath.Join(dir, "prog")
		cmd := exec.Command("gcc", "-g", "-O0", "-o", exe, c.src)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		f, err := Open(exe)
		if err != nil {
			t.Fatal(err)
		}
		if got := f.SourceName(filepath.Join(dir, "main.c")); got != c.main {
			t.Errorf("built as %s: main.c is %q, want %q", c.src, got, c.main)
		}
		if got := f.SourceName(filepath.Join(dir, "twice.h")); got != c.header {
			t.Errorf("built as %s: twice.h is %q, want %q", c.src, got, c.header)
		}
		if got := f.SourceName("/usr/include/stdio.h"); got != "/usr/include/stdio.h" {
			t.Errorf("a file elsewhere is %q", got)
		}
		f.Close()
	}
}

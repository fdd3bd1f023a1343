package realparts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The sources of BuildDWZ: a header of types that the program's two units and its library
// share, which dwz moves into the common file.
const (
	DWZHeader = `struct point { int x, y; };
struct shape { const char *name; struct point corners[4]; int n; };
typedef struct shape shape_t;
enum colour { RED, GREEN, BLUE };
int area(const shape_t *s);
int perimeter(const shape_t *s);
`
	// DWZMain is main.c: main (lines 5-11) calls area (in area.c) and perimeter (the library's).
	DWZMain = `#include <stdio.h>
#include "shape.h"
shape_t sq = {"square", {{0, 0}, {2, 0}, {2, 2}, {0, 2}}, 4};
enum colour tint = GREEN;
int main(void) {
	shape_t local = sq;
	int a = area(&local);
	int p = perimeter(&local);
	printf("%d %d %d\n", a, p, tint);
	return 0;
}
`
	// DWZArea is area.c: area's statements are lines 3-4.
	DWZArea = `#include "shape.h"
int area(const shape_t *s) {
	struct point d = {s->corners[2].x - s->corners[0].x, s->corners[2].y - s->corners[0].y};
	return d.x * d.y;
}
`
	// DWZLib is perim.c, the library libperim.so: perimeter's statements are lines 4-7.
	DWZLib = `#include "shape.h"
static enum colour last = BLUE;
int perimeter(const shape_t *s) {
	int sum = 0;
	for (int i = 0; i < s->n; i++)
		sum += (s->corners[(i + 1) % s->n].x - s->corners[i].x) + (s->corners[(i + 1) % s->n].y - s->corners[i].y);
	return sum < 0 ? -sum : sum + last - BLUE;
}
`
)

// DWZ is a program and its library whose separate debug files dwz has compressed
// (BuildDWZ), as Debian's -dbgsym and Fedora's debuginfo packages ship them.
type DWZ struct {
	Dir      string // the sources and the built program (dir/prog) and library (dir/libperim.so)
	Exe      string // the program, stripped
	DebugDir string // the debug files after dwz, by build id; the common file in .dwz
	PlainDir string // the same debug files before dwz
	Common   string // the common (supplementary) file dwz made
}

// BuildDWZ builds DWZMain and DWZArea as dir/prog, DWZLib as dir/libperim.so (gcc -g -O0),
// moves their debug information into files under DebugDir/.build-id as distributions do
// (a copy of them under PlainDir), then runs dwz -m on the two with dwzArgs (-M NAME, -r,
// -5) to move what they share into DebugDir/.dwz/shapes.debug, which is also linked by its
// own build id when it has one (as Debian's packages link it).
func BuildDWZ(t testing.TB, dwzArgs ...string) DWZ {
	t.Helper()
	Need(t, "gcc", "objcopy", "strip", "dwz")
	dir := t.TempDir()
	for name, src := range map[string]string{"shape.h": DWZHeader, "main.c": DWZMain, "area.c": DWZArea, "perim.c": DWZLib} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	d := DWZ{Dir: dir, Exe: filepath.Join(dir, "prog"), DebugDir: filepath.Join(dir, "debug"), PlainDir: filepath.Join(dir, "plain")}
	lib := filepath.Join(dir, "libperim.so")
	run("gcc", "-g", "-O0", "-shared", "-fPIC", "-Wl,--build-id", "-o", lib, "perim.c")
	run("gcc", "-g", "-O0", "-Wl,--build-id", "-o", d.Exe, "main.c", "area.c", "-L.", "-lperim", "-Wl,-rpath,"+dir)
	var debugFiles []string
	for _, f := range []string{lib, d.Exe} {
		id := BuildID(t, f)
		rel := filepath.Join(".build-id", id[:2], id[2:]+".debug")
		for _, root := range []string{d.DebugDir, d.PlainDir} {
			if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			run("objcopy", "--only-keep-debug", f, filepath.Join(root, rel))
		}
		debugFiles = append(debugFiles, filepath.Join(d.DebugDir, rel))
		run("strip", "-g", f)
	}
	d.Common = filepath.Join(d.DebugDir, ".dwz", "shapes.debug")
	if err := os.MkdirAll(filepath.Dir(d.Common), 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-m", d.Common}, dwzArgs...)
	run("dwz", append(args, debugFiles...)...)
	if id := buildIDOrNone(d.Common); id != "" {
		link := filepath.Join(d.DebugDir, ".build-id", id[:2], id[2:]+".debug")
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", "..", ".dwz", "shapes.debug"), link); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

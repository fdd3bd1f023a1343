package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// dwzCommands ask what dwz moved into the common file: the shared types (of arguments,
// locals, globals, a library's static), type names, and the functions' lines.
var dwzCommands = exCommands("break area", "break perimeter", "run", "bt", "p *s", "ptype s", "info locals",
	"up", "p local", "p sq", "p tint", "whatis sq", "ptype struct point", "ptype shape_t", "p sizeof(struct shape)",
	"continue", "bt", "info locals", "p last", "p s->corners[1]", "ptype enum colour", "whatis s->corners",
	"info line perimeter", "info address sum", "finish", "info functions ^(area|perimeter)$", "info types colour",
	"info variables ^(sq|tint|last)$")

// A program and its library whose separate debug files dwz compressed (the types they share
// in a common file, named by .gnu_debugaltlink) read as gdb reads them, for the ways
// distributions install them: Debian's (the common file's installed name, found by its
// build id under the debug folder) and Fedora's (a name relative to the debug file). DWARF
// 5's .debug_sup, which gdb 13 cannot read, against gdb reading the files before dwz. Each
// fails when the common file is not read (types unnamed, arguments missing).
func TestDWZDebugFilesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	for _, c := range []struct {
		name    string
		dwzArgs []string
		oracle  func(realparts.DWZ) string // the debug folder gdb reads
	}{
		{"debian", []string{"-M", "/usr/lib/debug/.dwz/x86_64-linux-gnu/polydbg-shapes.debug"}, func(d realparts.DWZ) string { return d.DebugDir }},
		{"relative", []string{"-r"}, func(d realparts.DWZ) string { return d.DebugDir }},
		{"dwarf5", []string{"-5", "-r"}, func(d realparts.DWZ) string { return d.PlainDir }},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := realparts.BuildDWZ(t, c.dwzArgs...)
			ours := runBatch(t, bin, d.Exe, []string{"-iex", "set debug-file-directory " + d.DebugDir}, dwzCommands)
			theirs := runGDB(t, d.Exe, []string{"-iex", "set debug-file-directory " + c.oracle(d)}, dwzCommands)
			compareLines(t, c.name, d.Dir, ours, theirs)
		})
	}
}

// Without its common file a dwz-compressed program's DWARF is not read, as gdb does, saying
// so: its functions are named by its symbol table, its data has no type.
func TestDWZCommonFileMissingAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	d := realparts.BuildDWZ(t, "-r")
	if err := os.Remove(d.Common); err != nil {
		t.Fatal(err)
	}
	settings := []string{"-iex", "set debug-file-directory " + d.DebugDir}
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), d.Exe, settings, exCommands("break area", "run", "bt", "p (int)tint", "kill"))
	compareLines(t, "missing common file", d.Dir, ours, theirs)
}

// The C++ program of TestDWZCPlusPlusAsGDB: a namespace's types that both units use, which
// dwz moves into the common file with their namespace.
const (
	dwzGeoHeader = `namespace geo {
struct Point { int x, y; int norm() const { return x * x + y * y; } };
class Shape { public: Shape(int n) : n_(n) {} virtual ~Shape() {} virtual int sides() const { return n_; } int n_; };
int area(const Point &a, const Point &b);
}
`
	dwzGeoMain = `#include "geo.h"
#include <cstdio>
int main() {
	geo::Point p{3, 4};
	geo::Shape s(4);
	int a = geo::area(p, geo::Point{1, 1});
	std::printf("%d %d %d\n", a, p.norm(), s.sides());
	return 0;
}
`
	dwzGeoArea = `#include "geo.h"
namespace geo {
int area(const Point &a, const Point &b) {
	Shape s(3);
	return (a.x - b.x) * (a.y - b.y) * s.sides();
}
}
`
)

// A C++ program compressed by dwz: the types dwz moved keep their namespace (geo::Point in
// a reference's type, ptype, whatis), their methods are called and listed; the C++
// library's symbols without debug information are listed demangled. Against gdb.
func TestDWZCPlusPlusAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "g++", "dwz")
	dir := t.TempDir()
	for name, src := range map[string]string{"geo.h": dwzGeoHeader, "main.cc": dwzGeoMain, "area.cc": dwzGeoArea} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "geo")
	for _, cmd := range [][]string{
		{"g++", "-g", "-O0", "-o", exe, "main.cc", "area.cc"},
		{"cp", exe, exe + "2"}, // (dwz -m shares what two files have in common)
		{"dwz", "-m", "common.debug", "-r", exe, exe + "2"},
	} {
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd, err, out)
		}
	}
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("break geo::area", "run", "bt",
		"p a", "ptype geo::Point", "ptype s", "p a.norm()", "up", "p p", "whatis s", "p s.sides()",
		"info functions geo::", "info functions lexically_normal", "info functions ^operator new\\(", "continue"))
	compareLines(t, "C++ with dwz", dir, ours, theirs)
}

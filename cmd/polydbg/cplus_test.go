package main

// C++ programs as gdb shows them: functions named with their scopes and template
// arguments, breakpoints on overloads and template instances, classes, references,
// exceptions. Each test runs the same commands in polydbg and gdb and compares the lines.

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// buildCXX builds C++ source with g++ -g -O0 into dir/name.
func buildCXX(t *testing.T, name, src string) (dir, exe string) {
	t.Helper()
	realparts.Need(t, "g++", "gdbserver", "gdb")
	dir, file := writeSource(t, name+".cpp", src)
	exe = filepath.Join(dir, name)
	if out, err := exec.Command("g++", "-g", "-O0", "-o", exe, file).CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	return dir, exe
}

// shapesProg has namespaces, a class hierarchy with virtual functions and a static
// member, overloads, a function template and a reference parameter.
const shapesProg = `#include <cstdio>
namespace geo {
struct Point { int x; int y; };
class Shape {
public:
  Shape(int w, int h) : w_(w), h_(h) {}
  virtual ~Shape() {}
  virtual int area() const { return w_ * h_; }
  int scaled(int k) const { return area() * k; }
  static int count;
protected:
  int w_, h_;
};
int Shape::count = 0;
class Square : public Shape {
public:
  explicit Square(int s) : Shape(s, s), side(s) {}
  int area() const override { return side * side; }
  int side;
};
int add(int a, int b) { return a + b; }
double add(double a, double b) { return a + b; }
}
template <typename T> T twice(T v) { return v + v; }
static bool ready(const geo::Point &p, bool flag) { return flag && p.x > 0; }
int main() {
  geo::Point p{1, 2};
  geo::Square sq(3);
  geo::Shape *sh = &sq;
  int total = geo::add(1, 2) + (int)geo::add(1.5, 2.5);
  total += sh->scaled(2);
  total += twice(total) + twice<long>(3);
  bool ok = ready(p, true);
  printf("%d %d\n", total, ok);
  return 0;
}
`

// Functions are named as gdb names them: with their scopes in frames (geo::add,
// geo::Shape::scaled), with their parameters where breakpoints are listed
// (geo::add(double, double), ready(geo::Point const&, bool): from the linkage name or,
// without one, the parameters' types); `break NAME` binds at every overload, template
// instance and scope NAME matches, numbered 1.1, 1.2 at its stops; info symbol demangles.
func TestCPlusPlusNamesAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, "shapes", shapesProg)
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands(
		"break geo::add", "break Shape::scaled", "break twice", "break ready", "break shapes.cpp:geo::Square::area",
		"break add(double, double)", "info breakpoints", "delete 6",
		"run", "bt", "info args", "continue", "continue", "bt", "p this->w_", "p sh",
		"continue", "continue", "bt", "continue", "info frame", "x/2i $pc", "info symbol $pc",
		"up", "info line", "p sq", "whatis sq", "whatis sh", "p *sh"))
	compareLines(t, "C++ names", dir, ours, theirs)
}

// Values of a C++ program as gdb prints them: a class with its base classes first
// ({<geo::Shape> = {...}, side = 3}), its vtable pointer named by the demangled symbol and
// its static members where they are declared; in a method, a member by its name alone (w_
// is this->w_, count the class's static), a static by its qualified name; a reference as
// (const geo::Point &) @0x...: {...}, "..." in a frame line, its members and address those
// of the object it refers to.
func TestCPlusPlusValuesAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, "shapes", shapesProg)
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands(
		"break ready", "break geo::Shape::scaled", "run",
		"p w_", "p this->w_", "p count", "p geo::Shape::count", "p *this", "p this->side", "p h_ * k + w_",
		"up", "p *sh", "p sq.w_", "p sq", "p/x sq", "p sq.side + sq.h_", "whatis sq", "p &sq.side",
		"continue", "p p", "p p.x", "p &p", "p p.x + p.y", "whatis p", "info args", "bt", "finish"))
	compareLines(t, "C++ values", dir, ours, theirs)
}

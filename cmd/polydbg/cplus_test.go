package main

// C++ programs as gdb shows them: functions named with their scopes and template
// arguments, breakpoints on overloads and template instances, classes, references,
// exceptions. Each test runs the same commands in polydbg and gdb and compares the lines.

import (
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// cxxAsGDB builds src (C++) as name, runs the commands in polydbg and in gdb, and
// compares their lines (what names the comparison).
func cxxAsGDB(t *testing.T, what, name, src string, cmds ...string) {
	t.Helper()
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, name, src)
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands(cmds...))
	compareLines(t, what, dir, ours, theirs)
}

// buildCXX builds C++ source with g++ -g -O0 and flags into dir/name.
func buildCXX(t *testing.T, name, src string, flags ...string) (dir, exe string) {
	t.Helper()
	realparts.Need(t, "gdbserver", "gdb")
	src, exe = realparts.BuildCXX(t, name, src, flags...)
	return filepath.Dir(src), exe
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
	cxxAsGDB(t, "C++ names", "shapes", shapesProg,
		"break geo::add", "break Shape::scaled", "break twice", "break ready", "break shapes.cpp:geo::Square::area",
		"break add(double, double)", "info breakpoints", "delete 6",
		"run", "bt", "info args", "continue", "continue", "bt", "p this->w_", "p sh",
		"continue", "continue", "bt", "continue", "info frame", "x/2i $pc", "info symbol $pc",
		"up", "info line", "p sq", "whatis sq", "whatis sh", "p *sh")
}

// Values of a C++ program as gdb prints them: a class with its base classes first
// ({<geo::Shape> = {...}, side = 3}), its vtable pointer named by the demangled symbol and
// its static members where they are declared; in a method, a member by its name alone (w_
// is this->w_, count the class's static), a static by its qualified name; a reference as
// (const geo::Point &) @0x...: {...}, "..." in a frame line, its members and address those
// of the object it refers to.
func TestCPlusPlusValuesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ values", "shapes", shapesProg,
		"break ready", "break geo::Shape::scaled", "run",
		"p w_", "p this->w_", "p count", "p geo::Shape::count", "p *this", "p this->side", "p h_ * k + w_",
		"up", "p *sh", "p sq.w_", "p sq", "p/x sq", "p sq.side + sq.h_", "whatis sq", "p &sq.side",
		"continue", "p p", "p p.x", "p &p", "p p.x + p.y", "whatis p", "info args", "bt", "finish")
}

// ptype and whatis of C++ types as gdb's: a class by its qualified name, its bases, its
// data and static members and its methods (virtual, const, a constructor without a return
// type) under their access labels when the class needs them (a struct with virtual
// methods does); this as a const pointer; a reference's type expanded with its &.
func TestCPlusPlusTypesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ types", "shapes", shapesProg,
		"ptype geo::Shape", "ptype geo::Square", "ptype geo::Point", "whatis geo::Point",
		"break geo::Shape::scaled", "break ready", "run",
		"ptype this", "whatis this", "ptype *this", "whatis *this",
		"up", "ptype sq", "ptype sh", "whatis sh", "ptype p",
		"continue", "ptype p", "whatis p", "ptype flag")
	// A struct with virtual methods: gdb takes its vtable pointer for a private member, and
	// so labels its sections (public: before the first member, a blank line before the
	// methods); one without needs no label but before its methods.
	cxxAsGDB(t, "C++ struct types", "vstruct", `struct Shape { virtual ~Shape() {} virtual double area() const { return 0; } int id = 7; };
struct Plain { int x = 1; int get() const { return x; } };
struct Rect : Shape { double w = 2, h = 3; double area() const override { return w * h; } };
int main() { Rect r; Plain p; Shape *s = &r; return (int)s->area() + p.get(); }
`, "ptype Shape", "ptype Plain", "ptype Rect", "break main", "run", "ptype s", "ptype r", "ptype p")
}

// The commands that name functions and variables take and show C++'s names as gdb's:
// list, info line and info address of a method; info functions by signature (constructors
// and destructors, template instances, a static function; sorted as gdb sorts them, none
// of them again as a non-debugging symbol); info variables with a static member; rbreak
// over overloads; sizeof a class; a temporary breakpoint on a virtual method.
func TestCPlusPlusSymbolsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ symbols", "shapes", shapesProg,
		"list geo::Shape::scaled", "info line geo::Shape::scaled", "info address geo::Shape::scaled", "info address main",
		"info functions add", "info functions Square", "info functions twice", "info functions ^main", "info functions ready",
		"info variables count", "rbreak ^geo::add", "info breakpoints",
		"print sizeof(geo::Shape)", "print sizeof(geo::Point) * 2", "whatis (geo::Point *)0",
		"tbreak geo::Square::area", "run", "bt", "info frame", "finish")
}

// A C++ method is called from an expression as gdb calls it: obj.f(), p->f() with the
// object as this, a virtual one of the object's dynamic class (sh->area() is
// geo::Square::area on a Square), and in a method f() alone on this; info vtbl lists an
// object's virtual function table as gdb's.
func TestCPlusPlusMethodCallsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ method calls", "shapes", shapesProg,
		"tbreak geo::Shape::scaled", "break 32", "run",
		"p area()", "p area() * k", "p this->area()", "p nosuch()",
		"continue", "p sq.area()", "p sh->area()", "p sq.scaled(2)", "p sq.scaled(1) + 1", "p (*sh).area()",
		"p sq.nosuch()", "p sq.side", "info vtbl p", "info vtbl", "info vtbl sq", "info vtbl sh", "info vtbl *sh")
}

// modernProg has scoped and plain enums at global and namespace scope, a reference
// member, a class template with a method, a lambda and an rvalue reference.
const modernProg = `#include <cstdio>
enum class Color { Red, Green = 5, Blue };
enum Plain { A, B };
namespace geo { enum Kind { K1, K2 }; enum class Dir : char { N = 'n', S = 's' }; }
namespace { int hidden(int x) { return x + 1; } }
struct Box { int &ref; const char *name; Color c; };
template <typename T, int N> struct Arr { T v[N]; int size() const { return N; } };
int main() {
  Color c = Color::Green;
  Plain p = B;
  geo::Kind k = geo::K2;
  geo::Dir d = geo::Dir::S;
  int n = 4;
  Box b{n, "box", Color::Blue};
  Arr<short, 3> a{{1, 2, 3}};
  auto sq = [n](int x) { return x * n; };
  int r = sq(2) + hidden(n) + a.size();
  int &&rr = 5;
  printf("%d %d %d %d %d\n", r, (int)c, p, k, (int)d);
  return rr;
}
`

// C++11's enums, templates and references as gdb shows them: an enum class's constants
// by their qualified names (Color::Green, geo::Dir::S), a plain enum's by its scope's
// (geo::K2), ptype with the type under it (enum class geo::Dir : char {...}), /d and /x
// of them as numbers; comparisons are bools (true); a reference member as its address; a
// class template named as gdb spells it (Arr<short, 3>) and its method called; a function
// of an anonymous namespace.
func TestCPlusPlusModernAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ enums and templates", "modern", modernProg,
		"break 19", "run", "p c", "p p", "p k", "p d", "ptype c", "ptype p", "ptype k", "ptype d", "whatis d",
		"p geo::K1", "p geo::Dir::N", "p/d d", "p/x c", "p/d p", "p k == geo::K2", "p c == Color::Red", "p n > 3 && r < 100",
		"p (int)Color::Blue + 1", "p b", "p b.ref", "p a", "whatis a", "p a.size()", "p sizeof(a)", "p sq", "p rr", "whatis rr",
		"info locals", "break hidden", "info breakpoints")
}

// Namespaces as gdb lists and finds them: info variables and info types with the
// namespaces' variables, types and the namespaces themselves by their qualified names; a
// namespace's variable by its own name from a function of that namespace.
func TestCPlusPlusNamespacesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ namespaces", "nsv", `#include <cstdio>
namespace cfg { int level = 3; const char *name = "x"; namespace inner { double ratio = 0.5; struct Opt { int on; }; } }
static int hits;
int bump(int by) { hits += by; return cfg::level * by; }
namespace cfg { int twice() { inner::Opt o{1}; return level * 2 + o.on; } }
int main() { printf("%d %d %f\n", bump(2), cfg::twice(), cfg::inner::ratio); return 0; }
`,
		"info variables", "info variables level", "info types cfg", "break cfg::twice", "run",
		"p level", "p cfg::level", "p cfg::inner::ratio * 2", "p hits", "p name", "whatis cfg::inner::ratio", "ptype cfg::inner::Opt")
}

// A condition on a breakpoint with several places is evaluated at the place reached, in
// its own function's types (geo::add(double, double)'s a is 1.5, not 1), as gdb's; one on
// a reference's member holds.
func TestCPlusPlusConditionsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ conditions", "shapes", shapesProg,
		"break geo::add if a == 1", "break geo::Shape::scaled if k == 2 && w_ == 3", "break ready if p.x > 0", "run",
		"bt 1", "continue", "bt 1", "continue", "bt 1", "info breakpoints")
}

// advance, until, clear, tbreak and disassemble take C++ names as gdb's: advance's and
// until's breakpoints are momentary (the next breakpoint gets the number they held, in C
// too), a script's clear says nothing (gdb tells a person only), and a function is
// disassembled under its symbol's name (_ZNK3geo5Shape6scaledEi, as gdb).
func TestCPlusPlusRunToAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ run to", "shapes", shapesProg,
		"break main", "run", "advance geo::add", "bt 1", "until geo::Shape::scaled", "bt 1",
		"info scope geo::Shape::scaled", "info line geo::Square::area", "break geo::Square::area", "clear geo::Square::area",
		"tbreak shapes.cpp:geo::Shape::scaled", "info breakpoints", "disassemble geo::Shape::scaled")
}

// set print pretty lays a C++ class out as gdb's: its base classes first, then "members
// of CLASS:" and its own members, at any depth (a member, an array's element, a base's
// base), the vtable pointer and static members one per line too.
func TestCPlusPlusPrettyAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ pretty", "nest", `struct A { int a; };
struct B : A { int b; };
struct C : B { int c; virtual ~C() {} static int made; };
int C::made = 2;
struct Holder { int n; B inner; C deep; B arr[2]; };
int main() {
  Holder h{1, {{2}, 3}, {}, {{{7}, 8}, {{9}, 10}}};
  h.deep.c = 6;
  C c;
  c.a = 1, c.b = 2, c.c = 3;
  return h.n + c.c;
}
`, "break 11", "run", "set print pretty on", "p h", "p c", "p h.arr", "p h.arr[1]", "p $2", "p h.inner.b",
		"set print pretty off", "p h", "info vtbl h.inner", "info vtbl c", "info vtbl h.deep")
}

// set print object on shows a C++ object by the class its vtable says it is, as gdb's: a
// geo::Shape pointer to a Square as (geo::Square *), the object as (geo::Square) with the
// Square's members, whatis and ptype with gdb's /* real type = ... */ note; a history
// value keeps both: printed again it shows the Square under print object on, the Shape
// under off, as gdb's.
func TestCPlusPlusPrintObjectAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ print object", "shapes", shapesProg,
		"break 31", "run", "show print object", "p *sh", "set print object on", "show print object",
		"p *sh", "p sh", "p sq", "p &sq", "p p", "whatis sh", "whatis *sh", "ptype sh",
		"set print object off", "p sh", "with print object on -- p *sh", "p *sh",
		"set print object on", "p $2", "p $", "set print object off", "p $2", "p $$1", "set print object on", "p $$1")
}

// list of a name several functions share lists each under gdb's header (file: "...",
// line number: N, symbol: "geo::add(int, int)"); template instances on one line are one.
func TestCPlusPlusListAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ list", "shapes", shapesProg,
		"list geo::add", "list twice", "list geo::Shape::area", "list area", "list", "list geo::Shape::scaled", "list ready")
}

package main

// C++ objects of more than one base class, as gdb shows and finds them: print object's
// whole object behind a pointer to a second base, members named through a base's pointer
// in the class the vtable says, members qualified by a base class, and a lambda's captured
// reference to an array.

import "testing"

// multiProg has a class of two bases, each with a vtable, a hierarchy reached through a
// base pointer, and a lambda capturing an array by reference.
const multiProg = `#include <cstdio>
namespace geo {
struct Point { int x, y; Point(int a, int b) : x(a), y(b) {} int sum() const { return x + y; } };
class Shape {
public:
  Shape(const char *n) : name(n), id(++count) {}
  virtual ~Shape() {}
  virtual double area() const = 0;
  const char *name;
  int id;
  static int count;
};
int Shape::count = 0;
class Circle : public Shape {
public:
  Circle(double r) : Shape("circle"), r(r) {}
  double area() const override { return 3.0 * r * r; }
  double r;
};
class Rect : public Shape {
public:
  Rect(int w, int h) : Shape("rect"), corner(w, h) {}
  double area() const override { return corner.x * corner.y; }
  Point corner;
};
}
struct Base1 { int b1 = 11; virtual void f() {} };
struct Base2 { int b2 = 22; virtual void g() {} };
struct Multi : Base1, Base2 { int m = 33; };
int use(geo::Shape &s, const geo::Point &p, int *arr) {
  int total = (int)s.area() + p.sum() + arr[1];
  return total;
}
int main() {
  geo::Circle c(2.0);
  geo::Rect r(3, 4);
  geo::Shape *sp = &r;
  geo::Point pt(5, 6);
  Multi mu;
  Base2 *b2p = &mu;
  int arr[3] = {1, 2, 3};
  auto lam = [&](int k) { return k + arr[0]; };
  int t = use(*sp, pt, arr) + lam(1);
  printf("%d %d\n", t, b2p->b2);
  return 0;
}
`

// Under set print object on, a pointer to an object's second base shows the whole object
// and its address, as the vtable's offset to the object's top says ((Multi *) 0x... 16
// below the pointer; was the Base2 part read as a Multi); the history keeps the pointer as
// declared. Members named through a base's pointer are looked up in the object's class
// (sp->corner of a Shape *, b2p->m), also to be set; off, they are not.
func TestSecondBaseObjectsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ second bases", "multi", multiProg,
		"break use", "run", "up", "set print object on",
		"p *b2p", "p b2p", "p *sp", "p sp", "ptype b2p", "whatis b2p", "p $", "p *$", "p $$3", "p b2p->b2",
		"p $1", "p $1.m", "p $2->m", "p sp->corner", "p sp->corner.x + 1", "whatis sp->corner", "p b2p->m",
		"p (*sp).corner", "p sp[0]", "p $.corner", "p &sp->corner", "p b2p == &mu",
		"set var sp->corner.x = 10", "p r", "set var b2p->m = 44", "p mu.m", "print b2p->m = 45", "p sp->corner.y++",
		"set print object off", "p *b2p", "p b2p", "p $2", "p *$2", "p $1", "p sp->corner", "p b2p->m", "p mu")
}

// A member qualified by its class (obj.CLASS::member) is the member of that part of the
// object: a base's (mu.Base1::b1, r.geo::Shape::id), a method (mu.Base1::f), the whole
// object's through a base pointer (b2p->Multi::m); gdb's errors for a class that is no
// type and a member the class lacks. A lambda's captured array reference is declared as
// C++ declares it: int (&__arr)[3].
func TestQualifiedMembersAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ qualified members", "multi", multiProg,
		"break use", "run", "up",
		"p b2p->Base2::b2", "p mu.Base1::b1", "p mu.Base2::b2", "p r.geo::Shape::id", "p r.Shape::id",
		"p mu.Base1::nosuch", "p mu.Nosuch::b1", "p &mu.Base2::b2", "p sizeof(mu.Base1::b1)",
		"set var mu.Base1::b1 = 5", "p mu.b1", "p c.geo::Shape::id", "p c.geo::Circle::r", "p mu.Multi::m",
		"p mu.Base1::f", "p sp->geo::Shape::name", "p b2p->Multi::m", "whatis mu.Base1::b1", "p mu.Base1::b1 + 1",
		"ptype lam", "whatis lam.__arr", "p lam.__arr", "whatis lam")
}

// diamondProg has virtual bases (a diamond), a class with a nested type, an enum, an
// anonymous union and a static member function, and reference parameters of each kind.
const diamondProg = `#include <cstdio>
struct A { int a = 1; virtual ~A() {} };
struct B : virtual A { int b = 2; };
struct C : virtual A { int c = 3; };
struct D : B, C { int d = 4; };
struct Outer {
  struct Inner { int v; };
  enum Mode { Off, On };
  Inner in{5};
  Mode mode = On;
  union { int i; float f; } u{7};
  int get() const { return in.v; }
  static int twice(int x) { return 2 * x; }
};
int take(int &&r, int *&pr, const int &cr) { return r + *pr + cr; }
int main() {
  D d;
  A *ap = &d;
  B *bp = &d;
  Outer o;
  int x = 9, *px = &x;
  int t = take(1, px, x) + o.get() + Outer::twice(2);
  printf("%d %d\n", t, d.a);
  return 0;
}
`

// A virtual base is where the object's vtable says (it was read at offset 0: a = 2, the
// B part's b) and shown once, where gdb first meets it (in <B>, not again in <C>), also
// through a pointer to a base, set, and under print object; ptype says "public virtual
// A" and "static" for a member function without this, which a call through an object
// runs without one (o.twice(4) was -13592); a vtable pointer keeps its hex and symbol in
// any format (p/d), an object its class's prefix under print object with a format;
// references to pointers spelled int *&; print pretty's "}, " after each base class; a
// whole object set from another or from a number of its size; gdb's words for -> on what
// points to no structure.
func TestVirtualBasesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ virtual bases", "diamond", diamondProg,
		"break take", "run", "info args", "ptype pr", "whatis cr", "up",
		"p d", "p d.a", "p *ap", "p *bp", "p bp->a", "ptype D", "ptype B", "ptype C",
		"p/d d", "p/x *bp", "p d.b", "p d.c", "set var d.a = 7", "p d", "p *bp", "p sizeof(B)", "p sizeof(D)",
		"set print object on", "p *ap", "p ap", "p ap->d", "p *bp", "p/x d", "p &d.a",
		"p/x *ap", "p/x ap", "p/d *bp", "p/x $", "set print object off",
		"ptype Outer", "p o", "p o.get()", "p o.twice(4)", "p Outer::twice(4)", "p Outer::twice", "ptype Outer::twice",
		"set var o.in = 3", "p o.in", "set var o.in = o.in", "set var d = d", "p o.in = 4", "p px->zz", "p x->zz", "p o->in",
		"set print pretty on", "p o", "p *bp")
}

// memberPtrProg has pointers to data members and to member functions, virtual among them.
const memberPtrProg = `#include <cstdio>
struct Outer {
  int a = 1, b = 2;
  double d = 3.5;
  int get() const { return a; }
  int add(int k) { return a + k; }
  virtual int vget() const { return b; }
};
int Outer::*pm = nullptr;
int Outer::*pmb = &Outer::b;
double Outer::*pmd = &Outer::d;
int (Outer::*pmf)() const = nullptr;
int (Outer::*pmadd)(int) = &Outer::add;
int (Outer::*pmv)() const = &Outer::vget;
int main() {
  Outer o;
  Outer *op = &o;
  pmf = &Outer::get;
  int t = (o.*pmf)() + o.*pmb + (op->*pmadd)(2) + (o.*pmv)();
  printf("%d\n", t);
  return 0;
}
`

// Pointers to members as gdb shows them (NULL, &Outer::b, a member function's code and
// symbol under its type int (Outer::*)(const Outer * const), &virtual Outer::vget() const)
// and uses them: o.*pmb, op->*pmd, (o.*pmf)() and (op->*pmadd)(5) run with o as this, a
// virtual one through o's vtable; &Outer::b and &Outer::get make them; set var through one
// and of one. (Were: (unsupported type PtrToMemberType), cc55555555550000.)
func TestMemberPointersAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ pointers to members", "memberptr", memberPtrProg,
		"break 20", "run", "p pm", "p pmb", "p pmd", "p pmf", "p pmadd", "p pmv", "ptype pm", "whatis pmb", "ptype pmf",
		"whatis pmadd", "p sizeof(pmf)", "p sizeof(pm)", "info locals",
		"p o.*pmb", "p op->*pmd", "p (o.*pmf)()", "p (op->*pmadd)(5)", "p (o.*pmv)()", "p &Outer::b", "p &Outer::get",
		"p &Outer::vget", "p &Outer::add", "p *pmb", "p o.*pmf", "whatis o.*pmb", "p &(o.*pmb)", "set var o.*pmb = 7",
		"p o.b", "p o.*pmb + 1", "p 3 .* pmb", "p o.*3", "p o.*o", "whatis &Outer::b", "ptype &Outer::get", "p o.*(&Outer::d)",
		"p (o.*(&Outer::add))(1)", "p sizeof(&Outer::b)", "p &Outer::nosuch", "p Outer::b", "set var pmb = &Outer::a",
		"p o.*pmb", "p pmb", "set var pmf = pmv", "p pmf", "p (o.*pmf)()")
}

// usingProg names a namespace's variable, type, function and enumerators through a using
// directive in main, a using declaration and a namespace alias at the file's level.
const usingProg = `#include <cstdio>
namespace lib { int counter = 3; struct Pt { int x, y; }; int twice(int v) { return 2 * v; } enum Mode { Slow, Fast }; }
namespace deep { namespace inner { int level = 9; } }
using lib::Pt;
namespace di = deep::inner;
int main() {
  using namespace lib;
  Pt p{1, 2};
  Mode m = Fast;
  int r = twice(counter) + di::level + p.x + m;
  printf("%d\n", r);
  return 0;
}
`

// Names as C++'s using directives, using declarations and namespace aliases make them, as
// gdb follows them: counter and twice of using namespace lib in main (read, set, called),
// Pt of using lib::Pt (ptype, sizeof, a cast), di::level of namespace di = deep::inner.
// (Were: No symbol "counter" in current context.)
func TestUsingDirectivesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ using", "using", usingProg,
		"break 11", "run", "p counter", "p twice(3)", "p twice", "p di::level", "p deep::inner::level", "ptype Pt",
		"p sizeof(Pt)", "p (Pt *)&p", "whatis (Pt *)0", "ptype Mode", "p Fast", "p m == Fast", "p &counter",
		"whatis counter", "set var counter = 5", "p lib::counter", "p counter + di::level", "info locals")
}

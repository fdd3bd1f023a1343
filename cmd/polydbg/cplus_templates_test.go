package main

// C++ class templates and method sections as gdb's ptype shows them.

import "testing"

// templatesProg has class templates instantiated with base types, a class and another
// template's instance.
const templatesProg = `#include <cstdio>
template <typename T, int N> struct Arr { T v[N]; int size() const { return N; } T first() const { return v[0]; } };
template <typename K, typename V> struct Pair { K k; V v; Pair *next; };
template <typename T> struct Wrap { T inner; static int count; };
template <typename T> int Wrap<T>::count = 0;
struct Plain { int x; };
int main() {
  Arr<short, 3> a{{1, 2, 3}};
  Pair<int, double> p{1, 2.5, nullptr};
  Wrap<Plain> w{{4}};
  Wrap<Arr<short, 3>> ww{a};
  printf("%d %d %f %d\n", a.size(), a.first(), p.v, w.inner.x + ww.inner.v[0]);
  return 0;
}
`

// ptype of a class template's instance lists its type parameters after its name ([with
// T = short]) and names its members' types by them (T v[3], Pair<K, V> *next), as gdb; a
// member whose type is a parameter is not laid out by ptype/o; a type named with its
// template arguments (ptype Arr<short, 3>) is found though DWARF spells it Arr<short int, 3>.
func TestCPlusPlusTemplatesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ templates", "templates", templatesProg,
		"break 12", "run", "ptype a", "ptype p", "ptype w", "ptype ww", "whatis a", "ptype Arr<short, 3>", "ptype/o p",
		"ptype/o ww", "ptype/o w", "ptype ww.inner", "whatis ww.inner", "ptype Wrap<Plain>", "ptype Pair<int, double>",
		"p a", "p p", "p ww")
}

// sectionsProg has structs, classes and a union with methods, with and without members of
// another access than their default.
const sectionsProg = `struct A { int get() const { return 1; } };
struct B { int x; B(int v) : x(v) {} };
struct C { int x; static int n; int get() const { return x; } };
int C::n = 0;
struct D { int x; private: int y = 0; public: int get() const { return x + y; } };
class K { int x = 1; int get() const { return x; } friend int peek(); };
class L { int get() const { return 2; } friend int peek(); };
union U { int i; float f; int geti() const { return i; } };
int peek() { K k; L l; U u{3}; return k.get() + l.get() + u.geti(); }
int main() { A a; B b(1); C c{1}; D d{}; return a.get() + b.x + c.get() + d.get() + peek(); }
`

// gdb labels a class's methods by their access even when no member needs a label (a
// struct's "public:", a class's "private:"), in place of the blank line it puts between
// sections that are labelled; ptype/o labels the fields' sections alone, and an empty
// class's one byte is no padding.
func TestCPlusPlusAccessSectionsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ access sections", "sections", sectionsProg,
		"break peek", "run", "ptype A", "ptype B", "ptype C", "ptype D", "ptype K", "ptype L", "ptype U",
		"ptype/o A", "ptype/o B", "ptype/o C", "ptype/o D", "ptype/o K", "ptype/o U")
}

// ptype/o of a C++ class as gdb's: its base classes in the header (their bytes no hole),
// its sections labelled, its static members where declared, no vtable pointer.
func TestCPlusPlusOffsetsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ ptype/o", "shapes", shapesProg,
		"break 32", "run", "ptype/o geo::Square", "ptype/o geo::Shape", "ptype/o geo::Point", "ptype/o sq", "ptype/o *sh")
}

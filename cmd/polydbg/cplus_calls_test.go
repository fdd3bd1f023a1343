package main

// Calling the program's functions and methods from an expression as gdb calls them: a
// method whose code is in libstdc++ (std::string's size()), a class, a float or a double
// returned, floating point arguments.

import (
	"bytes"
	"os/exec"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// libStringsProg calls few of std::string's methods itself: gdb finds the others in libstdc++.
const libStringsProg = `#include <string>
#include <vector>
#include <cstdio>
int main() {
  std::string s = "hello world, long enough to be on the heap";
  std::string t = "hi";
  std::vector<int> v{1, 2, 3};
  printf("%s %s %zu\\n", s.c_str(), t.c_str(), v.size());
  return 0;
}
`

// A class's method whose code the program does not have is run where a library has it, as
// gdb runs it: std::string's size(), c_str(), find(), at() (its non-const one, whose
// reference is the char), compare() with an object passed by reference, s[1] by its
// operator[]; one inlined everywhere is gdb's "Cannot evaluate function -- may be
// inlined"; a method returning a std::string (substr) builds it where the call says;
// output and printf run them too.
func TestCPlusPlusLibraryMethodsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ library methods", "strings", libStringsProg,
		"break 8", "run",
		"p s.size()", "p s.length()", "p t.size() + 1", "p s.empty()", "p s.c_str()", "p s.find('w')", "p s.capacity()",
		"p s[1]", "p s.at(0)", "p s.data()", "p t.compare(s)", "whatis s.size()", "p s.front()", "p s.back()",
		"p s.size() > 10", "p s.substr(0, 5)", "p s.substr(6, 5).size()", "p s.find(\"world\")", "p s.rfind('o')",
		"p t.size() * 2 + s.length()", "p v.data()", "p v.capacity()", "whatis s.at(1)", "whatis s[1]",
		"p s[0] == 'h'", "p &s[2]", "call s.size()", "printf \"%d\\n\", s.size()", "output s.size()", "echo \\n")
}

// returnsProg's functions and methods return classes (by value in memory and in
// registers), floats and doubles, take floating point arguments, and return a std::string
// (label, which the compiler names label[abi:cxx11]).
const returnsProg = `#include <string>
#include <cstdio>
struct P { int x, y; };
struct D { double a, b; };
struct M { long n; double d; };
struct Big { long a, b, c; };
struct F { float f; int i; };
class Named {
public:
  Named(const char *n) : name_(n) {}
  std::string name() const { return name_; }
  std::string greet(int times) const { std::string s; for (int i = 0; i < times; i++) s += name_; return s; }
  double ratio() const { return name_.size() / 4.0; }
  float half() const { return 0.5f; }
  P where() const { return P{1, 2}; }
  D dd() const { return D{1.5, 2.5}; }
  M mixed() const { return M{7, 0.25}; }
  Big big() const { return Big{1, 2, 3}; }
  F fl() const { return F{1.25f, 9}; }
private:
  std::string name_;
};
int deref(const int *p) { return *p; }
double scale(int k) { return k * 1.5; }
double mix(double a, float b, int c) { return a * b + c; }
float halve(float x) { return x / 2; }
P make(int a) { return P{a, a * 2}; }
Big makeBig(long a) { return Big{a, a + 1, a + 2}; }
std::string label(int n) { return std::string(n, 'z'); }
int main() {
  Named n("bob");
  double r = n.ratio() + scale(2) + mix(1, 2, 3) + halve(3);
  P p = n.where();
  printf("%f %d %s\n", r, p.x + make(1).y + (int)makeBig(1).c + (int)n.dd().a + (int)n.mixed().n + (int)n.big().a + (int)n.fl().i + (int)n.half(), (n.name() + n.greet(2) + label(2)).c_str());
  return 0;
}
`

// A called function's value comes back as gdb reads it: a class with a destructor of its
// own (std::string) built in memory the call makes room for, a small class in rax and rdx
// or xmm0 and xmm1 as its eightbytes are classed, a class over 16 bytes in memory, a float
// or a double from xmm0; floating point arguments go in xmm registers (a float as a float,
// an integer converted); a function gdb names with its ABI tag (label[abi:cxx11](int)) is
// found by its name alone and named as gdb names it in frames.
func TestCallReturnsAsGDB(t *testing.T) {
	cxxAsGDB(t, "call returns", "returns", returnsProg,
		"break 34", "run",
		"p n.name()", "p n.greet(3)", "p n.ratio()", "p n.half()", "p n.where()", "p n.dd()", "p n.mixed()", "p n.big()",
		"p n.fl()", "p scale(3)", "p scale(3) * 2", "p make(5)", "p make(5).y", "p makeBig(10)", "p label(4)",
		"p n.name().size()", "p label(3).size() + 1", "whatis n.name()", "whatis scale(1)", "ptype n.where()",
		"p n.ratio() > 0.5", "call n.name()", "p mix(1.5, 2.5, 3)", "p mix(2, 3, 4)", "p halve(5)", "p halve(2.5) + 1",
		"p scale(2.9)", "p mix(n.ratio(), 2, 1)", "whatis halve(1)",
		"info functions label", "break label", "info breakpoints", "continue", "bt", "info symbol label", "p label", "finish")
}

// byValueProg passes classes by value: small ones in registers as their eightbytes are
// classed, large ones on the stack, ones with a copy constructor as a copy it makes.
const byValueProg = `#include <string>
#include <cstdio>
struct P { int x, y; };
struct D { double a, b; };
struct M { long a, b, c; };
struct Mix { int i; float f; double d; };
struct Big { char name[40]; int n; };
struct C { int v; C(int v) : v(v) {} C(const C &o) : v(o.v + 100) {} ~C() {} };
int sum(P p) { return p.x + p.y; }
double dsum(D d) { return d.a + d.b; }
long msum(M m) { return m.a + m.b + m.c; }
double mix(Mix m, int k) { return m.i + m.f + m.d + k; }
int bign(Big b) { return b.n + b.name[0]; }
int cval(C c) { return c.v; }
size_t slen(std::string s) { return s.size(); }
int many(int a, int b, int c, int d, int e, int f, P p) { return a + b + c + d + e + f + p.x; }
P twice(P p) { P r = {p.x * 2, p.y * 2}; return r; }
int main() {
  P p = {3, 4}; D d = {1.5, 2.25}; M m = {1, 2, 3}; Mix x = {1, 2.5f, 3.25}; Big b = {"hello", 7};
  C c(5); std::string s = "abc";
  printf("%d %g %ld %g %d %d %zu %d\n", sum(p), dsum(d), msum(m), mix(x, 1), bign(b), cval(c), slen(s), many(1,2,3,4,5,6,p));
  twice(p);
  return 0;
}
`

// byValueMoreProg passes floats in pairs, unions, arrays in a class, classes with a
// std::string member or virtual functions, arguments past the registers, to a method too.
const byValueMoreProg = `#include <string>
#include <cstdio>
struct F2 { float a, b; };
struct F3 { float a, b, c; };
struct IF { int i; float f; };
struct Named { std::string name; int n; };
struct V { virtual int get() const { return 7; } int k = 2; };
union U { int i; float f; };
struct Arr { int v[3]; };
struct Small { char c; short s; };
class Acc { public: int base = 10; int add(F2 f, int k) { return base + (int)(f.a + f.b) + k; } };
float f2(F2 f) { return f.a * f.b; }
float f3(F3 f) { return f.a + f.b + f.c; }
double fi(IF x) { return x.i + x.f; }
int named(Named n) { return n.n + (int)n.name.size(); }
int virt(V v) { return v.get() + v.k; }
int uni(U u) { return u.i; }
int arr(Arr a) { return a.v[0] + a.v[1] + a.v[2]; }
int small(Small s) { return s.c + s.s; }
double many(double a, double b, double c, double d, double e, double f, double g, double h, F2 x) { return a + h + x.a; }
int ints(int a, int b, int c, int d, int e, IF x, int g) { return a + e + x.i + g; }
int main() {
  F2 a = {1.5f, 2.0f}; F3 b = {1, 2, 3}; IF c = {4, 0.5f}; Named n = {"four", 4}; V v; U u; u.i = 9; Arr r = {{1, 2, 3}};
  Small sm = {'a', 3}; Acc acc;
  printf("%g %g %g %d %d %d %d %d %g %d %d\n", f2(a), f3(b), fi(c), named(n), virt(v), uni(u), arr(r), small(sm),
         many(1,2,3,4,5,6,7,8,a), ints(1,2,3,4,5,c,7), acc.add(a, 1));
  return 0;
}
`

// Class objects are passed by value as the x86-64 ABI passes them, as gdb passes them:
// each eightbyte of a small one in the next integer or SSE register ({int, int}, {double,
// double}, {int, float, double}, {float, float}, {char, short}, a union, an array of
// three ints), one over 16 bytes copied onto the stack, one that does not fit in the
// registers left on the stack after the others (a seventh integer argument, a ninth
// double), and a class C++ copies with code of its own (a copy constructor, a virtual
// function, a std::string member) as the address of a copy, made by its copy constructor
// where it has one (cval(c) is 105: the constructor adds 100). Before, each was refused.
func TestCallClassArgumentsAsGDB(t *testing.T) {
	cxxAsGDB(t, "class arguments", "byvalue", byValueProg, "break 21", "run", "p sum(p)", "p dsum(d)", "p msum(m)",
		"p mix(x, 1)", "p bign(b)", "p cval(c)", "p many(1,2,3,4,5,6,p)", "p twice(p)", "p sum(twice(p))", "p c.v",
		"p sum(p) + sum(p)")
	cxxAsGDB(t, "more class arguments", "byvaluemore", byValueMoreProg, "break 25", "run", "p f2(a)", "p f3(b)",
		"p fi(c)", "p named(n)", "p virt(v)", "p uni(u)", "p arr(r)", "p small(sm)", "p many(1,2,3,4,5,6,7,8,a)",
		"p ints(1,2,3,4,5,c,7)", "p acc.add(a, 1)", "p n.name")
}

// longDoubleProg passes and returns long doubles.
const longDoubleProg = `#include <stdio.h>
long double half(long double x) { return x / 2; }
long double mixl(int a, long double x, double d, long double y) { return a + x + d + y; }
struct LD { long double v; int k; };
long double lds(struct LD s) { return s.v * s.k; }
int main(void) {
  long double big = 1.0L / 3;
  struct LD s = {2.5L, 4};
  printf("%Lg %Lg %Lg\n", half(big), mixl(1, 2, 3, 4), lds(s));
  return 0;
}
`

// A long double goes to a called function on the stack in x87's extended format (a long
// double variable with all its precision) and comes back from st0, as gdb does; a class
// holding one goes on the stack. Before, both were refused.
func TestCallLongDoubleAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "longdouble", longDoubleProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("break 9", "run", "p half(3)",
		"p half(big)", "p mixl(1, 2, 3, 4)", "p lds(s)", "p half(-0.5)", "whatis half(1)", "p half(1e300)",
		"p mixl(1,2,3,4) * 2"))
	compareLines(t, "long double calls", dir, ours, theirs)
}

// A std::string passed by value is copied by libstdc++'s copy constructor, where gdb says
// "Couldn't find method std::string::std::string".
func TestCallStringByValue(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildCXX(t, "byvalue", byValueProg)
	out, err := exec.Command(bin, "debug", "-batch", "-ex", "break 21", "-ex", "run", "-ex", "p slen(s)", "-ex", "p s", exe).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("$1 = 3\n$2 = \"abc\"\n")) {
		t.Errorf("%v\n%s", err, out)
	}
}

// A C++ call that faults stays where the signal came, as gdb's: the signal's stop and
// gdb's words, bt through the dummy frame; a method called from main's frame meanwhile;
// the signal is the program's when it goes on. Against gdb.
func TestFaultingCallAsGDB(t *testing.T) {
	cxxAsGDB(t, "a faulting call", "returns", returnsProg, "break 34", "run", "p deref(0)", "bt", "up 2", "p n.ratio()",
		"next", "info breakpoints")
}

// A C++ expression names functions as gdb looks them up: the name as written (add is not
// geo::add, twice not twice<int>), an overloaded name as its last overload, a call of it
// resolved by its arguments' types (geo::add(1.5, 2.5) is the double one); info address
// and info scope of an overloaded name take gdb's choice too.
func TestCPlusPlusOverloadsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ overloads", "shapes", shapesProg,
		"break 32", "run", "p geo::add", "p add", "p twice", "p geo::add(1, 2)", "p geo::add(1.5, 2.5)",
		"p geo::add(1, 2) + geo::add(0.5, 0.25)", "p twice<long>(3)", "p twice<int>(2) * 2", "info scope geo::add",
		"info address geo::add", "whatis geo::add", "ptype geo::add", "p &geo::add", "p *geo::add", "p main",
		"p sq.area", "p sh->scaled", "whatis sq.area")
}

// overloadsProg's class overloads a method by its parameters' types and count.
const overloadsProg = `struct Calc {
  int base;
  int add(int a) const { return base + a; }
  double add(double a) const { return base + a; }
  int add(int a, int b) const { return base + a + b; }
};
int main() {
  Calc c{10};
  int r = c.add(1) + (int)c.add(0.5) + c.add(1, 2);
  return r > 0 ? 0 : 1;
}
`

// A call of an overloaded method runs the overload its arguments choose (c.add(2.5) is
// the double one: 12.5; c.add(1, 2) the two-parameter one), as gdb; the method named
// without a call is gdb's error.
func TestCPlusPlusMethodOverloadsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ method overloads", "overloads", overloadsProg,
		"break 9", "run", "p c.add(1)", "p c.add(2.5)", "p c.add(1, 2)", "p c.add", "p c.add(c.base) * 2", "p c.base")
}

// operatorsProg's class defines arithmetic, comparison, subscript and unary operators, one
// of them as a function of its own.
const operatorsProg = `#include <cstdio>
struct V {
  int x, y;
  V operator+(const V &o) const { return V{x + o.x, y + o.y}; }
  bool operator==(const V &o) const { return x == o.x && y == o.y; }
  int operator[](int i) const { return i ? y : x; }
  V operator-() const { return V{-x, -y}; }
};
V operator*(const V &a, int k) { return V{a.x * k, a.y * k}; }
int main() {
  V a{1, 2}, b{3, 4};
  V c = a + b;
  bool same = (a == b);
  int y = c[1];
  V d = -a;
  V e = a * 3;
  printf("%d %d %d %d %d\n", c.x, same, y, d.x, e.y);
  return 0;
}
`

// An operator on class objects runs the operator the program defines, as gdb runs it: a
// method of the left operand's class (a + b, a == b, c[1], -a, a.operator+(b)) or a
// function (a * 3), its class result read back ({x = 4, y = 6}) and used further ((a +
// b).x, a + b + a).
func TestCPlusPlusOperatorsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ operators", "operators", operatorsProg,
		"break 17", "run", "p a + b", "p a == b", "p a == a", "p c[1]", "p -a", "p a * 3", "p (a + b).x", "p a + b + a",
		"p a == b || a == a", "whatis a + b", "p a.operator+(b)", "p a.operator==(a)", "p (a * 2).y + c[0]", "ptype V")
}

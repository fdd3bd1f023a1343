package main

// Calling the program's functions and methods from an expression as gdb calls them: a
// method whose code is in libstdc++ (std::string's size()), a class, a float or a double
// returned, floating point arguments.

import (
	"os/exec"
	"strings"
	"testing"
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

// A call that faults is abandoned with the registers put back, and the signal that stopped
// it is not delivered when the program goes on (it used to be: the next step ended the
// program with SIGSEGV); the program then runs as if no call had been made.
func TestFaultingCallLeavesNoSignal(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildCXX(t, "returns", returnsProg)
	out, err := exec.Command(bin, append([]string{"debug", "-batch"}, append(exCommands("break 34", "run", "p deref(0)", "p n.ratio()", "next", "p r"), exe)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"the program stopped in deref (SIGSEGV) while in a function called from the debugger", "$1 = 0.75", "35\t  return 0;", "$2 = "} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
	if strings.Contains(text, "SIGSEGV, Segmentation fault") {
		t.Errorf("the call's signal was delivered:\n%s", text)
	}
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

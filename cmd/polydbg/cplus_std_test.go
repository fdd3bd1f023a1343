package main

// The C++ standard library's types as gdb shows them with libstdc++'s printers, type
// printers and xmethods. Each test runs the same commands in polydbg and gdb and compares
// the lines.

import (
	"bytes"
	"os/exec"
	"regexp"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// stdProg holds the standard library's strings and containers, by value and by reference.
const stdProg = `#include <string>
#include <vector>
#include <map>
#include <set>
#include <list>
#include <memory>
#include <optional>
#include <unordered_map>
#include <cstdio>
struct P { int x; std::string tag; };
int use(const std::string &s, std::vector<int> v, std::string t, const std::map<int, int> &m) {
  return s.size() + v.size() + t.size() + m.size();
}
int main() {
  std::vector<int> zeros(20);
  std::vector<int> big(300, 7);
  std::vector<int> none;
  std::string longs(300, 'x');
  std::string esc = "tab\there \"q\"";
  std::string empty;
  std::vector<P> ps{{1, "one"}, {2, "two"}};
  std::vector<std::vector<int>> nest{{1}, {2, 3}};
  std::map<std::string, int> ages{{"bob", 30}, {"al", 41}, {"cy", 7}};
  std::map<int, std::vector<int>> mv{{1, {1, 2}}};
  std::map<int, int> one{{4, 16}};
  std::set<int> s{5, 1, 3};
  std::map<int, int> nomap;
  auto up = std::make_unique<P>(P{3, "up"});
  std::unique_ptr<int> nothing;
  auto sp = std::make_shared<int>(7);
  auto sp2 = sp;
  std::weak_ptr<int> wp = sp;
  std::list<int> l{1, 2, 3};
  std::unordered_map<int, int> um{{1, 10}};
  std::optional<int> o = 3, no;
  printf("%d\n", use(esc, zeros, longs, one) + (int)(ages.size() + s.size() + mv.size() + nomap.size() + l.size() + um.size()) + *sp + *o);
  return 0;
}
`

// The standard library's strings, containers, smart pointers and optionals print as gdb
// prints them with libstdc++'s printers: "text" (repeats and the 200-character limit as a
// char array's), std::vector of length N, capacity M = {...} (elements up to the limit, no
// runs folded), std::map with N elements = {[key] = value}, std::set with N elements =
// {[0] = v}, std::__cxx11::list, std::unordered_map, std::unique_ptr<P> = {get() = 0x...},
// std::shared_ptr<int> (use count 2, weak count 1), std::optional<int> = {[contained value]
// = 3}; a reference to one as the value alone; in a frame line a string in full and a
// container's elements as {...}; an element by its index (v[1]), a smart pointer's object
// by * and -> (gdb's xmethods); whatis names them as libstdc++'s type printers do
// (std::map<std::string, int>), a pointer's type printed in full (as gdb).
func TestCPlusPlusLibraryTypesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ library types", "std", stdProg,
		"break use", "run", "bt", "info args", "p s", "p v", "p m", "p v[1] + 1", "p v.size()", "p m.size() * 2", "up",
		"p zeros", "p big", "p none", "p longs", "p esc", "p empty", "p ps", "p nest", "p ps[1].tag", "p ps[0].x",
		"p ages", "p ages.size()", "p mv", "p s", "p nomap", "p up", "p nothing", "p *up", "p up->tag", "p sp", "p wp", "p *sp + 1",
		"p l", "p um", "p o", "p no", "info locals",
		"whatis esc", "whatis zeros", "whatis &zeros", "whatis ages", "whatis mv", "whatis s", "whatis nomap",
		"whatis up", "whatis l", "whatis um", "whatis ps", "whatis nest", "p &zeros")
}

// moreStdProg holds the standard library's other sequences, adapters and holders.
const moreStdProg = `#include <deque>
#include <variant>
#include <tuple>
#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <bitset>
#include <stack>
#include <queue>
#include <forward_list>
#include <vector>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <cstdio>
int main() {
  std::multimap<int, int> mm{{1, 2}, {1, 3}, {0, 9}};
  std::multiset<int> ms{4, 4, 1};
  std::unordered_multimap<int, int> umm{{5, 6}, {5, 7}};
  std::unordered_multiset<int> ums{8, 8};
  std::deque<int> dq{1, 2, 3};
  std::deque<int> edq;
  std::deque<int> bigdq;
  for (int i = 0; i < 300; i++) bigdq.push_back(i);
  std::variant<int, std::string> vi = 5;
  std::variant<int, std::string> vs = std::string("hi");
  std::variant<int, std::vector<int>> vv = std::vector<int>{1, 2};
  std::tuple<int, double, std::string> tp{1, 2.5, "x"};
  std::tuple<> et;
  std::pair<int, std::string> pr{7, "seven"};
  std::array<int, 3> ar{4, 5, 6};
  std::string_view sv = "view";
  std::bitset<10> bs(0x25);
  std::bitset<100> wide;
  wide.set(3); wide.set(70);
  std::bitset<4> none;
  std::stack<int> st; st.push(1); st.push(2);
  std::queue<int> q; q.push(9);
  std::priority_queue<int> pq; pq.push(3); pq.push(8);
  std::forward_list<int> fl{3, 4};
  std::forward_list<int> efl;
  std::vector<std::pair<int, int>> vp{{1, 2}};
  printf("%zu %zu %d %zu %zu %zu %zu\n", dq.size() + edq.size() + bigdq.size(), std::get<2>(tp).size(), (int)vi.index() + (int)vs.index() + (int)vv.index(),
         pr.second.size() + ar[0] + sv.size() + bs.count() + wide.count() + none.count(), st.size() + q.size() + pq.size(),
         (size_t)(fl.front() + efl.empty()), vp.size() + mm.size() + ms.size() + umm.size() + ums.size());
  return 0;
}
`

// The standard library's other types print as libstdc++'s printers print them: std::deque
// with 3 elements = {1, 2, 3} (across its buffers, to the print limit), std::variant<int,
// std::string> [index 1] = {"hi"} (a container alternative "containing" it), std::tuple
// containing = {[1] = 1, ...}, a pair's first and second alone, a string_view's text,
// std::bitset = {[0] = 1, ...} (one word or many), std::stack wrapping: ..., std::forward_list,
// the multi maps and sets (std::multimap with 3 elements = {[0] = 9, [1] = 2, [1] = 3});
// set print pretty lays out the elements a printer names one per line, as gdb; whatis of an
// adapter as the type printers name it (std::stack<int, std::deque<int> >).
func TestCPlusPlusMoreLibraryTypesAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ more library types", "morestd", moreStdProg,
		"break printf", "run", "up",
		"p dq", "p edq", "p bigdq", "p vi", "p vs", "p vv", "p tp", "p et", "p pr", "p ar", "p sv", "p bs", "p wide", "p none",
		"p st", "p q", "p pq", "p fl", "p efl", "p vp", "info locals",
		"whatis dq", "whatis vi", "whatis tp", "whatis sv", "whatis bs", "whatis st", "whatis pq",
		"set print pretty on", "p tp", "p vi", "p vv", "p pr", "p bs", "p st", "p fl", "p vp", "p et",
		"set print pretty off", "p mm", "p ms", "p umm", "p ums", "whatis mm", "whatis ums", "p mm.size()", "p ums.empty()")
}

// A standard container's size(), empty(), front(), back(), at(i) and [i] are answered as
// libstdc++'s xmethods answer gdb, without running the program's code (whose size() is
// often inlined away): a deque's element in any buffer, a std::array's by index.
func TestCPlusPlusContainerMethodsAsGDB(t *testing.T) {
	cxxAsGDB(t, "C++ container methods", "morestd", moreStdProg,
		"break printf", "run", "up",
		"p dq.size()", "whatis dq.size()", "p dq.size() + 1", "whatis dq.size() + 1", "p dq.empty()", "p edq.empty()",
		"p dq.front()", "p dq.back()", "p dq.at(1)", "p dq[2]", "p bigdq.back()", "p bigdq[250]", "p bigdq.at(129) * 2",
		"p ar.size()", "p ar.front()", "p ar.back()", "p ar[1]", "p ar[1] * 2", "p ar.empty()", "whatis ar.size()",
		"p fl.front()", "p fl.empty()", "p efl.empty()", "p vp.size()", "p vp.front()", "p vp[0].second", "p vp.back().first",
		"p bigdq.size() > 100", "p dq.front() + dq.back()")
}

// An index past a container's end in at() is the xmethods' error, which gdb prints after
// its "Python Exception <class 'IndexError'>: " (polydbg runs no Python: the message
// alone).
func TestCPlusPlusContainerMethodErrors(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, "morestd", moreStdProg)
	cmds := []string{"break printf", "run", "up", "p dq.at(7)", "p ar.at(3)", "p dq.size()"}
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands(cmds...))
	theirs = regexp.MustCompile(`Python Exception <class 'IndexError'>: |Error while executing Python code.\n`).ReplaceAll(theirs, nil)
	compareLines(t, "C++ container method errors", dir, ours, theirs)
	for _, want := range []string{`Deque index "7" should not be >= 3.`, `Array index "3" should not be >= 3.`} {
		if !bytes.Contains(ours, []byte(want)) {
			t.Errorf("no %q in\n%s", want, ours)
		}
	}
	// a method given the wrong arguments is told so (gdb's xmethods raise Python errors)
	out, err := exec.Command(bin, append([]string{"debug", "-batch"}, append(exCommands("break printf", "run", "up",
		"p dq.size(1)", "p dq.at()", "p dq.at(1, 2)", "p dq.at(0.5)", "p edq.front()", "p dq.size()"), exe)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"size() takes no arguments\n", "at() takes one argument, an index\n", "at() takes one argument, an index\n",
		"at() takes an integer index\n", "edq is empty: it has no front()\n", "$1 = 3\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// cxx20Prog holds C++20's std::span and the library's other holders: an atomic, an any, a
// unique_ptr to an array.
const cxx20Prog = `#include <memory>
#include <atomic>
#include <span>
#include <any>
#include <cstdio>
struct P { int x; };
int main() {
  auto up = std::make_unique<P>(P{3});
  auto sp = std::make_shared<int>(7);
  auto sp2 = sp;
  std::shared_ptr<int> none;
  std::atomic<int> at{5};
  int arr[3] = {1, 2, 3};
  std::span<int> spn(arr);
  std::any an = 42;
  std::unique_ptr<int[]> ua(new int[3]{4, 5, 6});
  printf("%d %d %d %d %zu %d\n", up->x, *sp, sp2.use_count() > 0, at.load(), spn.size(), ua[0] + (int)an.has_value());
  return 0;
}
`

// std::atomic<int> = { 5 }, std::span of length 3 = {1, 2, 3}, std::any containing int =
// {[contained value] = 42} and std::unique_ptr<int []> print as libstdc++'s printers print
// them; up.get() and ua[1] are answered as its xmethods answer them ((P *) 0x..., 5), not
// by the program's code.
func TestCPlusPlusHoldersAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, "cxx20", cxx20Prog, "-std=c++20")
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break 17", "run", "p up.get()", "p *sp",
		"p up->x", "p at", "p spn", "p an", "p ua", "p ua[1]", "p ua.get()", "whatis up.get()", "p spn.size()", "info locals"))
	compareLines(t, "C++ holders", dir, ours, theirs)
}

// A std::shared_ptr's get(), use_count() and unique() are answered from its control block,
// as libstdc++'s xmethods would (gdb's own fail on this machine with a Python
// RecursionError, so the answers are checked against the program's: two owners).
func TestSharedPointerMethods(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildCXX(t, "cxx20", cxx20Prog, "-std=c++20")
	out, err := exec.Command(bin, append([]string{"debug", "-batch"}, append(exCommands("break 17", "run", "p sp.use_count()",
		"p sp.unique()", "p *sp.get() + 1", "p none.use_count()", "p none.unique()", "whatis sp.use_count()",
		"p sp.use_count(1)", "p up.get(2)", "p 1"), exe)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"$1 = 2\n", "$2 = false\n", "$3 = 8\n", "$4 = 0\n", "$5 = false\n", "type = long\n",
		"use_count() takes no arguments\n", "get() takes no arguments\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// iteratorsProg holds an iterator of each standard container, std::vector<bool>, paths and
// durations.
const iteratorsProg = `#include <vector>
#include <list>
#include <map>
#include <set>
#include <deque>
#include <forward_list>
#include <filesystem>
#include <chrono>
#include <string>
#include <unordered_map>
int main() {
  std::vector<int> v{1, 2, 3};
  std::list<std::string> l{"a", "bb"};
  std::map<int, std::string> m{{1, "one"}, {2, "two"}};
  std::set<int> s{5, 6};
  std::deque<int> d{7, 8};
  std::forward_list<int> fl{9, 10};
  std::vector<bool> vb{true, false, true};
  std::unordered_map<int, int> um{{3, 4}};
  auto vi = v.begin() + 1;
  auto vci = v.cbegin();
  auto li = std::next(l.begin());
  auto mi = m.find(2);
  auto si = s.begin();
  auto di = d.begin() + 1;
  auto fi = fl.begin();
  auto bi = vb.begin() + 2;
  auto br = vb[1];
  auto ui = um.begin();
  std::vector<int>::iterator ve{};
  std::list<int>::iterator le{};
  std::filesystem::path p = "/usr/lib/x.so";
  std::filesystem::path rel = "a/b";
  std::filesystem::path root = "/";
  std::filesystem::path one = "file";
  std::chrono::milliseconds ms(1500);
  std::chrono::seconds sec(3);
  auto tp = std::chrono::system_clock::time_point(sec);
  return 0;
}
`

// Iterators print as libstdc++'s printers print them, as the element they point at (2,
// "bb", {first = 2, second = "two"}, a std::vector<bool>'s bit) or "non-dereferenceable
// iterator for std::vector"; std::vector<bool> as std::vector<bool> of length 3, capacity
// 64 = {true, false, true}, with its xmethods (size(), at(1), [2], front(), back());
// filesystem::path "/usr/lib/x.so" = {[root-directory] = "/", [1] = "usr", ...}; a class
// without members of its own ends with gdb's <No data fields>; durations member by member,
// as gdb with this libstdc++. /x formats the elements, not the printer's words
// (std::vector of length 3, capacity 3 = {0x1, 0x2, 0x3}), a map's keys too, not the
// positions a printer names; set print pretty lays out a path's components. print/r, print
// -raw-values and set print raw-values show values as they are laid out, without the
// printers. Against gdb.
func TestCPlusPlusIteratorsAsGDB(t *testing.T) {
	bin := polydbgBinary(t)
	dir, exe := buildCXX(t, "iterators", iteratorsProg, "-std=c++20")
	ours, theirs := batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break 39", "run", "p vi", "p vci", "p li",
		"p mi", "p si", "p di", "p fi", "p bi", "p br", "p ui", "p ve", "p le", "p p", "p rel", "p root", "p one", "p ms",
		"p sec", "p tp", "p/x vi", "whatis vi", "p *li", "p *bi", "p *ve", "p vb", "p vb.size()", "p vb[2]", "p vb.at(1)",
		"p vb.front()", "p vb.back()", "p vb.empty()", "p/x v", "p/x m", "p/x d", "p/x s", "p/x vb", "p/x fl", "p/d v",
		"p/o d", "p/x um", "set print pretty on", "p p", "p mi", "p vb", "p ui", "info locals"))
	compareLines(t, "C++ iterators", dir, ours, theirs)
	ours, theirs = batchAndGDBWith(t, bin, exe, noLibcDebugInfo, exCommands("break 39", "run", "p/r v", "p/rx v",
		"p -raw-values -- m", "set print raw-values on", "p s", "p vi", "p p", "set print raw-values off", "p s", "p/x v",
		"output/r li", "p -raw-values off -- s"))
	compareLines(t, "raw values", dir, ours, theirs)
}

// *it and it->m read the element an iterator points at, where gdb says "Could not find
// operator*." (its operator* is inlined): the element, its members, a method run on it; a
// null iterator and a class with no operator* get gdb's words.
func TestIteratorDereference(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildCXX(t, "iterators", iteratorsProg, "-std=c++20")
	out, err := exec.Command(bin, append([]string{"debug", "-batch"}, append(exCommands("break 39", "run", "p *vi",
		"p *mi", "p mi->second", "p li->size()", "p *ve", "p *ms", "whatis *vi", "p *vi + 1", "p 1"), exe)...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"$1 = 2\n", "$2 = {first = 2, second = \"two\"}\n", "$3 = \"two\"\n", "$4 = 2\n",
		"Could not find operator*.\nCould not find operator*.\n", "type = int\n", "$5 = 3\n"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// classFormatsProg has a class with a base, a char, a float, a static member, a double
// and an anonymous union.
const classFormatsProg = `struct B { int b = 1; };
struct Q : B { char c = 'x'; float f = 2.5f; int i = -1; static int k; double d = 1.5; union { int u; float uf; }; };
int Q::k = 4;
int main() {
  Q q;
  q.u = 2;
  return q.i;
}
`

// classPrintersProg has a class whose members libstdc++'s printers show.
const classPrintersProg = `#include <vector>
#include <string>
#include <map>
struct H { static int n; std::vector<int> v{10, 20}; char c = 'a'; std::map<int, int> m{{1, 2}}; std::string s = "hi"; float f = 1.5f; };
int H::n = 7;
int main() {
  H h;
  return h.c;
}
`

// anonymousProg is C with an anonymous union and struct among a struct's members.
const anonymousProg = `struct S { int a; union { int b; float f; }; struct { char c; short d; }; int e; };
struct S g = {1, {2}, {'x', 4}, 5};
int main(void) { return g.a; }
`

// print/x and print/d of a C++ class format each member at its own type, as gdb: a char
// as a number, a float's and a double's bits, an int at 32 bits, the base class and static
// members named as printed, an anonymous union's braces alone, a printer's elements but
// not its words (before, the whole text was formatted as text: c = 0x78 'x', f = 2.5, i =
// 0xffffffffffffffff, "length 0x2"). An anonymous union's or struct's members are found
// by their names (p g.b), printed as bare braces and spelled out by ptype, in C and C++.
// next from main's last line stops in libc's code that called it, as gdb's.
func TestClassFormatsAsGDB(t *testing.T) {
	cxxAsGDB(t, "class formats", "classformats", classFormatsProg, "break 7", "run", "p/x q", "p/d q", "p q", "p q.uf",
		"p/x q.u", "next", "next", "bt 1", "next", "p 1")
	cxxAsGDB(t, "class printers formatted", "classprinters", classPrintersProg, "break 8", "run", "p/x h", "p/d h", "p h",
		"set print pretty on", "p/x h")
	cxxAsGDB(t, "anonymous members in C++", "anonymouscxx", anonymousProg, "break main", "run", "p g", "p g.b", "p g.d",
		"set print pretty on", "p g", "ptype g", "p/x g")
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "anonymous", anonymousProg)
	ours, theirs := batchAndGDBWith(t, polydbgBinary(t), exe, noLibcDebugInfo, exCommands("break main", "run", "p g",
		"p g.b", "p g.d", "set var g.b = 9", "p g.f", "set print pretty on", "p g", "ptype g", "p/x g"))
	compareLines(t, "anonymous members in C", dir, ours, theirs)
}

// print/x and print/d of what libstdc++'s printers show format each element at its own
// type, as gdb: a tuple's double by its bits, a vector's classes member by member, nested
// containers, a map's keys and values, the elements before the print limit's "...".
func TestCPlusPlusLibraryFormatsAsGDB(t *testing.T) {
	cxxAsGDB(t, "library formats", "morestd", moreStdProg, "break printf", "run", "up", "p/x dq", "p/x vi", "p/x vs",
		"p/x vv", "p/x tp", "p/x pr", "p/x ar", "p/x bs", "p/x st", "p/x pq", "p/x fl", "p/x vp", "p/x mm", "p/x ms",
		"p/x umm", "p/x ums", "p/d tp")
	cxxAsGDB(t, "library formats, containers", "std", stdProg, "break 36", "run", "p/x zeros", "p/x ps", "p/x nest",
		"p/x ages", "p/x mv", "p/x one", "p/x um", "p/x big", "p/d ps", "set print pretty on", "p/x ps")
}

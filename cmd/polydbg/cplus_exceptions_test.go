package main

// C++ exceptions as gdb shows them: catch throw, catch catch and catch rethrow at
// libstdc++'s probes, and $_exception at them.

import "testing"

// throwsProg throws from a function and catches in main, then throws one nobody catches.
const throwsProg = `#include <stdexcept>
#include <cstdio>
int thrower(int n) {
  if (n > 1) throw std::runtime_error("too big");
  return n * 2;
}
void boom(int n) { if (n > 0) throw std::out_of_range("boom"); }
int main() {
  int total = 0;
  for (int i = 0; i < 3; i++) {
    try {
      total += thrower(i);
    } catch (const std::exception &e) {
      printf("caught %s\n", e.what());
    }
  }
  boom(total);
  return 0;
}
`

// catch throw, catch catch and catch rethrow stop where gdb stops: at libstdc++'s probes
// for the events, told in gdb's words (Catchpoint 1 (exception thrown), 0x... in
// __cxa_throw () from .../libstdc++.so.6), listed, counted and deleted as gdb's; an
// exception nobody catches ends in std::terminate(), named demangled in the backtrace.
func TestCatchExceptionsAsGDB(t *testing.T) {
	cxxAsGDB(t, "catch throw", "throws", throwsProg,
		"catch throw", "catch catch", "catch rethrow", "info breakpoints",
		"run", "bt", "continue", "bt", "up", "info breakpoints", "delete 2", "disable 1",
		"continue", "enable 1", "continue", "bt", "info breakpoints", "continue", "info breakpoints")
}

// catch throw REGEX and catch catch REGEX stop at the exceptions whose type matches, as
// gdb's: the others go on (not counted), the regular expression listed as "matching:".
func TestCatchExceptionsMatchingAsGDB(t *testing.T) {
	cxxAsGDB(t, "catch throw REGEX", "rx", `#include <stdexcept>
#include <cstdio>
void f(int i) {
  if (i == 1) throw std::invalid_argument("one");
  if (i == 2) throw std::out_of_range("two");
  if (i == 3) throw 42;
}
int main() {
  for (int i = 0; i < 4; i++) {
    try { f(i); } catch (const std::exception &e) { printf("%s\n", e.what()); } catch (int) { printf("int\n"); }
  }
  return 0;
}
`, "catch throw out_of", "catch catch ^int$", "catch rethrow [", "info breakpoints", "run", "bt 2", "continue", "bt 2",
		"continue", "info breakpoints")
}

// rawThrowsProg throws an int and a struct of its own, each caught.
const rawThrowsProg = `#include <stdexcept>
struct Err { int code; };
void raw(int n) {
  try { if (n) throw 42; } catch (int) {}
  try { throw Err{7}; } catch (Err &) {}
}
int main() {
  raw(1);
  try { throw std::out_of_range("boom"); } catch (std::exception &) {}
  return 0;
}
`

// $_exception is the exception object at a catchpoint's stop, of the type the runtime's
// type_info names as the program describes it (42, {code = 7}, its members by name); a
// library's class the program does not describe is gdb's error naming it, and away from a
// catchpoint gdb's words too.
func TestExceptionObjectAsGDB(t *testing.T) {
	cxxAsGDB(t, "$_exception", "raw", rawThrowsProg,
		"break main", "run", "p $_exception", "catch throw", "catch catch", "continue", "p $_exception", "whatis $_exception",
		"p $_exception + 1", "continue", "p $_exception", "continue", "p $_exception", "p $_exception.code", "ptype $_exception",
		"continue", "p $_exception.code * 2", "continue", "p $_exception", "whatis $_exception", "continue", "p $_exception", "delete", "continue")
}
